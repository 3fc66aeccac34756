// The chain layer's JSON-RPC client reaches an external node as configured: https (a provider's TLS
// endpoint, its default port when none is given) and a key in the URL's path or query string.
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { createRpcClient } from "./rpc-client";

function echoHandler(seen: string[]) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push(req.url ?? "");
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ jsonrpc: "2.0", id, result: method === "eth_chainId" ? "0x7a69" : null }));
    });
  };
}

test("http: the path and the query string reach the node", async () => {
  const seen: string[] = [];
  const server = http.createServer(echoHandler(seen)).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const rpc = createRpcClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/abc?key=k1`);
  try {
    assert.equal(await rpc.call("eth_chainId"), "0x7a69");
    assert.deepEqual(seen, ["/v2/abc?key=k1"]);
  } finally {
    rpc.close();
    server.close();
  }
});

test("https: TLS to the node (a self-signed certificate the client process trusts)", { timeout: 60_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rpc-tls-"));
  const server = https.createServer();
  try {
    try {
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          path.join(dir, "key.pem"),
          "-out",
          path.join(dir, "cert.pem"),
          "-days",
          "1",
          "-subj",
          "/CN=localhost",
          "-addext",
          "subjectAltName=IP:127.0.0.1",
        ],
        { stdio: "ignore" },
      );
    } catch {
      t.skip("openssl is not installed");
      return;
    }
    const seen: string[] = [];
    server.setSecureContext({
      key: fs.readFileSync(path.join(dir, "key.pem")),
      cert: fs.readFileSync(path.join(dir, "cert.pem")),
    });
    server.on("request", echoHandler(seen));
    server.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/rpc?key=k2`;
    // the client in a process of its own: NODE_EXTRA_CA_CERTS (the test's certificate) is read at start
    const client = `const { createRpcClient } = require(${JSON.stringify(path.join(__dirname, "rpc-client.ts"))});
      const rpc = createRpcClient(process.argv[1]);
      rpc.call("eth_chainId").then((r) => console.log("RESULT " + r), (e) => console.log("ERR " + e.message)).finally(() => rpc.close());`;
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "-e", client, url], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: path.join(dir, "cert.pem") },
      cwd: path.join(__dirname, "..", ".."),
    });
    assert.match(stdout, /RESULT 0x7a69/);
    assert.deepEqual(seen, ["/rpc?key=k2"]);
  } finally {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
