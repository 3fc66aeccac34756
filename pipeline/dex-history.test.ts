// The DEX state keeps live orders only; finished ones (every fill settled) go to the LMDB history
// (dex-history.ts) and are read from there on demand. Checked against a DexState that keeps everything in
// memory and never restarts: the same answers for every order, list and client order id, before and after a
// clean restart; memory and the journal snapshot hold the live orders only; and after SIGKILLs at random
// points (journal snapshots every 40 records, so finished orders older than the snapshot exist only in the
// history or in the snapshot's outbox) every acknowledged order is still there, settled fills settled.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { DexState } from "./dex-service";
import { createMemoryDexHistory, type OrderRecord } from "./dex-history";
import type { SettleableTrade } from "./settle/batcher";
import type { DexOrderQuery } from "./service";
import { DEX_OPEN_STATUSES } from "./service";
import { openHistoryCrashService } from "./testing/history-crash-child";
import { TEST_MARKET as market, historyMatcher, testInput } from "./testing/matcher";
import { withTempDir } from "../test/support/temp-dir";

async function openService(dir: string, reference: DexState) {
  const { svc, state } = await historyMatcher(dir);
  svc.subscribe(reference.onServiceEvent);
  await svc.open();
  return { svc, state };
}

test("finished orders leave memory for the history; every read answers as a state that keeps everything, before and after a restart", async () => {
  await withTempDir("dex-history-", async (dir) => {
    const traders = [0, 1, 2].map(() => privateKeyToAccount(generatePrivateKey()));
    const [a, b, c] = traders;
    const reference = new DexState({ history: createMemoryDexHistory() });
    const first = await openService(dir, reference);
    const { svc } = first;
    for (const t of traders) {
      svc.deposited(t.address, market.baseToken, 10n ** 22n);
      svc.deposited(t.address, market.quoteToken, 10n ** 14n);
    }
    let batch: SettleableTrade[] = [];
    svc.setTradeSink((t) => batch.push(t));
    const settle = (txHash: Hex) => {
      const trades = batch;
      batch = [];
      svc.tradesSettled(trades);
      for (const s of [first.state, reference])
        s.onSettled({ batchId: 0n, trades, txHash, gasUsed: 0n, settledAtMs: 0 });
    };
    let n = 0;
    const place = async (
      who: typeof a,
      side: "buy" | "sell",
      priceTicks: bigint,
      sizeLots: bigint,
      extra: { timeInForce?: "GTC" | "POST_ONLY"; clientOrderId?: string } = {},
    ) => {
      const k = n++;
      const orderId = `order-${k}`;
      await svc.placeSigned(
        await testInput(who, {
          side,
          priceTicks,
          sizeLots,
          timeInForce: extra.timeInForce,
        }),
        {
          orderId,
          clientOrderId: extra.clientOrderId ?? `client-${k}`,
          apiKeyId: null,
          expiresAtMs: null,
          priceTicks: priceTicks.toString(),
          triggerPriceTicks: null,
          hidden: false,
          icebergVisibleLots: null,
          requestHash: `hash-${k}`,
        },
      );
      return orderId;
    };
    // filled pairs, settled
    for (let k = 0; k < 12; k++) {
      await place(a, "sell", 250_000n, 2n);
      await place(b, "buy", 250_000n, 2n);
    }
    settle(`0x${"11".repeat(32)}`);
    // a partial fill that stays on the book, a filled order whose fill is not settled yet
    const resting = await place(a, "sell", 251_000n, 5n);
    await place(c, "buy", 251_000n, 2n);
    const unsettledTaker = await place(c, "buy", 251_000n, 1n);
    // a rejected post-only (would take), a cancelled order, one client order id placed twice (first wins)
    await place(b, "buy", 252_000n, 1n, { timeInForce: "POST_ONLY" });
    const cancelled = await place(b, "buy", 240_000n, 3n, { clientOrderId: "twice" });
    await svc.cancel(first.state.orderById(cancelled)!.hash, b.address, "user_cancelled");
    await place(b, "buy", 239_000n, 1n, { clientOrderId: "twice" });
    await first.state.flush();

    const ids = Array.from({ length: n }, (_, k) => `order-${k}`);
    const live = ids.filter((id) => {
      const r = reference.orderById(id)!;
      return DEX_OPEN_STATUSES.includes(r.status) || r.fills.some((f) => f.settlement === "pending");
    });
    assert.ok(live.includes(resting) && live.includes(unsettledTaker) && !live.includes(cancelled));
    const queries: DexOrderQuery[] = traders.flatMap((t) => [
      { account: t.address, limit: 100 },
      { account: t.address.toLowerCase() as Address, limit: 5 },
      { account: t.address, statuses: DEX_OPEN_STATUSES, limit: 100 },
      { account: t.address, statuses: ["filled"], limit: 3 },
      { account: t.address, statuses: ["cancelled", "rejected"], limit: 100 },
      { account: t.address, symbol: "WBTC-USD", limit: 100 },
      { account: t.address, sinceMs: reference.orderById(resting)!.createdAtMs, limit: 100 },
    ]);
    const answers = (s: DexState) => ({
      orders: ids.map((id) => s.orderById(id)),
      lists: queries.map((q) => s.listOrders(q).map((r) => r.orderId)),
      clients: [
        ...ids.map((_, k) => [traders[k % 3].address, `client-${k}`] as const),
        [b.address, "twice"] as const,
        [a.address, "none"] as const,
      ].map(([acct, id]) => s.findByClientOrderId(acct, id)),
    });
    const expected = answers(reference);
    assert.equal(expected.clients.at(-2)?.order.orderId, cancelled, "the first placement of a client order id wins");
    assert.deepEqual(answers(first.state), expected);
    assert.deepEqual([...first.state.byId.keys()].sort(), [...live].sort(), "memory holds the live orders only");
    assert.equal(first.state.outbox.size, 0, "every finished order is durable in the history");
    const snapshot = first.state.snapshotState() as { records: unknown[] };
    assert.equal(snapshot.records.length, live.length, "the snapshot part holds the live orders only");

    await svc.close();
    await first.state.close();
    const second = await openService(dir, new DexState());
    assert.equal(second.svc.recovery.replayed, 0, "restored from the snapshot at the stop");
    assert.deepEqual(answers(second.state), expected, "the same answers after a restart");
    assert.deepEqual([...second.state.byId.keys()].sort(), [...live].sort());
    // the pending fill settles after the restart: the order leaves memory, still readable
    second.state.settledBefore(
      [{ batchId: 1n, fromSeq: 0, toSeq: 1_000_000, txHash: `0x${"22".repeat(32)}` }],
      1_000_000,
    );
    await second.state.flush();
    assert.equal(second.state.byId.has(unsettledTaker), false);
    assert.equal(second.state.orderById(unsettledTaker)?.fills[0].txHash, `0x${"22".repeat(32)}`);
    assert.equal(second.state.history.get(unsettledTaker)?.status, "filled");
    await second.svc.close();
    await second.state.close();
  });
});

