// Batch poisoning (issue 11): a revert one order causes must not halt the venue. The batcher against a fake
// chain that refuses named orders the way Settlement does (the first refused order in a batch reverts it
// with the contract's error and arguments; eth_call answers the same).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import type { SettleArgs, SignedOrder } from "../../sdk/settle-batch";
import { createBatcher, type BatcherDeps, type BatchRecord, type SettleableTrade } from "./batcher";
import { readJournalContents } from "../../matcher/testing/journal-files";
import { FatalChainError, RetryableChainError } from "../errors";
import type { SettleSender } from "./settle-sender";
import { withTempDir } from "../../test/support/temp-dir";

const h = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Address;
/** order n: hash h(n), nonce n, trader `traderOf[n]` or its own address 0x...n */
function makeOrders(traderOf: Record<number, number> = {}) {
  return (hash: Hex): SignedOrder => {
    const n = Number(BigInt(hash));
    return {
      hash,
      signature: "0x" as Hex,
      order: {
        trader: addr(traderOf[n] ?? 1000 + n),
        baseToken: addr(2),
        quoteToken: addr(3),
        side: n % 2 === 0 ? 0 : 1,
        price: 1n,
        amount: 1n,
        expiry: 1n,
        nonce: BigInt(n),
        flags: 0,
      },
    };
  };
}
const trade = (seq: number, maker = 2 * seq + 1, taker = 2 * seq + 2): SettleableTrade => ({
  seq,
  makerHash: h(maker),
  takerHash: h(taker),
  baseAmount: BigInt(seq),
  price: 1n,
  matchedAtMs: 0,
});

type Poison = { name: string; args: (o: SignedOrder["order"], hash: Hex) => unknown[] };
const NONCE_USED: Poison = { name: "SettlementOrderNonceUsed", args: (o) => [o.trader, o.nonce] };
const MALFORMED: Poison = { name: "SettlementSignatureMalformed", args: (o) => [o.trader] };
const NOT_AUTHORIZED: Poison = { name: "SettlementSignerNotAuthorized", args: (o) => [o.trader, addr(0xbad)] };
const EXPIRED: Poison = { name: "SettlementOrderExpired", args: (_o, hash) => [hash, 1n] };

/** Applies batches in id order; a batch holding a poisoned order (by nonce = n) reverts with its error.
 *  Answers `delayMs` later so that two batches can be in flight. */
function poisonChain(poison: Map<number, Poison>, opts: { delayMs?: number; fatal?: FatalChainError } = {}) {
  const applied: { batchId: bigint; seqs: bigint[] }[] = [];
  const reverted: string[] = [];
  let simulations = 0;
  let fatal = opts.fatal;
  function check(batchId: bigint, args: SettleArgs): FatalChainError | null {
    if (fatal) return fatal;
    if (batchId !== BigInt(applied.length))
      return new FatalChainError("out of order", "SettlementBatchOutOfOrder", [BigInt(applied.length), batchId]);
    for (const o of args.orders) {
      const p = poison.get(Number(o.nonce));
      if (p) return new FatalChainError(`settle reverted: ${p.name}`, p.name, p.args(o, h(Number(o.nonce))));
    }
    return null;
  }
  const sender: SettleSender = {
    async nextBatchId() {
      return BigInt(applied.length);
    },
    send(batchId, args) {
      const err = check(batchId, args);
      if (err) reverted.push(err.revertName ?? "?");
      else applied.push({ batchId, seqs: args.fills.map((f) => f.baseAmount) });
      return new Promise((resolve, reject) =>
        setTimeout(
          () => (err ? reject(err) : resolve({ txHash: h(99), gasUsed: 1n, blockNumber: 1n })),
          opts.delayMs ?? 1,
        ),
      );
    },
    async simulate(batchId, args) {
      simulations += 1;
      return check(batchId, args);
    },
    reset() {},
  };
  return {
    sender,
    applied,
    reverted,
    settledSeqs: () => applied.flatMap((a) => a.seqs.map(Number)),
    simulations: () => simulations,
    setFatal: (e: FatalChainError | undefined) => (fatal = e),
  };
}

