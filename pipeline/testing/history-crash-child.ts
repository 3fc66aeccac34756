// Child of pipeline/dex-history.test.ts's crash test: a matcher service (journal snapshots every 40 records)
// with a DexState whose finished orders go to the LMDB history, taking pairs of orders (a sell rests, the
// buy takes it) and settling every 10 trades through a stand-in batcher. Prints `ack <orderId>` once an
// order's placement resolved and `settled <json>` once a batch's fills are settled; the parent SIGKILLs it.
// argv: dir, first order index, orders
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { join } from "node:path";
import { MatcherService } from "../match/matcher-service";
import { createOrderDigester, getDomainSeparator } from "../intake/order-digest";
import { getSettlementDomain } from "../order";
import { DexState } from "../dex-service";
import { openDexHistory } from "../dex-history";
import { signedInput } from "./orders";
import type { MarketSpec } from "../markets";
import type { SettleableTrade } from "../settle/batcher";

export const HISTORY_CRASH_SETTLEMENT = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as Address;
export const HISTORY_CRASH_MARKET: MarketSpec = {
  symbol: "WETH-USD",
  baseToken: "0x00000000000000000000000000000000000000e1",
  quoteToken: "0x00000000000000000000000000000000000000d1",
  baseDecimals: 18,
  quoteDecimals: 6,
  tickSize: 10_000n,
  lotSize: 10n ** 14n,
  minLots: 1n,
  maxLots: 10n ** 9n,
};
export const HISTORY_CRASH_KEYS: Hex[] = [
  "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
  "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
];

export async function openHistoryCrashService(dir: string, snapshotEvery: number) {
  const m = HISTORY_CRASH_MARKET;
  const state = new DexState({ history: await openDexHistory(join(dir, "history")) });
  const svc = new MatcherService({
    journalDir: join(dir, "matcher"),
    markets: [m],
    digest: createOrderDigester(getDomainSeparator(getSettlementDomain(31337, HISTORY_CRASH_SETTLEMENT))),
    fees: { makerFeeBps: 10n, takerFeeBps: 20n },
    expiryMarginMs: 10_000,
    fsync: true,
    snapshotEvery,
    snapshotParts: { dex: state },
  });
  svc.subscribe(state.onServiceEvent);
  await svc.open();
  for (const key of HISTORY_CRASH_KEYS) {
    const a = privateKeyToAccount(key).address;
    svc.deposited(a, m.baseToken, 10n ** 24n);
    svc.deposited(a, m.quoteToken, 10n ** 18n);
  }
  return { svc, state };
}

async function main(): Promise<void> {
  const [dir, firstArg, countArg] = process.argv.slice(2);
  const first = Number(firstArg);
  const count = Number(countArg);
  const { svc, state } = await openHistoryCrashService(dir, 40);
  const [seller, buyer] = HISTORY_CRASH_KEYS.map((k) => privateKeyToAccount(k));
  let batch: SettleableTrade[] = [];
  let batchId = 0;
  svc.setTradeSink((t) => {
    batch.push(t);
    if (batch.length < 10) return;
    const trades = batch;
    batch = [];
    svc.tradesSettled(trades);
    const txHash = `0x${(first * 1000 + batchId + 1).toString(16).padStart(64, "0")}` as Hex;
    state.onSettled({ batchId: BigInt(batchId++), trades, txHash, gasUsed: 0n, settledAtMs: Date.now() });
    process.stdout.write(`settled ${JSON.stringify({ fromSeq: trades[0].seq, toSeq: trades.at(-1)!.seq, txHash })}\n`);
  });
  process.stdout.write("ready\n");
  const m = HISTORY_CRASH_MARKET;
  for (let i = first; i < first + count; i++) {
    const sell = (i & 1) === 0;
    const who = sell ? seller : buyer;
    const input = await signedInput(who, who.address, 31337, HISTORY_CRASH_SETTLEMENT, m, {
      side: sell ? "sell" : "buy",
      priceTicks: 250_000n,
      sizeLots: 2n,
      nonce: BigInt(i + 1),
    });
    const orderId = `o-${i}`;
    await svc.placeSigned(input, {
      orderId,
      clientOrderId: `c-${i}`,
      apiKeyId: null,
      expiresAtMs: null,
      priceTicks: "250000",
      triggerPriceTicks: null,
      hidden: false,
      icebergVisibleLots: null,
      requestHash: `h-${i}`,
    });
    process.stdout.write(`ack ${orderId}\n`);
  }
  await state.flush();
  process.stdout.write("done\n");
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`${String(e?.stack ?? e)}\n`);
      process.exit(1);
    },
  );
}
