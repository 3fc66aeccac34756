// The runtime under `npm start`: real Hardhat nodes behind their journalling proxies, deployment and
// seeding, restart with identical state, --reset, the health endpoint, and no process left behind.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { erc20Abi, parseAbi, type Address } from "viem";
import { REPO_ROOT } from "../../config";
import { createRpcClient } from "../../scripts/chain";
import {
  createTestConfig,
  DEMO_DEPOSIT_WHOLE_TOKENS,
  startHealthServer,
  startStack,
  type Component,
  type RunningStack,
} from "../../scripts/stack";
import { createChainClients } from "../../scripts/stack/clients";
import { childProcesses, isAlive } from "../support/processes";

const settlementAbi = parseAbi([
  "function balanceOf(address trader, address token) view returns (uint256)",
  "function hasRole(bytes32 role, address account) view returns (bool)",
]);

/** The chain nodes (Hardhat or Anvil) process `parent` spawned. */
function childPids(parent: number): number[] {
  return childProcesses(parent)
    .filter(({ argv }) => argv.join("\0").includes("hardhat-node.config") || argv[0].endsWith("/anvil"))
    .map((c) => c.pid);
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

interface ChainState {
  home: { hashes: string[]; nonces: string[]; deposits: string[]; wallet: string[] };
  remote: { hashes: string[] };
}

async function blockHashes(rpcUrl: string): Promise<string[]> {
  const rpc = createRpcClient(rpcUrl);
  try {
    const latest = Number(await rpc.call<string>("eth_blockNumber"));
    const hashes: string[] = [];
    for (let n = 0; n <= latest; n++) {
      hashes.push((await rpc.call<{ hash: string }>("eth_getBlockByNumber", [`0x${n.toString(16)}`, false])).hash);
    }
    return hashes;
  } finally {
    rpc.close();
  }
}

async function chainState(stack: RunningStack): Promise<ChainState> {
  const { publicClient } = createChainClients(stack.chains.home.chainId, stack.chains.home.rpcUrl);
  const settlement = stack.deployments.home.contracts.Settlement as Address;
  const tokens = Object.values(stack.deployments.home.tokens).map((t) => t.address as Address);
  const traders = stack.config.keys.demoTraders.map((k) => k.address);
  const nonces: string[] = [];
  const deposits: string[] = [];
  const wallet: string[] = [];
  for (const trader of [...traders, stack.config.keys.deployer.address]) {
    nonces.push(String(await publicClient.getTransactionCount({ address: trader })));
    for (const token of tokens) {
      deposits.push(
        String(
          await publicClient.readContract({
            address: settlement,
            abi: settlementAbi,
            functionName: "balanceOf",
            args: [trader, token],
          }),
        ),
      );
      wallet.push(
        String(
          await publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [trader] }),
        ),
      );
    }
  }
  return {
    home: { hashes: await blockHashes(stack.chains.home.rpcUrl), nonces, deposits, wallet },
    remote: { hashes: await blockHashes(stack.chains.remote.rpcUrl) },
  };
}