/** The matcher's side of a rejection: a journal of decisions; every unsettled trade of a rejected order is dropped. */
function fakeMatcher(trades: SettleableTrade[]) {
  const journal: { orders: { hash: Hex; error: string }[]; trades: number[] }[] = [];
  const droppedSeqs = new Set<number>();
  return {
    journal,
    droppedSeqs,
    async onRejected(orders: { hash: Hex; error: string }[]) {
      const hs = new Set(orders.map((o) => o.hash.toLowerCase()));
      const seqs = trades
        .filter((t) => hs.has(t.makerHash.toLowerCase()) || hs.has(t.takerHash.toLowerCase()))
        .map((t) => t.seq);
      journal.push({ orders, trades: seqs });
      for (const s of seqs) droppedSeqs.add(s);
      return seqs;
    },
    isDropped: (seq: number) => droppedSeqs.has(seq),
  };
}

const withDir = (fn: (dir: string) => Promise<void>) => withTempDir("poison-", fn);

function deps(
  chain: ReturnType<typeof poisonChain>,
  m: ReturnType<typeof fakeMatcher>,
  dir: string,
  extra: Partial<BatcherDeps> = {},
): BatcherDeps {
  return {
    sender: chain.sender,
    storeDir: join(dir, "b"),
    signedOrder: makeOrders(),
    maxTrades: 10,
    maxDelayMs: 1,
    fsync: false,
    onRejected: m.onRejected,
    isDropped: m.isDropped,
    onHalt: () => assert.fail("the batcher must not halt"),
    ...extra,
  };
}

/** A batcher over `chain` and a matcher holding `trades` (`extra` overrides its deps, or makes them from the
 *  matcher), every trade pushed and the batcher drained. */
async function settleAll(
  dir: string,
  trades: SettleableTrade[],
  chain: ReturnType<typeof poisonChain>,
  extra: Partial<BatcherDeps> | ((m: ReturnType<typeof fakeMatcher>) => Partial<BatcherDeps>) = {},
  m = fakeMatcher(trades),
) {
  const b = createBatcher(deps(chain, m, dir, typeof extra === "function" ? extra(m) : extra));
  await b.start();
  for (const t of trades) b.push(t);
  await b.drain();
  return { m, b };
}

/** settleAll where the batcher must halt: the halt's reason with the batcher and matcher. */
async function settleUntilHalt(
  dir: string,
  trades: SettleableTrade[],
  chain: ReturnType<typeof poisonChain>,
  extra: Partial<BatcherDeps> = {},
) {
  let halted = "";
  const r = await settleAll(dir, trades, chain, { onHalt: (why) => (halted = why), ...extra });
  assert.equal(r.b.health().state, "halted");
  return { ...r, halted };
}

test("one poisoned order among honest ones: its trade is dropped, the rest settle in the same batch id, no halt", async () => {
  await withDir(async (dir) => {
    const trades = [1, 2, 3, 4, 5, 6].map((s) => trade(s));
    const poisoned = 2 * 3 + 2; // the taker of trade 3
    const chain = poisonChain(new Map([[poisoned, NONCE_USED]]));
    const { m, b } = await settleAll(dir, trades, chain);
    assert.equal(b.health().state, "running");
    assert.deepEqual(chain.reverted, ["SettlementOrderNonceUsed"]);
    assert.deepEqual(
      chain.applied.map((a) => a.batchId),
      [0n],
      "the rebuilt batch keeps the id the reverted one had",
    );
    assert.deepEqual(chain.settledSeqs(), [1, 2, 4, 5, 6]);
    assert.deepEqual(m.journal, [{ orders: [{ hash: h(poisoned), error: "SettlementOrderNonceUsed" }], trades: [3] }]);
    assert.equal(b.health().rejectedOrders, 1);
    assert.equal(b.health().queuedTrades, 0);
    // a late push of the dropped trade (its command became durable after the decision) is ignored
    b.push(trade(3));
    assert.equal(b.health().queuedTrades, 0);
    await b.stop();
    // the store holds the rebuilt composition for batch 0 (the last record for an id wins), then its
    // confirmation (written without waiting for it: read after stop(), which closes the store)
    const recs = readJournalContents<BatchRecord>(join(dir, "b"));
    const { txHash, blockNumber, ...composition } = recs.at(-1)!;
    assert.deepEqual(composition, { batchId: "0", fromSeq: 1, toSeq: 6, tradeCount: 5 });
    assert.ok(txHash && blockNumber, "the confirmation carries the transaction and block");
  });
});

