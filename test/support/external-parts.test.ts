// The external parts the "past one machine" tests use are real: a Postgres server that answers SQL over
// TCP, and an Anvil node with the chain id asked for, automining the stack's dev accounts' transactions.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { test } from "node:test";
import {
  postgresBinDir,
  postgresRunAs,
  reachableBinDir,
  startExternalAnvil,
  startPostgresServer,
} from "./external-parts";

const pg = createRequire(__filename)("pg") as {
  Client: new (o: {
    connectionString: string;
  }) => {
    connect(): Promise<void>;
    query(sql: string): Promise<{ rows: Record<string, unknown>[] }>;
    end(): Promise<void>;
  };
};

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

test("startPostgresServer: a real server on TCP; stop ends it and removes its temp dir", {
  timeout: 120_000,
}, async () => {
  const server = await startPostgresServer();
  try {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const r = await client.query("select version() as v, current_user as u");
    await client.end();
    assert.match(String(r.rows[0]!.v), /^PostgreSQL 18\./);
    assert.equal(r.rows[0]!.u, "postgres");
  } finally {
    await server.stop();
  }
  assert.equal(fs.existsSync(server.dataDir), false);
  const client = new pg.Client({ connectionString: server.url });
  await assert.rejects(client.connect());
});

test("startExternalAnvil: the chain id asked for, automining a dev account's transfer", {
  timeout: 120_000,
}, async () => {
  const node = await startExternalAnvil({ chainId: 31555 });
  try {
    assert.equal(await rpc(node.rpcUrl, "eth_chainId"), "0x7b43");
    const [from, to] = (await rpc(node.rpcUrl, "eth_accounts")) as string[];
    assert.equal(from, "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
    const hash = await rpc(node.rpcUrl, "eth_sendTransaction", [{ from, to, value: "0x1" }]);
    // automine: the receipt exists once mined, without anyone calling evm_mine
    let receipt: { status?: string } | null = null;
    for (let i = 0; i < 200 && !receipt; i++) {
      receipt = (await rpc(node.rpcUrl, "eth_getTransactionReceipt", [hash])) as { status?: string } | null;
      if (!receipt) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(receipt?.status, "0x1");
  } finally {
    await node.stop();
  }
  await assert.rejects(rpc(node.rpcUrl, "eth_chainId"));
});

test("under root, binaries in a directory the postgres user cannot enter are copied where it can", {
  timeout: 120_000,
}, async (t) => {
  const runAs = postgresRunAs();
  if (!runAs) {
    t.skip("not root: Postgres runs as this user");
    return;
  }
  const closed = fs.mkdtempSync(path.join(os.tmpdir(), "closed-"));
  try {
    fs.chmodSync(closed, 0o700);
    const native = path.join(closed, "native");
    fs.cpSync(path.dirname(postgresBinDir()), native, { recursive: true, verbatimSymlinks: true });
    const bin = reachableBinDir(path.join(native, "bin"), runAs);
    assert.notEqual(bin, path.join(native, "bin"));
    assert.ok(!bin.startsWith(closed));
    // and a server runs from it
    assert.equal(
      spawnSync(path.join(bin, "postgres"), ["--version"], { ...runAs, encoding: "utf8" })
        .stdout.trim()
        .startsWith("postgres (PostgreSQL) 18"),
      true,
    );
  } finally {
    fs.rmSync(closed, { recursive: true, force: true });
  }
});