test("the stack starts, deploys and seeds, and restarts with identical state", async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "stack-e2e-"));
  const running: RunningStack[] = [];
  t.after(async () => {
    await Promise.all(running.map((s) => s.stop()));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const { config } = await createTestConfig(dataDir);
  const events: string[] = [];
  // A component through the extension point: sees the deployments, adds to them, is stopped first.
  const probe: Component = {
    name: "probe",
    async start(ctx) {
      events.push(`start ${ctx.deployments.home.contracts.Settlement}`);
      ctx.updateDeployments((d) => ({
        ...d,
        home: { ...d.home, contracts: { ...d.home.contracts, Probe: d.home.contracts.Settlement } },
      }));
      return {
        urls: { probe: "http://127.0.0.1:1/probe" },
        async stop() {
          events.push(`stop (chain up: ${isAlive(ctx.chains.home.nodePid)})`);
        },
      };
    },
  };

  // First start: fresh data dir.
  const first = await startStack({ config, reset: true, components: [probe] });
  running.push(first);
  t.diagnostic(`first start: ${JSON.stringify(first.timingsMs)}`);
  assert.equal(first.deployedNow, true);
  for (const [chain, expected] of [
    [first.chains.home, 31337],
    [first.chains.remote, 31338],
  ] as const) {
    const rpc = createRpcClient(chain.rpcUrl);
    assert.equal(Number(await rpc.call<string>("eth_chainId")), expected);
    rpc.close();
  }
  assert.equal(first.chains.home.rpcUrl, config.chains.home.rpcUrl, "the chain serves on the configured port");
  const settlement = first.deployments.home.contracts.Settlement as Address;
  assert.match(settlement, /^0x[0-9a-fA-F]{40}$/);
  const { publicClient } = createChainClients(31337, first.chains.home.rpcUrl);
  assert.notEqual(await publicClient.getCode({ address: settlement }), undefined);
  const operatorRole = "0x97667070c54ef182b0f5858b034beac1b6f3089aa2d3188bb1e8929f4fa9b929"; // keccak256("OPERATOR_ROLE")
  assert.equal(
    await publicClient.readContract({
      address: settlement,
      abi: settlementAbi,
      functionName: "hasRole",
      args: [operatorRole, config.keys.operator.address],
    }),
    true,
  );
  // Every demo trader has its demo funds deposited, to the base unit.
  assert.ok(first.seeded.length >= config.keys.demoTraders.length * 2);
  for (const trader of config.keys.demoTraders) {
    for (const [symbol, token] of Object.entries(first.deployments.home.tokens)) {
      const whole = DEMO_DEPOSIT_WHOLE_TOKENS[symbol];
      if (whole === undefined) continue;
      const deposited = await publicClient.readContract({
        address: settlement,
        abi: settlementAbi,
        functionName: "balanceOf",
        args: [trader.address, token.address as Address],
      });
      assert.equal(deposited, whole * 10n ** BigInt(token.decimals), `${symbol} of ${trader.address}`);
    }
  }
  // The deployments file is what the stack reports, including the component's addition.
  const file = JSON.parse(fs.readFileSync(config.deploymentsFile, "utf8"));
  assert.equal(file.home.contracts.Settlement, settlement);
  assert.equal(file.home.contracts.Probe, settlement);
  assert.deepEqual(events, [`start ${settlement}`]);

  // Health: 200 with every part up.
  const health = await startHealthServer({ host: config.host, port: config.ports.health, stack: first });
  const res = await fetch(health.url);
  const report = (await res.json()) as { status: string; components: { name: string; ok: boolean }[] };
  await health.close();
  assert.equal(res.status, 200);
  assert.equal(report.status, "ok");
  assert.deepEqual(
    report.components.map((c) => c.name),
    ["home-chain", "remote-chain", "probe"],
  );

  // A later change on chain (a withdrawal request would do; a plain transfer is enough here).
  const rpc = createRpcClient(first.chains.remote.rpcUrl);
  await rpc.call("evm_mine");
  rpc.close();
  const before = await chainState(first);
  const pids = [first.chains.home.nodePid, first.chains.remote.nodePid];
  await first.stop();
  assert.deepEqual(events.at(-1), "stop (chain up: true)", "components stop before the chains");
  assert.ok(await waitFor(() => pids.every((p) => !isAlive(p)), 5_000), "no chain process left after stop");

  // Second start on the same data dir: nothing deployed again, the same chains block for block. Its one
  // component started alongside (Component.alongside) starts while the next one starts, and the stack's start
  // waits for both (without it, "slow" would wait its 5 s for "next" in vain).
  const order: string[] = [];
  let nextUp: () => void = () => {};
  const nextStarted = new Promise<void>((r) => (nextUp = r));
  const slow: Component = {
    name: "slow",
    alongside: true,
    async start() {
      order.push("slow begins");
      await Promise.race([nextStarted, new Promise((r) => setTimeout(r, 5_000))]);
      order.push("slow up");
      return { async stop() {} };
    },
  };
  const next: Component = {
    name: "next",
    async start() {
      order.push("next up");
      nextUp();
      return { async stop() {} };
    },
  };
  const second = await startStack({ config, components: [slow, next] });
  running.push(second);
  assert.deepEqual(order, ["slow begins", "next up", "slow up"]);
  assert.deepEqual(
    second.components.map((c) => c.name),
    ["slow", "next"],
  );
  t.diagnostic(
    `restart: ${JSON.stringify(second.timingsMs)}, replayed ${second.chains.home.restored.entries} entries in ${second.chains.home.restored.ms} ms`,
  );
  assert.equal(second.deployedNow, false);
  assert.equal(second.deployments.home.contracts.Settlement, settlement);
  assert.equal(second.deployments.home.contracts.Probe, settlement, "a component's deployments are kept");
  // restored by replaying the journal (Hardhat), or from the snapshot the clean stop left (Anvil)
  const restored = second.chains.home.restored;
  assert.ok(restored.entries > 0 || (restored.snapshot?.journalEntries ?? 0) > 0, JSON.stringify(restored));
  assert.deepEqual(await chainState(second), before);
  await second.stop();
});