test("two poisoned orders in one batch (different errors): both found (the second by eth_call of the rest), one revert on chain", async () => {
  await withDir(async (dir) => {
    const trades = [1, 2, 3, 4, 5].map((s) => trade(s));
    const chain = poisonChain(
      new Map([
        [2 * 2 + 1, MALFORMED],
        [2 * 4 + 2, EXPIRED],
      ]),
    );
    const { m, b } = await settleAll(dir, trades, chain);
    assert.equal(b.health().state, "running");
    assert.deepEqual(
      chain.reverted,
      ["SettlementSignatureMalformed"],
      "the second poisoned order was found by simulation, not by another revert",
    );
    assert.deepEqual(chain.settledSeqs(), [1, 3, 5]);
    assert.deepEqual(
      m.journal.map((j) => j.orders.map((o) => o.error)),
      [["SettlementSignatureMalformed"], ["SettlementOrderExpired"]],
    );
    assert.deepEqual(
      m.journal.flatMap((j) => j.orders.map((o) => o.hash)),
      [h(5), h(10)],
    );
    assert.equal(b.health().rejectedOrders, 2);
    await b.stop();
  });
});

// trader 77 owns several orders of the batch (trades 1, 2, 3 unless named): the error names the trader,
// simulation finds the order(s)
const TRADER_CASES: {
  what: string;
  trades?: SettleableTrade[];
  owned: Record<number, number>;
  poison: [number, Poison][];
  rejected: { hash: Hex; error: string }[][];
  settled: number[];
}[] = [
  {
    what: "an error naming a trader with several orders in the batch: only the order that fails alone is rejected",
    // orders 3 (maker of trade 1) and 6 (taker of trade 2) belong to the same trader 77; only order 6 is bad
    owned: { 3: 77, 6: 77 },
    poison: [[6, NOT_AUTHORIZED]],
    rejected: [[{ hash: h(6), error: "SettlementSignerNotAuthorized" }]],
    settled: [1, 3],
  },
  {
    what: "a trader's several orders: the bad one as a maker is found alone too",
    owned: { 3: 77, 6: 77 },
    poison: [[3, NOT_AUTHORIZED]],
    rejected: [[{ hash: h(3), error: "SettlementSignerNotAuthorized" }]],
    settled: [2, 3],
  },
  {
    what: "a trader's orders that fail together alone (same trade) are both rejected; the trader's order that settles alone is kept",
    // trader 77 owns 3 (maker of trade 1), 5 and 6 (both sides of trade 2); order 6 is refused
    owned: { 3: 77, 5: 77, 6: 77 },
    poison: [[6, NOT_AUTHORIZED]],
    rejected: [
      [
        { hash: h(5), error: "SettlementSignerNotAuthorized" },
        { hash: h(6), error: "SettlementSignerNotAuthorized" },
      ],
    ],
    settled: [1, 3],
  },
  {
    what: "a suspect whose own trades fail because of another order is not rejected for it",
    // trader 77 owns 3 (maker of trade 1) and 6 (taker of trade 2); 6 is refused; 20 (taker of trade 1) expired
    trades: [trade(1, 3, 20), trade(2), trade(3)],
    owned: { 3: 77, 6: 77 },
    poison: [
      [6, NOT_AUTHORIZED],
      [20, EXPIRED],
    ],
    rejected: [
      [{ hash: h(6), error: "SettlementSignerNotAuthorized" }],
      [{ hash: h(20), error: "SettlementOrderExpired" }],
    ],
    settled: [3],
  },
];

