// `npm run test:fork`: runs the Hardhat tests of test/fork/ against a fork of a home chain.
//   FORK_URL given          -> fork it; deployments from FORK_DEPLOYMENTS_FILE (default .data/deployments.json)
//   nothing at the default  -> start a stack of our own (chains, deployment, seeding; free ports, a temporary
//                              data dir), fork its home chain, stop it afterwards
//   the default answers     -> fork the running `npm start` (http://127.0.0.1:8545, .data/deployments.json)
//   --own-stack             -> always a stack of our own (what `npm test` runs: never someone's `npm start`)
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTestConfig, startStack, type RunningStack } from "../../scripts/stack";

const DEFAULT_URL = "http://127.0.0.1:8545";
const ROOT = path.resolve(__dirname, "../..");

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(2_000),
    });
    return res.ok && typeof ((await res.json()) as { result?: unknown }).result === "string";
  } catch {
    return false;
  }
}

function runHardhat(env: Record<string, string>): Promise<number> {
  const files = fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => path.join("test/fork", f));
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [require.resolve("hardhat/internal/cli/cli"), "test", "--no-compile", ...files],
      {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: "inherit",
      },
    );
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<number> {
  const given = process.env.FORK_URL;
  const ownStack = process.argv.includes("--own-stack");
  if (!ownStack && (given || (await answers(DEFAULT_URL)))) {
    const url = given ?? DEFAULT_URL;
    const file = path.resolve(ROOT, process.env.FORK_DEPLOYMENTS_FILE ?? ".data/deployments.json");
    console.log(`test:fork: forking ${url} (deployments ${file})`);
    return runHardhat({ FORK_URL: url, FORK_DEPLOYMENTS_FILE: file });
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "fork-stack-"));
  let stack: RunningStack | undefined;
  try {
    const { config } = await createTestConfig(dataDir);
    console.log(
      `test:fork: ${ownStack ? "--own-stack" : `no chain at ${DEFAULT_URL}`}; starting one (${config.chainNode}) in ${dataDir}`,
    );
    // Chains, deployment and seeding are all a fork needs; the test settles as the impersonated operator.
    stack = await startStack({ config, components: [], onComponentError: "fail" });
    const url = stack.deployments.home.rpcUrl;
    console.log(`test:fork: forking ${url}`);
    return await runHardhat({ FORK_URL: url, FORK_DEPLOYMENTS_FILE: config.deploymentsFile });
  } finally {
    await stack?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
