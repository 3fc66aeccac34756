// Crash test: the matcher service and the batcher run as a child process placing a stream of signed
// orders; the child is SIGKILLed mid-stream and restarted. No acknowledged order may be lost, no trade
// settled twice or skipped, and the chain's balances must equal those computed from the journal's trades.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEventLogs } from "viem";
import { feeFor } from "../../sdk/eip712";
import { settlementAbi } from "../../sdk/abi";
import { startFixture } from "../../pipeline/testing/fixture";
import { childConfig, startChild } from "../../pipeline/testing/children";
import { settledTradesOf } from "../../sdk/settled-trades";

/** Runs crash-child.ts to its end: its lines, exit and stderr. */
async function runChild(config: object, hashes = "", onLine?: (line: string, kill: () => void) => void) {
  const c = startChild(config, hashes, onLine);
  const exit = await c.exited;
  return { lines: c.lines, ...exit, stderr: c.stderr };
}

test("SIGKILL mid-stream, restart: acknowledged orders kept, every trade settled once, balances exact, settled fills stay settled with their transaction", {
  timeout: 240_000,
}, async (t) => {
  const f = await startFixture({ traders: 4 });
  const dataDir = mkdtempSync(join(tmpdir(), "pipeline-crash-"));
  try {
    const before = new Map<string, bigint>();
    const key = (a: string, t: string) => `${a.toLowerCase()}:${t.toLowerCase()}`;
    for (const t of f.traders)
      for (const tok of [f.weth, f.usd]) before.set(key(t.address, tok), await f.balanceOf(t.address, tok));
    const config = childConfig(f, dataDir, null, "stream", 400, 0);
    const acked: string[] = [];
    const first = await runChild(config, "", (line, kill) => {
      if (line.startsWith("ACK ")) {
        acked.push(line.slice(4));
        if (acked.length === 120) setTimeout(kill, 7); // mid-stream, likely mid-batch
      }
    });
    assert.equal(first.signal, "SIGKILL", `child should have been killed: ${first.stderr}`);
    assert.ok(acked.length >= 120 && acked.length < 400, `acked ${acked.length}`);
    const second = await runChild({ ...config, mode: "recover" }, acked.join(","));
    assert.equal(second.code, 0, second.stderr);
    const state = JSON.parse(second.lines.find((l) => l.startsWith("{"))!);
    const unsettledAtRestart = state.trades.filter(
      (x: { seq: number }) => x.seq > state.lastSettledSeqAtRestart,
    ).length;
    t.diagnostic(
      `acked ${acked.length} orders, journal ${state.journalRecords} records, ${state.trades.length} trades, ${unsettledAtRestart} unsettled at the restart, ${state.foundOnChain} settled batch(es) without a journaled confirmation found on the chain`,
    );
    // 1. no acknowledged order lost
    for (const h of acked) assert.equal(state.isKnown[h], true, `acknowledged order ${h} lost`);
    assert.equal(state.health.batcher.state, "running");
    assert.equal(state.health.batcher.queuedTrades, 0);
    assert.equal(state.reconciliation.state, "ok", JSON.stringify(state.reconciliation));
    assert.ok(state.trades.length > 20, `only ${state.trades.length} trades`);
    // 2. the chain settled exactly the journal's trades, once each, in order
    const logs = await f.client.getLogs({ address: f.settlement, fromBlock: f.deployBlock, toBlock: "latest" });
    const abi = settlementAbi;
    const settled = (await settledTradesOf(f.client, logs, f.settlement)).map((t) => ({
      args: t,
      transactionHash: t.transactionHash,
    }));
    assert.deepEqual(
      settled.map((l) => [
        l.args.makerOrderHash.toLowerCase(),
        l.args.takerOrderHash.toLowerCase(),
        l.args.baseAmount.toString(),
        l.args.price.toString(),
      ]),
      state.trades.map((t: { maker: string; taker: string; base: string; price: string }) => [
        t.maker.toLowerCase(),
        t.taker.toLowerCase(),
        t.base,
        t.price,
      ]),
    );
    // 2b. each trade's two fills, as the DEX service serves them: settled by the chain's transaction of that
    // trade; already at the restart for every trade settled before it (a status never goes backwards), also
    // those of a batch that landed after the kill (its receipt never read: found on the chain)
    const txOfSeq = new Map(
      state.trades.map((x: { seq: number }, i: number) => [
        x.seq,
        (settled[i] as unknown as { transactionHash: string }).transactionHash,
      ]),
    );
    type Fill = { seq: number; order: string; settlement: string; txHash: string | null };
    assert.equal(state.fills.length, 2 * state.trades.length);
    for (const f of state.fills as Fill[])
      assert.deepEqual([f.settlement, f.txHash], ["settled", txOfSeq.get(f.seq)], `trade ${f.seq}, order ${f.order}`);
    const settledBefore = (state.fillsAtRestart as Fill[]).filter((f) => f.seq <= state.lastSettledSeqAtRestart);
    assert.ok(settledBefore.length > 0, "some trades were settled before the kill");
    for (const f of settledBefore)
      assert.deepEqual(
        [f.settlement, f.txHash],
        ["settled", txOfSeq.get(f.seq)],
        `at the restart: trade ${f.seq}, order ${f.order}`,
      );
    const batches = parseEventLogs({ abi, logs, eventName: "BatchSettled" }) as unknown as {
      args: { batchId: bigint };
    }[];
    assert.deepEqual(
      batches.map((b) => Number(b.args.batchId)),
      batches.map((_, i) => i),
    );
    // 3. chain balances == deposits + the journal's trades with the contract's fee rule
    const expected = new Map(before);
    const add = (a: string, t: string, d: bigint) => expected.set(key(a, t), (expected.get(key(a, t)) ?? 0n) + d);
    const orderOf = new Map<string, { trader: string; side: number }>();
    const placed = settled;
    for (const l of placed) {
      orderOf.set(l.args.makerOrderHash.toLowerCase(), { trader: l.args.maker, side: l.args.takerIsBuy ? 1 : 0 });
      orderOf.set(l.args.takerOrderHash.toLowerCase(), { trader: l.args.taker, side: l.args.takerIsBuy ? 0 : 1 });
    }
    for (const t of state.trades as { maker: string; taker: string; base: string; price: string }[]) {
      const maker = orderOf.get(t.maker.toLowerCase())!;
      const taker = orderOf.get(t.taker.toLowerCase())!;
      const base = BigInt(t.base);
      const quote = (base * BigInt(t.price)) / 10n ** 18n;
      const buyer = maker.side === 0 ? maker : taker;
      const seller = maker.side === 0 ? taker : maker;
      const buyerFee = feeFor(base, buyer === maker ? f.makerFeeBps : f.takerFeeBps);
      const sellerFee = feeFor(quote, seller === maker ? f.makerFeeBps : f.takerFeeBps);
      add(buyer.trader, f.usd, -quote);
      add(buyer.trader, f.weth, base - buyerFee);
      add(seller.trader, f.weth, -base);
      add(seller.trader, f.usd, quote - sellerFee);
    }
    for (const t of f.traders)
      for (const tok of [f.weth, f.usd])
        assert.equal(await f.balanceOf(t.address, tok), expected.get(key(t.address, tok)), `${t.address} ${tok}`);
  } finally {
    await f.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