for (const c of TRADER_CASES) {
  test(c.what, async () => {
    await withDir(async (dir) => {
      const chain = poisonChain(new Map(c.poison));
      const { m, b } = await settleAll(dir, c.trades ?? [1, 2, 3].map((s) => trade(s)), chain, {
        signedOrder: makeOrders(c.owned),
      });
      assert.deepEqual(
        m.journal.map((j) => j.orders),
        c.rejected,
      );
      assert.deepEqual(chain.settledSeqs(), c.settled);
      assert.ok(chain.simulations() >= 2, "each of the trader's orders was tried alone");
      await b.stop();
    });
  });
}

test("a poisoned order whose trades span two in-flight batches: every trade of it dropped, honest ones settle once, in order", async () => {
  await withDir(async (dir) => {
    // order 100 is the maker of trades 2 and 3: batch 0 = [1, 2], batch 1 = [3, 4] are in flight together
    const trades = [trade(1), trade(2, 100, 6), trade(3, 100, 8), trade(4), trade(5), trade(6)];
    const chain = poisonChain(new Map([[100, NONCE_USED]]), { delayMs: 5 });
    const { m, b } = await settleAll(dir, trades, chain, { maxTrades: 2, maxInFlight: 2 });
    assert.equal(b.health().state, "running");
    assert.deepEqual(m.journal, [{ orders: [{ hash: h(100), error: "SettlementOrderNonceUsed" }], trades: [2, 3] }]);
    assert.deepEqual(chain.settledSeqs(), [1, 4, 5, 6]);
    assert.deepEqual(
      chain.applied.map((a) => a.batchId),
      [0n, 1n, 2n].slice(0, chain.applied.length),
    );
    assert.equal(new Set(chain.settledSeqs()).size, chain.settledSeqs().length, "no trade settled twice");
    await b.stop();
  });
});

test("restart after the drop decision was journaled but before the rebuilt batch was sent: no re-send of the poisoned batch, no double settle", async () => {
  await withDir(async (dir) => {
    const trades = [1, 2, 3, 4].map((s) => trade(s));
    const poisoned = 2 * 2 + 2;
    const chain = poisonChain(new Map([[poisoned, NONCE_USED]]));
    // the process dies right after the decision is durable: nothing rebuilt, nothing sent
    let crashed = false;
    const { m, b: b1 } = await settleAll(dir, trades, chain, (fm) => ({
      onRejected: async (orders) => {
        await fm.onRejected(orders);
        crashed = true;
        throw new Error("crash after the journal write");
      },
      onHalt: () => undefined,
    }));
    await b1.stop();
    assert.ok(crashed);
    assert.equal(chain.applied.length, 0);
    const recordsBefore = readJournalContents<BatchRecord>(join(dir, "b"));
    assert.deepEqual(
      recordsBefore.at(-1),
      { batchId: "0", fromSeq: 1, toSeq: 4, tradeCount: 4 },
      "only the poisoned composition is on disk",
    );

    // restart: the journal replay no longer yields the dropped trade (the matcher filters it)
    const b2 = createBatcher(deps(chain, m, dir));
    assert.equal((await b2.start()).lastSettledSeq, -1);
    for (const t of trades) if (!m.droppedSeqs.has(t.seq)) b2.push(t);
    b2.push(trade(5));
    await b2.drain();
    assert.deepEqual(chain.reverted, ["SettlementOrderNonceUsed"], "the poisoned batch was never sent again");
    assert.deepEqual(chain.settledSeqs(), [1, 3, 4, 5]);
    assert.deepEqual(
      chain.applied.map((a) => a.batchId),
      chain.applied.map((_a, i) => BigInt(i)),
    );
    const last0 = readJournalContents<BatchRecord>(join(dir, "b"))
      .filter((r) => r.batchId === "0" && !r.txHash)
      .at(-1);
    assert.deepEqual(
      last0,
      { batchId: "0", fromSeq: 1, toSeq: 4, tradeCount: 3 },
      "batch 0's record says what it now holds",
    );
    await b2.stop();

    // and a third start after batch 0 landed: it resumes after seq 4, nothing is re-sent
    const b3 = createBatcher(deps(chain, m, dir));
    assert.equal((await b3.start()).lastSettledSeq, 5);
    for (const t of [...trades, trade(5)]) b3.push(t);
    await b3.drain();
    assert.deepEqual(chain.settledSeqs(), [1, 3, 4, 5]);
    await b3.stop();
  });
});

