// npm run bench:gas — gas of Settlement settle per trade (batches of 1, 10, 100) and of custody calls.
// Runs under `hardhat run` on the in-process Hardhat network. Definitions are printed with the table.
import hre from "hardhat";
import { type Breakdown, breakdownOf } from "./breakdown";
import {
  FILL_BASE,
  MAKER_FEE_BPS,
  TAKER_FEE_BPS,
  batchOf,
  deployEnv,
  fewTradersBatch,
  fund,
  newAccounts,
  settle,
  settleTx,
  type Encoding,
  type Env,
} from "./scenario";

const TARGET_REPEAT = 35_000n;
const TARGET_FRESH = 60_000n;
/** Issue #32's goals at 100 trades, packed, printed with the breakdown (see docs/decisions/contracts.md). */
const GOAL_REPEAT = 25_000n;
const GOAL_FRESH = 45_000n;
const SIZES = (process.env.GAS_SIZES ?? "1,10,100").split(",").map(Number);
const MAKERS = 5;
const FEW_TRADERS = 10;
const USD = 10n ** 6n;

const DEFINITIONS = `
Definitions. Every trade has its own taker order, fully filled by it; maker orders are fully filled by the
batch; fills of 0.01 WETH at 2,000 USD; maker fee ${MAKER_FEE_BPS} bps, taker fee ${TAKER_FEE_BPS} bps (fees are charged).
  repeat makers  : ${MAKERS} makers (1 in a 1-trade batch), each with one order filled by its share of the
                   trades, and a distinct taker per trade. Every maker and taker deposited both tokens and
                   traded in an earlier batch (so its balance slots and nonce word are non-zero).
  few traders    : ${FEW_TRADERS} accounts (2 in a 1-trade batch) trade among themselves, each trade with its own maker and
                   taker order, so each account has many orders of both sides in the batch (the pipeline's
                   busiest traders); all traded before. No target: where netting per account and token would
                   save most (see docs/decisions/contracts.md, "Settlement netting per account and token").
  fresh accounts : every trade is between two accounts that never traded before (no order ever filled or
                   cancelled) but deposited both tokens of the pair; two new accounts per trade.
  fresh, 1-token : as fresh accounts, but each account deposited only the token it pays, so the trade also
                   creates the receiving balance slot (20,000 gas per side); no target, for the record.
  encoding       : packed = settlePacked (compact calldata; the targets are judged on it);
                   abi = settle(Order[], bytes[], Fill[]) (same checks, ABI calldata), for the record
`;

interface Row {
  scenario: string;
  encoding: Encoding;
  trades: number;
  gas: bigint;
  target?: bigint;
  /** the settle transaction (traced for the breakdown) */
  hash?: string;
}

async function repeatBatch(env: Env, trades: number, encoding: Encoding): Promise<{ gas: bigint; hash: string }> {
  const makers = newAccounts(Math.min(MAKERS, trades));
  const takers = newAccounts(trades);
  await fund(
    env,
    [...makers, ...takers].map((a) => a.address),
    1_000_000n * USD,
    1_000n * 10n ** 18n,
  );
  const warm = await batchOf(env, makers, takers, trades);
  await settle(env, warm.orders, warm.fills, encoding);
  const measured = await batchOf(env, makers, takers, trades);
  return settleTx(env, measured.orders, measured.fills, encoding);
}

async function fewTraders(env: Env, trades: number, encoding: Encoding): Promise<bigint> {
  const traders = newAccounts(Math.min(FEW_TRADERS, trades + 1));
  await fund(
    env,
    traders.map((a) => a.address),
    1_000_000n * USD,
    1_000n * 10n ** 18n,
  );
  const warm = await fewTradersBatch(env, traders, trades);
  await settle(env, warm.orders, warm.fills, encoding);
  const measured = await fewTradersBatch(env, traders, trades);
  return settle(env, measured.orders, measured.fills, encoding);
}

