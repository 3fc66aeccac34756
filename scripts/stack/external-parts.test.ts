// The stack's side of external parts, at its edges: a node by URL must answer with the configured chain
// id; a shared DEPLOYMENTS_FILE is reused only when its contracts have code there (never deployed over);
// one process at a time holds the deployments lock. Real Anvil nodes (test/support/external-parts.ts).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import pino from "pino";
import { ConfigError, loadConfig } from "../../config";
import { startExternalAnvil } from "../../test/support/external-parts";
import { connectExternalChain } from "../chain/external-chain";
import { deployOrReuse } from "./deploy";
import { lockDeployments } from "./deployments-lock";
import { writeDeployments, type Deployments } from "./deployments";
import type { Provisioner } from "./provisioner";

let home: Awaited<ReturnType<typeof startExternalAnvil>>;
let remote: Awaited<ReturnType<typeof startExternalAnvil>>;
let dir: string;
before(async () => {
  [home, remote] = await Promise.all([startExternalAnvil({ chainId: 31337 }), startExternalAnvil({ chainId: 31338 })]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ext-stack-"));
});
after(async () => {
  await Promise.all([home?.stop(), remote?.stop()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

const envFor = (extra: Record<string, string> = {}) => ({
  DATA_DIR: dir,
  HOME_CHAIN_RPC_URL: home.rpcUrl,
  REMOTE_CHAIN_RPC_URL: remote.rpcUrl,
  ...extra,
});

test("a node by URL: the configured chain id is accepted, any other one is a config error naming both", {
  timeout: 60_000,
}, async () => {
  const c = loadConfig(envFor());
  const chain = await connectExternalChain(c.chains.home);
  assert.equal(chain.chainId, 31337);
  assert.equal(chain.external, true);
  assert.equal(chain.status().state, "up");
  assert.throws(() => chain.nodePid, /external/);
  await chain.stop(); // leaves the operator's node running
  assert.equal(
    Number(
      await (
        await fetch(home.rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}',
        })
      )
        .json()
        .then((b) => (b as { result: string }).result),
    ),
    31337,
  );

  // the home URL names the remote node (chain 31338): one off the configured 31337
  const wrong = loadConfig(envFor({ HOME_CHAIN_RPC_URL: remote.rpcUrl, REMOTE_CHAIN_RPC_URL: home.rpcUrl }));
  await assert.rejects(
    connectExternalChain(wrong.chains.home),
    (e: unknown) =>
      e instanceof ConfigError &&
      /HOME_CHAIN_RPC_URL .* is chain 31338, but HOME_CHAIN_ID is 31337/.test((e as Error).message),
  );
  // HOME_CHAIN_ID set to what the node says: accepted
  const matching = loadConfig(
    envFor({
      HOME_CHAIN_RPC_URL: remote.rpcUrl,
      REMOTE_CHAIN_RPC_URL: home.rpcUrl,
      HOME_CHAIN_ID: "31338",
      REMOTE_CHAIN_ID: "31337",
    }),
  );
  assert.equal((await connectExternalChain(matching.chains.home)).chainId, 31338);
});

test("a node by URL that does not answer: a config error, the URL's path (a provider's key) left out", {
  timeout: 60_000,
}, async () => {
  const c = loadConfig(envFor({ HOME_CHAIN_RPC_URL: "http://127.0.0.1:1/v2/key123" }));
  await assert.rejects(connectExternalChain(c.chains.home, { timeoutMs: 5_000 }), (e: unknown) => {
    const m = (e as Error).message;
    return (
      e instanceof ConfigError &&
      /HOME_CHAIN_RPC_URL \(http:\/\/127\.0\.0\.1:1\/…\): the node did not answer/.test(m) &&
      !m.includes("key123")
    );
  });
});

test("a shared DEPLOYMENTS_FILE whose contracts have no code on the chain: a clear error, nothing deployed", {
  timeout: 60_000,
}, async () => {
  const file = path.join(dir, "shared", "deployments.json");
  const config = loadConfig(envFor({ DEPLOYMENTS_FILE: file }));
  const chains = {
    home: await connectExternalChain(config.chains.home),
    remote: await connectExternalChain(config.chains.remote),
  };
  const settlement = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
  const d: Deployments = {
    home: {
      chainId: 31337,
      rpcUrl: home.rpcUrl,
      wsUrl: home.wsUrl,
      startBlock: 0,
      contracts: { Settlement: settlement },
      tokens: {},
    },
    remote: { chainId: 31338, rpcUrl: remote.rpcUrl, wsUrl: remote.wsUrl, startBlock: 0, contracts: {}, tokens: {} },
  };
  writeDeployments(file, d);
  let runs = 0;
  const provisioner: Provisioner = {
    runs: [],
    async run() {
      runs++;
      throw new Error("must not deploy");
    },
  };
  const logger = pino({ level: "silent" });
  await assert.rejects(
    deployOrReuse({ config, logger, chains, provisioner }),
    (e: unknown) =>
      e instanceof ConfigError &&
      new RegExp(`DEPLOYMENTS_FILE .* Settlement \\(${settlement}\\) has no code on the home chain \\(31337\\)`).test(
        (e as Error).message,
      ),
  );
  // a file of another chain: named as such
  writeDeployments(file, { ...d, home: { ...d.home, chainId: 1 } });
  await assert.rejects(
    deployOrReuse({ config, logger, chains, provisioner }),
    /its home chain is 1, the home chain here is 31337/,
  );
  assert.equal(runs, 0);
  assert.deepEqual(JSON.parse(fs.readFileSync(file, "utf8")).home.chainId, 1, "the shared file is left as it was");

  // give the address code: the same file is reused as it is (and not rewritten: the URLs are this process's)
  const code = await fetch(home.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_setCode", params: [settlement, "0x6001"] }),
  });
  assert.equal(code.status, 200);
  writeDeployments(file, d);
  const before = fs.statSync(file).mtimeMs;
  const reused = await deployOrReuse({ config, logger, chains, provisioner });
  assert.equal(reused.deployedNow, false);
  assert.equal(reused.deployments.home.contracts.Settlement, settlement);
  assert.equal(fs.statSync(file).mtimeMs, before);
  assert.equal(runs, 0);
});

test("the deployments lock: a second taker waits for the first's release; a dead holder's lock is taken over", {
  timeout: 60_000,
}, async () => {
  const file = path.join(dir, "lock", "deployments.json");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const release = await lockDeployments(file);
  let waited = false;
  let second: (() => void) | undefined;
  const taking = lockDeployments(file, { pollMs: 20, onWait: () => (waited = true) }).then((r) => (second = r));
  // the second taker reports that it waits, and has not got the lock
  for (let i = 0; i < 500 && !waited; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(waited, true);
  assert.equal(second, undefined);
  release();
  const got = await taking;
  assert.equal(typeof got, "function");
  got();
  assert.equal(fs.existsSync(`${file}.lock`), false);

  // a lock left by a process of this host that is gone
  const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  fs.writeFileSync(
    `${file}.lock`,
    JSON.stringify({ host: os.hostname(), pid: Number(dead.stdout), sinceMs: Date.now() }),
  );
  const took = await lockDeployments(file, { timeoutMs: 5_000 });
  took();
  // a live holder on another host is waited for, then reported
  fs.writeFileSync(`${file}.lock`, JSON.stringify({ host: "elsewhere", pid: 1, sinceMs: Date.now() }));
  await assert.rejects(lockDeployments(file, { timeoutMs: 300, pollMs: 20 }), /held by pid 1 on elsewhere/);
  fs.rmSync(`${file}.lock`);
});