test("a restart whose resend batch lost every trade to the decision goes on with the next trades", async () => {
  await withDir(async (dir) => {
    const trades = [trade(1, 100, 4), trade(2, 100, 6)];
    const chain = poisonChain(new Map([[100, NONCE_USED]]));
    const { m, b: b1 } = await settleAll(dir, trades, chain, (fm) => ({
      onRejected: async (o) => (await fm.onRejected(o), Promise.reject(new Error("crash"))),
      onHalt: () => undefined,
    }));
    await b1.stop();
    const b2 = createBatcher(deps(chain, m, dir));
    await b2.start();
    b2.push(trade(3));
    await b2.drain();
    assert.deepEqual(chain.settledSeqs(), [3]);
    await b2.stop();
  });
});

for (const [what, err] of [
  [
    "the operator lacks OPERATOR_ROLE",
    new FatalChainError("settle reverted: AccessControlUnauthorizedAccount", "AccessControlUnauthorizedAccount", [
      addr(1),
      h(1),
    ]),
  ],
  ["the contract is paused", new FatalChainError("settle reverted: EnforcedPause", "EnforcedPause", [])],
  [
    "the batch id mismatches",
    new FatalChainError("settle reverted: SettlementBatchOutOfOrder", "SettlementBatchOutOfOrder", [1n, 2n]),
  ],
  [
    "the whole batch ran out of gas (no error data)",
    new FatalChainError("settle 0 reverted on chain but its replay succeeds (out of gas?)"),
  ],
  [
    "a malformed packed batch",
    new FatalChainError("settle reverted: SettlementPackedBatchMalformed", "SettlementPackedBatchMalformed", [12n]),
  ],
] as const) {
  test(`a fatal revert still halts (${what}): nothing rejected, nothing dropped`, async () => {
    await withDir(async (dir) => {
      const trades = [1, 2].map((s) => trade(s));
      const { m, b, halted } = await settleUntilHalt(dir, trades, poisonChain(new Map(), { fatal: err }));
      assert.equal(halted, err.message);
      assert.equal(m.journal.length, 0);
      assert.equal(b.health().queuedTrades, 2);
      assert.equal(b.health().rejectedOrders, 0);
      await b.stop();
    });
  });
}

test("a poisoned batch whose remainder then fails fatally halts (the remainder is checked before it is sent)", async () => {
  await withDir(async (dir) => {
    const trades = [1, 2, 3].map((s) => trade(s));
    const chain = poisonChain(new Map([[4, NONCE_USED]]));
    const realSimulate = chain.sender.simulate!;
    chain.sender.simulate = async (id, args) =>
      (await realSimulate(id, args)) ?? new FatalChainError("settle reverted: EnforcedPause", "EnforcedPause", []);
    const { m, b, halted } = await settleUntilHalt(dir, trades, chain);
    assert.match(halted, /EnforcedPause/);
    assert.equal(m.journal.length, 1, "the rejection itself was journaled before the halt");
    await b.stop();
  });
});

// ---- the edges of the quarantine: how many simulations, which of a trader's orders, the round limit,
// what the matcher answers, senders without simulate/reset, stop and retries around it

