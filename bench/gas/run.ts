// npm run bench:gas — gas of Settlement.settle per trade (batches of 1, 10, 100) and of custody calls.
// Runs under `hardhat run` on the in-process Hardhat network. Definitions are printed with the table.
import hre from "hardhat";
import { FILL_BASE, batchOf, deployEnv, fund, newAccounts, settle, type Env } from "./scenario";

const TARGET_REPEAT = 35_000n;
const TARGET_FRESH = 60_000n;
const SIZES = [1, 10, 100];
const MAKERS = 5;
const USD = 10n ** 6n;

const DEFINITIONS = `
Definitions (every trade has its own taker order, fully filled; maker orders are fully filled by the batch):
  repeat makers : ${MAKERS} makers (1 for a 1-trade batch), each with one order filled by its share of the trades,
                  and one distinct taker per trade; makers and takers all deposited both tokens AND traded in an
                  earlier batch (nonce bitmap word and both balance slots already non-zero). Fees are charged.
  fresh accounts: every trade is between two accounts that never traded before (no nonce used, no fill) but
                  deposited both tokens of the pair; 2 new accounts per trade.
  fresh, 1-token: as fresh, but each account deposited only the token it pays, so the trade creates the
                  receiving balance slot (no target; shown for the record).
`;

async function repeatBatch(env: Env, trades: number): Promise<bigint> {
  const makers = newAccounts(Math.min(MAKERS, trades));
  const takers = newAccounts(trades);
  const all = [...makers, ...takers].map((a) => a.address);
  await fund(env, all, 1_000_000n * USD, 1_000n * 10n ** 18n);
  const warm = await batchOf(env, makers, takers, trades);
  await settle(env, warm.orders, warm.fills);
  const measured = await batchOf(env, makers, takers, trades);
  return settle(env, measured.orders, measured.fills);
}

async function freshBatch(env: Env, trades: number, bothTokens: boolean): Promise<bigint> {
  // Pair t: maker t and taker t; the batch helper gives each maker one order and one trade.
  let gas = 0n;
  const makers = newAccounts(trades);
  const takers = newAccounts(trades);
  for (let t = 0; t < trades; t++) {
    const makerSells = t % 2 === 0; // batchOf: even makers sell
    const quote = 1_000n * USD;
    const base = 10n ** 18n;
    if (bothTokens) await fund(env, [makers[t]!.address, takers[t]!.address], quote, base);
    else {
      await fund(env, [makerSells ? makers[t]!.address : takers[t]!.address], 0n, base);
      await fund(env, [makerSells ? takers[t]!.address : makers[t]!.address], quote, 0n);
    }
  }
  // One maker order per trade: pass all makers, each gets exactly one trade (trade t -> maker t).
  const batch = await batchOf(env, makers, takers, trades);
  gas += await settle(env, batch.orders, batch.fills);
  return gas;
}

async function custodyGas(env: Env) {
  const { ethers } = hre;
  const signers = await ethers.getSigners();
  const user = signers[5]!;
  const settlementAddress = await env.settlement.getAddress();
  await (await env.usd.mint(user.address, 10_000n * USD)).wait();
  await (await env.usd.connect(user).approve(settlementAddress, 2n ** 255n)).wait();
  const gasOf = async (p: Promise<any>) => ((await (await p).wait()).gasUsed as bigint);
  const usd = await env.usd.getAddress();
  const firstDeposit = await gasOf(env.settlement.connect(user).deposit(usd, 1_000n * USD));
  const repeatDeposit = await gasOf(env.settlement.connect(user).deposit(usd, 1_000n * USD));
  const request = await gasOf(env.settlement.connect(user).requestWithdrawal(usd, 500n * USD));
  await ethers.provider.send("evm_increaseTime", [3601]);
  const execute = await gasOf(env.settlement.connect(user).executeWithdrawal(usd));
  return { firstDeposit, repeatDeposit, request, execute };
}

async function main() {
  await hre.run("compile", { quiet: true });
  const rows: { scenario: string; trades: number; gas: bigint; perTrade: bigint; target?: bigint }[] = [];
  for (const trades of SIZES) {
    const env = await deployEnv(hre);
    const gas = await repeatBatch(env, trades);
    rows.push({ scenario: "repeat makers", trades, gas, perTrade: gas / BigInt(trades), target: trades === 100 ? TARGET_REPEAT : undefined });
  }
  for (const trades of SIZES) {
    const env = await deployEnv(hre);
    const gas = await freshBatch(env, trades, true);
    rows.push({ scenario: "fresh accounts", trades, gas, perTrade: gas / BigInt(trades), target: trades === 100 ? TARGET_FRESH : undefined });
  }
  for (const trades of SIZES) {
    const env = await deployEnv(hre);
    const gas = await freshBatch(env, trades, false);
    rows.push({ scenario: "fresh, 1-token", trades, gas, perTrade: gas / BigInt(trades) });
  }
  const custody = await custodyGas(await deployEnv(hre));

  console.log(DEFINITIONS);
  console.log("| scenario        | trades | batch gas  | gas / trade | target  | result |");
  console.log("| --------------- | -----: | ---------: | ----------: | ------: | ------ |");
  let failed = false;
  for (const r of rows) {
    const verdict = r.target === undefined ? "" : r.perTrade <= r.target ? "PASS" : "FAIL";
    if (verdict === "FAIL") failed = true;
    console.log(
      `| ${r.scenario.padEnd(15)} | ${String(r.trades).padStart(6)} | ${r.gas.toString().padStart(10)} | ${r.perTrade.toString().padStart(11)} | ${(r.target?.toString() ?? "").padStart(7)} | ${verdict.padEnd(6)} |`,
    );
  }
  console.log("");
  console.log("| custody call                         |    gas |");
  console.log("| ------------------------------------ | -----: |");
  console.log(`| deposit (first, new balance slot)    | ${custody.firstDeposit.toString().padStart(6)} |`);
  console.log(`| deposit (repeat)                     | ${custody.repeatDeposit.toString().padStart(6)} |`);
  console.log(`| requestWithdrawal                    | ${custody.request.toString().padStart(6)} |`);
  console.log(`| executeWithdrawal                    | ${custody.execute.toString().padStart(6)} |`);
  console.log(`\nfill size ${FILL_BASE} WETH base units at 2000 USD; maker fee 2 bps, taker fee 5 bps`);
  console.log(failed ? "RESULT: FAIL" : "RESULT: PASS");
  if (failed) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