async function freshBatch(
  env: Env,
  trades: number,
  bothTokens: boolean,
  encoding: Encoding,
): Promise<{ gas: bigint; hash: string }> {
  const makers = newAccounts(trades);
  const takers = newAccounts(trades);
  const quote = 1_000n * USD;
  const base = 10n ** 18n;
  for (let t = 0; t < trades; t++) {
    const makerSells = t % 2 === 0; // batchOf: even makers sell
    const [seller, buyer] = makerSells ? [makers[t]!, takers[t]!] : [takers[t]!, makers[t]!];
    if (bothTokens) await fund(env, [seller.address, buyer.address], quote, base);
    else {
      await fund(env, [seller.address], 0n, base);
      await fund(env, [buyer.address], quote, 0n);
    }
  }
  // one maker per trade: batchOf gives trade t to maker t
  const batch = await batchOf(env, makers, takers, trades);
  return settleTx(env, batch.orders, batch.fills, encoding);
}

async function custodyGas(env: Env) {
  const { ethers } = hre;
  const user = (await ethers.getSigners())[5]!;
  const settlementAddress = await env.settlement.getAddress();
  await (await env.usd.mint(user.address, 10_000n * USD)).wait();
  await (await env.usd.connect(user).approve(settlementAddress, 2n ** 255n)).wait();
  const gasOf = async (p: Promise<any>) => (await (await p).wait()).gasUsed as bigint;
  const usd = await env.usd.getAddress();
  const firstDeposit = await gasOf(env.settlement.connect(user).deposit(usd, 1_000n * USD));
  const repeatDeposit = await gasOf(env.settlement.connect(user).deposit(usd, 1_000n * USD));
  const request = await gasOf(env.settlement.connect(user).requestWithdrawal(usd, 500n * USD));
  await ethers.provider.send("evm_increaseTime", [3601]);
  const execute = await gasOf(env.settlement.connect(user).executeWithdrawal(usd));
  return { firstDeposit, repeatDeposit, request, execute };
}

const BREAKDOWN_PARTS: [keyof Breakdown, string][] = [
  ["base", "21,000 base"],
  ["calldata", "calldata"],
  ["accessList", "access list"],
  ["sload", "storage reads"],
  ["sstore", "storage writes"],
  ["logs", "logs"],
  ["ecrecover", "ecrecover"],
  ["compute", "computation"],
];

/** Issue #32's goals: the packed batch-1 and batch-10 figures beside batch 100, and batch 100's breakdown. */
async function printGoals(rows: Row[]) {
  const row = (scenario: string, trades: number) =>
    rows.find((r) => r.scenario === scenario && r.encoding === "packed" && r.trades === trades);
  const perTrade = (r: Row | undefined) => (r ? (r.gas / BigInt(r.trades)).toString() : "-");
  console.log("\nissue #32 goals (packed, gas per trade):");
  console.log("| scenario        | batch 1 | batch 10 | batch 100 |  goal  | result  |");
  console.log("| --------------- | ------: | -------: | --------: | -----: | ------- |");
  const breakdowns: [string, Breakdown, number][] = [];
  for (const [scenario, goal] of [
    ["repeat makers", GOAL_REPEAT],
    ["fresh accounts", GOAL_FRESH],
  ] as const) {
    const at100 = row(scenario, 100);
    const verdict = at100 ? (at100.gas / 100n <= goal ? "met" : "not met") : "-";
    console.log(
      `| ${scenario.padEnd(15)} | ${perTrade(row(scenario, 1)).padStart(7)} | ${perTrade(row(scenario, 10)).padStart(8)} | ${perTrade(at100).padStart(9)} | ${goal.toString().padStart(6)} | ${verdict.padEnd(7)} |`,
    );
    if (at100?.hash) breakdowns.push([scenario, await breakdownOf(hre, at100.hash), at100.trades]);
  }
  if (breakdowns.length === 0) return;
  console.log("\nper-trade breakdown at batch 100 (packed; from the transaction's opcode trace):");
  console.log(`| part            | ${breakdowns.map(([s]) => s.padStart(14)).join(" | ")} |`);
  console.log(`| --------------- | ${breakdowns.map(() => "-------------:").join(" | ")} |`);
  for (const [key, label] of BREAKDOWN_PARTS) {
    console.log(
      `| ${label.padEnd(15)} | ${breakdowns.map(([, b, n]) => (b[key] / BigInt(n)).toString().padStart(14)).join(" | ")} |`,
    );
  }
  console.log(
    `| ${"total".padEnd(15)} | ${breakdowns.map(([, b, n]) => (b.total / BigInt(n)).toString().padStart(14)).join(" | ")} |`,
  );
  console.log(
    "  storage reads/writes: SLOAD/SSTORE as charged (cold 2,100, warm 100; a write 2,900 or 20,000 after its read);",
  );
  console.log(
    "  access list: the batcher's EIP-2930 list (2,400 the contract, 1,900 a slot; a listed slot's first access costs 100);",
  );
  console.log(
    "  ecrecover: the precompile's 3,000 and its call; computation: everything else (hashing, memory, loops).",
  );
}