test("npm start prints the stack, serves /health, stops every chain on SIGINT; --reset starts afresh; chains die with it on SIGKILL", async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "npm-start-e2e-"));
  const children: ReturnType<typeof spawn>[] = [];
  t.after(() => {
    for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const { env } = await createTestConfig(dataDir);

  const launch = async (args: string[] = []) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(REPO_ROOT, "scripts", "start.ts"), ...args], {
      cwd: REPO_ROOT,
      // The chains and contracts are what this test is about; the indexer has its own tests.
      env: { ...process.env, ...env, STACK_COMPONENTS: "none" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    const ready = await waitFor(() => out.includes("Ctrl-C stops everything") || child.exitCode !== null, 120_000);
    assert.ok(ready && child.exitCode === null, `npm start did not come up:\n${out.slice(-3000)}`);
    return { child, output: () => out };
  };

  const { child, output } = await launch();
  const banner = output();
  assert.match(banner, new RegExp(`home\\s+\\(chain 31337\\)\\s+http://127\\.0\\.0\\.1:${env.HOME_CHAIN_PORT}`));
  assert.match(banner, new RegExp(`remote \\(chain 31338\\)\\s+http://127\\.0\\.0\\.1:${env.REMOTE_CHAIN_PORT}`));
  assert.match(banner, /Settlement \(home\)\s+0x[0-9a-fA-F]{40}/);
  assert.match(banner, /demo trader 1\s+0x[0-9a-fA-F]{40}\s+0x[0-9a-f]{64}/);
  // /health answers from a report taken every second (scripts/stack/health.ts): the first one after the
  // banner names the chains
  type Report = { components: { name: string; ok: boolean }[] };
  const healthReport = async () => (await (await fetch(`http://127.0.0.1:${env.HEALTH_PORT}/health`)).json()) as Report;
  let report = await healthReport();
  for (let i = 0; i < 25 && !report.components.some((c) => c.name === "home-chain"); i++) {
    await new Promise((r) => setTimeout(r, 100));
    report = await healthReport();
  }
  assert.ok(report.components.find((c) => c.name === "home-chain")?.ok);
  assert.ok(report.components.find((c) => c.name === "remote-chain")?.ok);

  // Blocks beyond the deployment and seeding, for --reset to throw away.
  const home = createRpcClient(`http://127.0.0.1:${env.HOME_CHAIN_PORT}`);
  const seededBlocks = Number(await home.call<string>("eth_blockNumber"));
  for (let i = 0; i < 3; i++) await home.call("evm_mine");
  home.close();

  const nodes = childPids(child.pid!);
  assert.equal(nodes.length, 2, "two chain nodes");
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGINT");
  assert.equal(await exited, 0);
  assert.ok(await waitFor(() => nodes.every((p) => !isAlive(p)), 5_000), "no chain node left after Ctrl-C");

  // --reset: the data dir is wiped, the chains start from a new genesis, deployed and seeded again.
  const again = await launch(["--reset"]);
  assert.match(again.output(), /Settlement \(home\)/);
  const fresh = createRpcClient(`http://127.0.0.1:${env.HOME_CHAIN_PORT}`);
  assert.equal(Number(await fresh.call<string>("eth_blockNumber")), seededBlocks, "only the new deployment's blocks");
  fresh.close();

  // Even killed outright, npm start leaves no chain node behind (they watch their stdin pipe).
  const nodes2 = childPids(again.child.pid!);
  assert.equal(nodes2.length, 2);
  again.child.kill("SIGKILL");
  assert.ok(await waitFor(() => nodes2.every((p) => !isAlive(p)), 5_000), "no orphan chain node after SIGKILL");
});

test("SIGTERM to npm's pid or to the whole process group (systemd, containers) shuts npm start down cleanly, once", async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "npm-start-sigterm-"));
  const children: ReturnType<typeof spawn>[] = [];
  t.after(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) process.kill(-c.pid!, "SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const { env } = await createTestConfig(dataDir);
  for (const target of ["npm", "group"] as const) {
    // `npm start` as an integrator runs it: npm -> the script -> node, in a process group of its own.
    const child = spawn("npm", ["start"], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env, STACK_COMPONENTS: "none", LOG_LEVEL: "debug" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    children.push(child);
    let out = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
    const ready = await waitFor(() => out.includes("Ctrl-C stops everything") || child.exitCode !== null, 120_000);
    assert.ok(ready && child.exitCode === null, `npm start did not come up:\n${out.slice(-3000)}`);
    const server = Number(/"pid":(\d+)/.exec(out)?.[1] ?? NaN);
    const nodes = childPids(server);
    assert.equal(nodes.length, 2, "two chain nodes");
    const exited = new Promise<[number | null, string | null]>((resolve) =>
      child.once("exit", (code, sig) => resolve([code, sig])),
    );
    if (target === "npm") process.kill(child.pid!, "SIGTERM");
    else process.kill(-child.pid!, "SIGTERM");
    assert.deepEqual(await exited, [0, null], `${target}: npm start exits 0\n${out.slice(-2000)}`);
    assert.ok(
      await waitFor(() => !isAlive(server) && nodes.every((p) => !isAlive(p)), 10_000),
      `${target}: no process left behind`,
    );
    const lines = out
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { msg: string; signal?: string });
    assert.equal(lines.filter((l) => l.msg === "stopping").length, 1, `${target}: one stop`);
    assert.equal(lines.filter((l) => l.msg === "stopped").length, 1, `${target}: the stop completed`);
    assert.ok(!out.includes("exiting now"), `${target}: no forced exit`);
    // (whether npm's forwarded copy of a group SIGTERM reaches the server before it has exited is timing; the
    // assertions above hold either way: one stop, completed, exit 0, no forced exit)
  }
});
