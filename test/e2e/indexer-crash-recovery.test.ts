// The indexer's crash recovery: Ponder is killed (SIGKILL) while batches settle and it writes them, at
// several points of its work, and started again on the same data (no reset). Each restart must come up,
// and at the end every batch on chain is indexed once, with its trades.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { OrderSide, getOrderHash, getSettlementDomain, signOrder, type Order } from "../../sdk/eip712";
import { buildSettleArgs } from "../../sdk/settle-batch";
import type { StartIndexerOptions } from "../../indexer/run";
import { type ExchangeFixture, deployExchange } from "../../indexer/testing/exchangeFixture";
import { type TestChain, startHardhatNode } from "../../indexer/testing/hardhatNode";

const E18 = 10n ** 18n;
const USD = 10n ** 6n;

let chain: TestChain | undefined;
let fx: ExchangeFixture;
let workDir: string;

before(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), "indexer-crash-"));
  chain = await startHardhatNode();
  fx = await deployExchange(chain.rpcUrl);
});

after(async () => {
  await chain?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

let nonce = 1n;
async function signed(account: ExchangeFixture["accounts"]["maker"], side: OrderSide, price: bigint, amount: bigint) {
  const domain = getSettlementDomain(31337, fx.contracts.settlement);
  const order: Order = {
    trader: account.address,
    baseToken: fx.contracts.weth,
    quoteToken: fx.contracts.usd,
    side,
    price,
    amount,
    expiry: BigInt(Math.floor(Date.now() / 1000) + 3600),
    nonce: nonce++,
    flags: 0,
  };
  return { order, signature: await signOrder(account, domain, order), hash: getOrderHash(domain, order) };
}

/** One batch of two trades (maker sells, taker buys); resolves with its batch id once mined. */
async function settleOne(): Promise<bigint> {
  const { maker, taker, admin } = fx.accounts;
  const sell = await signed(maker, OrderSide.SELL, 2_000n * USD, E18 / 10n);
  const buy = await signed(taker, OrderSide.BUY, 2_000n * USD, E18 / 10n);
  const batchId = (await fx.publicClient.readContract({
    address: fx.contracts.settlement,
    abi: fx.abis.settlement,
    functionName: "nextBatchId",
  })) as bigint;
  const args = buildSettleArgs(
    [sell, buy],
    [
      { makerHash: sell.hash, takerHash: buy.hash, baseAmount: E18 / 20n, price: 2_000n * USD },
      { makerHash: sell.hash, takerHash: buy.hash, baseAmount: E18 / 20n, price: 2_000n * USD },
    ],
  );
  await fx.send(admin, fx.contracts.settlement, fx.abis.settlement, "settle", [
    batchId,
    args.orders,
    args.signatures,
    args.fills,
  ]);
  return batchId;
}

async function sqlRows(ponderUrl: string, query: string): Promise<unknown[][]> {
  const q = encodeURIComponent(JSON.stringify({ json: { sql: query, params: [] } }));
  const res = await fetch(`${ponderUrl}/sql/db?sql=${q}`);
  // (Ponder's SQL client protocol answers rows as objects, column name -> value)
  const body = (await res.json()) as { rows: (unknown[] | Record<string, unknown>)[] };
  return body.rows.map((r) => (Array.isArray(r) ? r : Object.values(r)));
}

let launches = 0;

/** The indexer in a launcher process of its own (testing/launch-indexer.ts), as `npm start` runs it. */
async function launch(
  options: StartIndexerOptions,
): Promise<{ child: ChildProcess; ponderUrl: string; ponderPid: number }> {
  const logFile = path.join(workDir, `indexer-${++launches}.log`);
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(__dirname, "..", "..", "indexer", "testing", "launch-indexer.ts"),
      JSON.stringify(options),
      logFile,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  for (;;) {
    const m = /ready (\S+) (\S+) (\d+)/.exec(out);
    if (m) return { child, ponderUrl: m[2]!, ponderPid: Number(m[3]) };
    if (child.exitCode !== null)
      throw new Error(
        `the indexer did not start (launch ${launches}):\n${out.slice(0, 1500)}\n...\nnot JSON in its log:\n${(existsSync(
          logFile,
        )
          ? readFileSync(logFile, "utf8")
          : ""
        )
          .split("\n")
          .filter((l) => !l.startsWith("{"))
          .slice(0, 40)
          .join("\n")}`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("the indexer killed while it writes restarts without a reset and indexes every batch once", {
  timeout: 600_000,
}, async () => {
  const { maker, taker, admin } = fx.accounts;
  const total = 1_000_000n * E18;
  await fx.send(admin, fx.contracts.weth, fx.abis.token, "mint", [maker.address, total]);
  await fx.send(maker, fx.contracts.weth, fx.abis.token, "approve", [fx.contracts.settlement, total]);
  await fx.send(maker, fx.contracts.settlement, fx.abis.settlement, "deposit", [fx.contracts.weth, total]);
  const usd = 10n ** 12n * USD;
  await fx.send(admin, fx.contracts.usd, fx.abis.token, "mint", [taker.address, usd]);
  await fx.send(taker, fx.contracts.usd, fx.abis.token, "approve", [fx.contracts.settlement, usd]);
  await fx.send(taker, fx.contracts.settlement, fx.abis.settlement, "deposit", [fx.contracts.usd, usd]);
  for (let i = 0; i < 3; i++) await settleOne();

  const deploymentsFile = path.join(workDir, "deployments.json");
  writeFileSync(
    deploymentsFile,
    JSON.stringify({
      home: {
        chainId: 31337,
        rpcUrl: chain!.rpcUrl,
        startBlock: fx.startBlock,
        contracts: { Settlement: fx.contracts.settlement },
        tokens: fx.tokens,
      },
    }),
  );
  const options: StartIndexerOptions = {
    deploymentsFile,
    port: 0,
    dataDir: path.join(workDir, "pglite"),
    schema: "crash_test",
    readyTimeoutMs: 300_000,
    hotFront: false,
    idle: false,
    nice: 0,
  };

  // Each round: the indexer starts (and catches up), batches settle while it indexes them, and it is killed
  // in the middle: Ponder itself (its launcher then dies too), or its launcher (Ponder orphaned, still
  // writing while it stops itself) with the next launcher started at once on the same data.
  let settled = 3;
  const kills = [
    { what: "launcher", afterMs: 300 },
    { what: "ponder", afterMs: 700 },
    { what: "launcher", afterMs: 100 },
  ] as const;
  let previous: ChildProcess | undefined;
  for (const k of kills) {
    const running = await launch(options);
    previous = running.child;
    let settling = true;
    const stream = (async () => {
      while (settling) {
        await settleOne();
        settled++;
      }
    })();
    await new Promise((r) => setTimeout(r, k.afterMs));
    if (k.what === "ponder") {
      process.kill(running.ponderPid, "SIGKILL");
      running.child.kill("SIGKILL");
      while (alive(running.ponderPid)) await new Promise((r) => setTimeout(r, 20));
    } else running.child.kill("SIGKILL");
    settling = false;
    await stream;
  }
  const last = await launch(options);
  try {
    const lastBatch = (await fx.publicClient.readContract({
      address: fx.contracts.settlement,
      abi: fx.abis.settlement,
      functionName: "nextBatchId",
    })) as bigint;
    const deadline = Date.now() + 120_000;
    let rows: unknown[][] = [];
    for (;;) {
      rows = await sqlRows(
        last.ponderUrl,
        "select count(*) as n, count(distinct batch_id) as d, max(batch_id) as m from batch",
      );
      if (BigInt(String(rows[0]?.[2] ?? -1)) >= lastBatch - 1n || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(String(rows[0]![0]), String(settled), "one batch row per batch settled");
    assert.equal(String(rows[0]![1]), String(settled));
    const [[trades]] = await sqlRows(last.ponderUrl, "select count(*) as n from trade");
    assert.equal(String(trades), String(settled * 2), "two trades a batch");
  } finally {
    last.child.kill("SIGTERM");
    previous?.kill("SIGKILL");
    while (alive(last.ponderPid)) await new Promise((r) => setTimeout(r, 50));
  }
});