function runChild(
  dir: string,
  first: number,
  count: number,
  killAfterAcks: number,
): Promise<{ acks: string[]; batches: { fromSeq: number; toSeq: number; txHash: Hex }[]; done: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(__dirname, "testing", "history-crash-child.ts"), dir, String(first), String(count)],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    let killed = false;
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (!killed && (out.match(/^ack /gm)?.length ?? 0) >= killAfterAcks) {
        killed = true;
        child.kill("SIGKILL");
      }
    });
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (code !== 0 && signal !== "SIGKILL") return reject(new Error(`child exited ${code}: ${err}`));
      const lines = out.split("\n");
      resolve({
        acks: lines.filter((l) => l.startsWith("ack ")).map((l) => l.slice(4)),
        batches: lines
          .filter((l) => l.startsWith("settled "))
          .map((l) => JSON.parse(l.slice(8)) as { fromSeq: number; toSeq: number; txHash: Hex }),
        done: lines.includes("done"),
      });
    });
  });
}

test("kill -9 at random points with journal snapshots every 40 records: every acknowledged order is read back, from memory or the history, settled fills settled", async () => {
  await withTempDir("dex-history-crash-", async (dir) => {
    const acked: string[] = [];
    const batches: { fromSeq: number; toSeq: number; txHash: Hex }[] = [];
    const PER_ROUND = 240;
    for (let round = 0; round < 3; round++) {
      // an even count: the next round starts with a sell; the kill falls anywhere after 60 acknowledgements
      const kill = 60 + Math.floor(Math.random() * (PER_ROUND - 80));
      const r = await runChild(dir, round * PER_ROUND, PER_ROUND, kill);
      assert.ok(!r.done, "killed before the end");
      acked.push(...r.acks);
      batches.push(...r.batches);
    }
    const { svc, state } = await openHistoryCrashService(dir, 40);
    assert.ok(svc.recovery.snapshotIndex > 0, "restored from a snapshot taken while running");
    // the batcher's confirmations after a start (here: the batches the children reported)
    state.settledBefore(
      batches.map((b, k) => ({ batchId: BigInt(k), ...b })),
      Math.max(...batches.map((b) => b.toSeq)),
    );
    await state.flush();
    let fromHistory = 0;
    for (const id of acked) {
      const r: OrderRecord | undefined = state.orderById(id);
      assert.ok(r, `acknowledged order ${id} is lost`);
      if (!state.byId.has(id)) fromHistory += 1;
      for (const f of r.fills) {
        const b = batches.find((x) => Number(f.tradeId) >= x.fromSeq && Number(f.tradeId) <= x.toSeq);
        if (b) assert.deepEqual([f.settlement, f.txHash], ["settled", b.txHash], `${id}'s fill of trade ${f.tradeId}`);
      }
      const k = Number(id.slice(2));
      assert.equal(state.findByClientOrderId(r.account, `c-${k}`)?.requestHash, `h-${k}`);
    }
    assert.ok(fromHistory > acked.length / 2, `${fromHistory} of ${acked.length} orders read from the history`);
    await svc.close();
    await state.close();
  });
});