test("one suspect: no per-order simulation, one check of the remainder; the decision is logged", async () => {
  await withDir(async (dir) => {
    const trades = [1, 2, 3].map((s) => trade(s));
    const chain = poisonChain(new Map([[6, NONCE_USED]]));
    const warns: { o: object; m?: string }[] = [];
    const logger = { info() {}, error() {}, warn: (o: object, msg?: string) => void warns.push({ o, m: msg }) };
    const { b } = await settleAll(dir, trades, chain, { logger });
    assert.equal(chain.simulations(), 1);
    assert.deepEqual(chain.settledSeqs(), [1, 3]);
    assert.deepEqual(warns, [
      {
        o: {
          batchId: "0",
          revert: "SettlementOrderNonceUsed",
          orders: [{ hash: h(6), error: "SettlementOrderNonceUsed" }],
          droppedTrades: 1,
        },
        m: "settle reverted on orders the contract refuses: cancelled, their trades dropped, batch rebuilt",
      },
    ]);
    await b.stop();
  });
});

test("an order-attributable revert naming no order of the batch halts, nothing rejected", async () => {
  await withDir(async (dir) => {
    const trades = [1, 2].map((s) => trade(s));
    const err = new FatalChainError("settle reverted: SettlementOrderNonceUsed", "SettlementOrderNonceUsed", [
      addr(999),
      999n,
    ]);
    const { m, b, halted } = await settleUntilHalt(dir, trades, poisonChain(new Map(), { fatal: err }));
    assert.equal(halted, err.message);
    assert.deepEqual(m.journal, []);
    await b.stop();
  });
});

test("without onRejected an order-attributable revert halts on that revert", async () => {
  await withDir(async (dir) => {
    const trades = [1, 2].map((s) => trade(s));
    const chain = poisonChain(new Map([[4, NONCE_USED]]));
    const { b, halted } = await settleUntilHalt(dir, trades, chain, { onRejected: undefined, isDropped: undefined });
    assert.equal(halted, "settle reverted: SettlementOrderNonceUsed");
    assert.equal(chain.simulations(), 0);
    await b.stop();
  });
});

test("a sender without simulate and reset: the rebuilt batch is sent unchecked", async () => {
  await withDir(async (dir) => {
    const trades = [1, 2, 3].map((s) => trade(s));
    const chain = poisonChain(new Map([[4, NONCE_USED]]));
    delete chain.sender.simulate;
    delete chain.sender.reset;
    const { b } = await settleAll(dir, trades, chain);
    assert.equal(b.health().state, "running");
    assert.deepEqual(chain.settledSeqs(), [2, 3]);
    await b.stop();
  });
});

test("a retry, then a poisoned batch that loses every trade: no simulation, back to running", async () => {
  await withDir(async (dir) => {
    const trades = [trade(1, 100, 4)];
    const chain = poisonChain(new Map([[100, NONCE_USED]]));
    const realSend = chain.sender.send.bind(chain.sender);
    let sends = 0;
    chain.sender.send = (id, a) =>
      sends++ === 0 ? Promise.reject(new RetryableChainError("socket hang up")) : realSend(id, a);
    const { m, b } = await settleAll(dir, trades, chain);
    assert.equal(b.health().state, "running");
    assert.equal(chain.simulations(), 0);
    assert.deepEqual(
      m.journal.map((j) => j.trades),
      [[1]],
    );
    b.push(trade(2));
    await b.drain();
    assert.deepEqual(chain.settledSeqs(), [2]);
    await b.stop();
  });
});

