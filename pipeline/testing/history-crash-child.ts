// Child of pipeline/dex-history.test.ts's crash test: a matcher service (journal snapshots every 40 records)
// with a DexState whose finished orders go to the LMDB history, taking pairs of orders (a sell rests, the
// buy takes it) and settling every 10 trades through a stand-in batcher. Prints `ack <orderId>` once an
// order's placement resolved and `settled <json>` once a batch's fills are settled; the parent SIGKILLs it.
// argv: dir, first order index, orders
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { signedInput } from "./orders";
import { TEST_MARKET, TEST_SETTLEMENT, historyMatcher } from "./matcher";
import type { SettleableTrade } from "../settle/batcher";

export const HISTORY_CRASH_KEYS: Hex[] = [
  "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
  "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
];

export async function openHistoryCrashService(dir: string, snapshotEvery: number) {
  const m = TEST_MARKET;
  const { svc, state } = await historyMatcher(dir, { fsync: true, snapshotEvery });
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
  const m = TEST_MARKET;
  for (let i = first; i < first + count; i++) {
    const sell = (i & 1) === 0;
    const who = sell ? seller : buyer;
    const input = await signedInput(who, who.address, 31337, TEST_SETTLEMENT, m, {
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
