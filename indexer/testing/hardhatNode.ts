// A throwaway `hardhat node` on a free port for the indexer tests (chain id 31337 unless told, automine).
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";

export interface TestChain {
  rpcUrl: string;
  port: number;
  stop(): Promise<void>;
}

const repoRoot = path.resolve(__dirname, "..", "..");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess) {
  return child.exitCode !== null || child.signalCode !== null;
}

export async function startHardhatNode(chainId = 31337): Promise<TestChain> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      // stops the node when this process dies, even by SIGKILL (its stdin pipe closes)
      "--require",
      path.join(repoRoot, "indexer", "exit-with-parent.cjs"),
      path.join(repoRoot, "node_modules", "hardhat", "internal", "cli", "cli.js"),
      "node",
      "--hostname",
      "127.0.0.1",
      "--port",
      String(port),
    ],
    { cwd: repoRoot, env: { ...process.env, HARDHAT_CHAIN_ID: String(chainId) }, stdio: ["pipe", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout!.on("data", (d) => (output = (output + d).slice(-4000)));
  child.stderr!.on("data", (d) => (output = (output + d).slice(-4000)));
  const stop = async () => {
    if (exited(child)) return;
    child.kill("SIGTERM");
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        resolve();
      }, 5000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  };
  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited(child)) throw new Error(`hardhat node exited:\n${output}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`hardhat node did not start:\n${output}`);
    }
    try {
      const res = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      });
      if (res.ok) break;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { rpcUrl, port, stop };
}