/** The settle scenarios in the order the table prints them; `target` holds at 100 packed trades. */
const SCENARIOS: {
  scenario: string;
  target?: bigint;
  run: (env: Env, trades: number, encoding: Encoding) => Promise<{ gas: bigint; hash?: string }>;
}[] = [
  { scenario: "repeat makers", target: TARGET_REPEAT, run: repeatBatch },
  { scenario: "few traders", run: async (env, trades, encoding) => ({ gas: await fewTraders(env, trades, encoding) }) },
  {
    scenario: "fresh accounts",
    target: TARGET_FRESH,
    run: (env, trades, encoding) => freshBatch(env, trades, true, encoding),
  },
  {
    scenario: "fresh, 1-token",
    run: async (env, trades, encoding) => ({ gas: (await freshBatch(env, trades, false, encoding)).gas }),
  },
];

async function main() {
  await hre.run("compile", { quiet: true });
  const rows: Row[] = [];
  for (const encoding of ["packed", "abi"] as Encoding[]) {
    for (const { scenario, target, run } of SCENARIOS) {
      for (const trades of SIZES) {
        const { gas, hash } = await run(await deployEnv(hre), trades, encoding);
        rows.push({
          scenario,
          encoding,
          trades,
          gas,
          hash,
          target: trades === 100 && encoding === "packed" ? target : undefined,
        });
      }
    }
  }
  const custody = await custodyGas(await deployEnv(hre));

  console.log(DEFINITIONS);
  console.log("| scenario        | encoding | trades | batch gas  | gas / trade | target  | result |");
  console.log("| --------------- | -------- | -----: | ---------: | ----------: | ------: | ------ |");
  let failed = false;
  for (const r of rows) {
    const perTrade = r.gas / BigInt(r.trades);
    const verdict = r.target === undefined ? "" : perTrade <= r.target ? "PASS" : "FAIL";
    if (verdict === "FAIL") failed = true;
    console.log(
      `| ${r.scenario.padEnd(15)} | ${r.encoding.padEnd(8)} | ${String(r.trades).padStart(6)} | ${r.gas.toString().padStart(10)} | ${perTrade.toString().padStart(11)} | ${(r.target?.toString() ?? "").padStart(7)} | ${verdict.padEnd(6)} |`,
    );
  }
  console.log("");
  console.log("| custody call                                     |    gas |");
  console.log("| ------------------------------------------------ | -----: |");
  console.log(`| deposit (first: balance slot + nonce word 0)     | ${custody.firstDeposit.toString().padStart(6)} |`);
  console.log(`| deposit (repeat)                                 | ${custody.repeatDeposit.toString().padStart(6)} |`);
  console.log(`| requestWithdrawal                                | ${custody.request.toString().padStart(6)} |`);
  console.log(`| executeWithdrawal                                | ${custody.execute.toString().padStart(6)} |`);
  console.log(
    `\nfill size ${FILL_BASE} WETH base units; gas per trade = receipt gasUsed / trades (includes the 21,000 base and calldata)`,
  );
  await printGoals(rows);
  console.log(failed ? "RESULT: FAIL" : "RESULT: PASS");
  if (failed) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