test("the quarantine gives up after 64 rounds (each remainder check naming yet another order) and halts", async () => {
  await withDir(async (dir) => {
    const trades = Array.from({ length: 70 }, (_, i) => trade(i + 1));
    const chain = poisonChain(new Map());
    const firstMakerExpired = (args: SettleArgs) => {
      const o = args.orders[0];
      return new FatalChainError("settle reverted: SettlementOrderExpired", "SettlementOrderExpired", [
        h(Number(o.nonce)),
        1n,
      ]);
    };
    chain.sender.send = (_id, a) => Promise.reject(firstMakerExpired(a));
    let sims = 0;
    chain.sender.simulate = async (_id, a) => (sims++, firstMakerExpired(a));
    const { m, b } = await settleAll(dir, trades, chain, { maxTrades: 100, onHalt: () => undefined });
    assert.equal(b.health().state, "halted");
    assert.equal(m.journal.length, 64);
    assert.equal(sims, 64);
    await b.stop();
  });
});

test("stop() while the matcher journals a rejection ends the batcher", async () => {
  await withDir(async (dir) => {
    const trades = [1, 2].map((s) => trade(s));
    const chain = poisonChain(new Map([[4, NONCE_USED]]));
    const m = fakeMatcher(trades);
    let open!: () => void;
    let entered = false;
    const b = createBatcher(
      deps(chain, m, dir, {
        onRejected: async (o) => {
          entered = true;
          await new Promise<void>((r) => (open = r));
          return m.onRejected(o);
        },
      }),
    );
    await b.start();
    for (const t of trades) b.push(t);
    while (!entered) await new Promise((r) => setTimeout(r, 1));
    const stopping = b.stop();
    open();
    const r = await Promise.race([
      stopping.then(() => "stopped"),
      new Promise((r) => setTimeout(() => r("hung"), 2_000)),
    ]);
    assert.equal(r, "stopped");
    assert.equal(b.health().state, "stopped");
  });
});

test("the matcher's answer rules what is dropped: extra trades it dropped go, a trade of a rejected order not yet pushed never settles", async () => {
  await withDir(async (dir) => {
    // order 100 is the maker of trades 2 and 9 (9 not pushed yet); the matcher also drops trade 3
    const trades = [trade(1), trade(2, 100, 6), trade(3), trade(4)];
    const chain = poisonChain(new Map([[100, NONCE_USED]]));
    const { b } = await settleAll(dir, trades, chain, (m) => ({
      onRejected: async (o) => [...(await m.onRejected(o)), 3, 9],
    }));
    b.push(trade(9, 100, 30));
    b.push(trade(10));
    await b.drain();
    assert.deepEqual(chain.settledSeqs(), [1, 4, 10]);
    assert.deepEqual(chain.reverted, ["SettlementOrderNonceUsed"]);
    await b.stop();
  });
});

test("a matcher that names no trade: the batcher still drops every trade holding a rejected order (as maker or taker)", async () => {
  await withDir(async (dir) => {
    const trades = [trade(1), trade(2, 100, 6), trade(3, 8, 200), trade(4)];
    const chain = poisonChain(
      new Map([
        [100, NONCE_USED],
        [200, EXPIRED],
      ]),
    );
    const { m, b } = await settleAll(dir, trades, chain, (fm) => ({
      onRejected: async (o) => (await fm.onRejected(o), []),
    }));
    assert.equal(b.health().state, "running");
    assert.deepEqual(chain.settledSeqs(), [1, 4]);
    assert.deepEqual(
      m.journal.map((j) => j.orders.map((o) => o.hash)),
      [[h(100)], [h(200)]],
    );
    await b.stop();
  });
});

test("a counterparty order the matcher forgot after the batch was built does not stop the attribution", async () => {
  await withDir(async (dir) => {
    const trades = [1, 2, 3].map((s) => trade(s));
    const chain = poisonChain(new Map([[6, NONCE_USED]]));
    const known = makeOrders();
    let sent = false;
    const realSend = chain.sender.send.bind(chain.sender);
    chain.sender.send = (id, a) => ((sent = true), realSend(id, a));
    const { b } = await settleAll(dir, trades, chain, {
      signedOrder: (x) => (sent && x === h(5) ? undefined : known(x)),
    });
    assert.equal(b.health().state, "running");
    assert.deepEqual(chain.settledSeqs(), [1, 3]);
    await b.stop();
  });
});
