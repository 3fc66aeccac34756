// Exchange orders over markets partitioned across matcher processes (DEX_PARTITIONS), on a DexService that
// answers as the routed one does when a partition is down or a connection drops mid-call: SERVICE_UNAVAILABLE
// with details.sent (pipeline/partition/link.ts). The exchange's own rows are real (PGlite); the orders are
// really placed, signed by the account's key (the in-memory DexService verifies them).
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createDb, type Db } from "../../../db";
import { createMemoryDexService, SETTLEMENT_DOMAIN, USD } from "../../testing/memory-dex-service";
import { DexServiceError, type DexService } from "../../../pipeline/service";
import { signOrder } from "../../../sdk/eip712";
import type { AccountRecord } from "../accounts";
import { createOrders, type OrdersCustody } from "./service";

const trader = privateKeyToAccount(generatePrivateKey());
/** the account's cash on chain: exactly the WBTC buy's hold ($300) and the largest WETH buy below ($1,000) */
const CASH = 1_300_000_000n;

const account: AccountRecord = {
  id: randomUUID(),
  issuer: "https://id.test",
  orgId: "org",
  userId: "user",
  phone: "+14155550100",
  email: null,
  kycStatus: "approved",
  kybStatus: "not_started",
  accreditationStatus: "none",
  accreditationType: "none",
  custodyReady: true,
  createdAt: new Date(),
};

const custody: OrdersCustody = {
  addressOf: async () => trader.address,
  balances: async () => ({
    address: trader.address,
    tokens: [{ symbol: "USD", token: USD, units: CASH }],
    availableCashUnits: CASH,
  }),
  signOrder: async (_id, order) => signOrder(trader, SETTLEMENT_DOMAIN, order),
};

/** The in-memory DexService as the router answers: markets of a down partition, the all-markets read while any
 *  is down, and a placement whose answer is lost (placed or not). */
function partitioned() {
  const svc = createMemoryDexService();
  svc.credit(trader.address, USD, 10n ** 15n);
  const down = new Set<string>();
  let lose: "placed" | "not placed" | null = null;
  let lookupsFail = false;
  const unavailable = (sent: boolean) =>
    new DexServiceError("SERVICE_UNAVAILABLE", "the matcher partition is unavailable", { partition: "test", sent });
  const dex: DexService = {
    ...svc,
    async listOrders(q) {
      if (q.symbol !== undefined ? down.has(q.symbol) : down.size > 0) throw unavailable(false);
      return svc.listOrders(q);
    },
    async getOrderBook(symbol, depth) {
      if (down.has(symbol)) throw unavailable(false);
      return svc.getOrderBook(symbol, depth);
    },
    async getMarketStats(symbol) {
      if (down.has(symbol)) throw unavailable(false);
      return svc.getMarketStats(symbol);
    },
    async getOrder(id) {
      if (lookupsFail) throw unavailable(false);
      return svc.getOrder(id);
    },
    async placeOrder(req) {
      if (down.has(req.symbol)) throw unavailable(false);
      const mode = lose;
      lose = null;
      if (mode === "placed") {
        await svc.placeOrder(req);
        throw unavailable(true);
      }
      if (mode === "not placed") throw unavailable(true);
      return svc.placeOrder(req);
    },
  };
  return {
    dex,
    down,
    loseNext: (m: "placed" | "not placed") => (lose = m),
    failLookups: (v: boolean) => (lookupsFail = v),
  };
}

async function rowCount(db: Db): Promise<number> {
  return Number((await db.query<{ n: string }>("SELECT count(*)::text AS n FROM exchange_orders")).rows[0].n);
}

async function refusal(p: Promise<unknown>): Promise<{ code: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code: string };
  }
  assert.fail("expected a refusal");
}

test("a partition down: its market's orders are refused with nothing written; the other market's buys count its open orders at their whole hold, to the unit", async () => {
  const db = await createDb();
  try {
    const p = partitioned();
    const orders = createOrders({ db, dex: p.dex, custody });
    // a resting WBTC buy: 0.01 at 30,000 holds $300
    const rest = await orders.create(account, {
      assetId: "WBTC",
      side: "BUY",
      orderType: "limit",
      quantity: "0.01",
      limitPrice: "30000",
    });
    assert.equal(rest.status, "PENDING");
    p.down.add("WBTC-USD");

    const down = await refusal(
      orders.create(account, {
        assetId: "WBTC",
        side: "BUY",
        orderType: "limit",
        quantity: "0.01",
        limitPrice: "29000",
      }),
    );
    assert.ok(down instanceof DexServiceError && down.code === "SERVICE_UNAVAILABLE", String(down));
    assert.equal(await rowCount(db), 1, "the refused order left no row");

    // $1,300 less the $300 hold: 0.5001 WETH at 2,000 ($1,000.20) is one lot too many, 0.5 ($1,000) fits exactly
    const over = await refusal(
      orders.create(account, {
        assetId: "WETH",
        side: "BUY",
        orderType: "limit",
        quantity: "0.5001",
        limitPrice: "2000",
      }),
    );
    assert.equal(over.code, "INSUFFICIENT_BALANCE");
    const exact = await orders.create(account, {
      assetId: "WETH",
      side: "BUY",
      orderType: "limit",
      quantity: "0.5",
      limitPrice: "2000",
    });
    assert.equal(exact.status, "PENDING");
    assert.equal(await rowCount(db), 2);
    // what the account's open buys hold, with WBTC's partition down: both whole holds
    assert.equal(await orders.openBuyHolds(account.id), 1_300_000_000n);
    // a read across markets would be partial: refused
    const list = await refusal(orders.list(account, { status: "ALL", limit: 10 }));
    assert.equal(list.code, "SERVICE_UNAVAILABLE");
    // back up: the live holds again
    p.down.delete("WBTC-USD");
    assert.equal(await orders.openBuyHolds(account.id), 1_300_000_000n);
    assert.equal((await orders.list(account, { status: "ALL", limit: 10 })).length, 2);
  } finally {
    await db.close();
  }
});

test("a placement whose answer was lost: found on its partition, it stands; on none, its row goes; unknown, the row stays and is cancellable only once it cannot be under way", async () => {
  const db = await createDb();
  try {
    const p = partitioned();
    let clock = Date.now();
    const orders = createOrders({ db, dex: p.dex, custody, now: () => clock, placementLookupMs: 300 });
    const buy = { assetId: "WETH", side: "BUY", orderType: "limit", quantity: "0.01", limitPrice: "1000" } as const;

    p.loseNext("placed");
    const placed = await orders.create(account, buy);
    assert.equal(placed.status, "PENDING");
    assert.equal((await orders.get(account, placed.orderId as string)).status, "PENDING");
    assert.equal(await rowCount(db), 1);

    p.loseNext("not placed");
    const gone = await refusal(orders.create(account, buy));
    assert.equal(gone.code, "SERVICE_UNAVAILABLE");
    assert.equal(await rowCount(db), 1, "not on any partition: no row");

    p.loseNext("not placed");
    p.failLookups(true);
    const unknown = await refusal(orders.create(account, buy));
    assert.equal(unknown.code, "SERVICE_UNAVAILABLE");
    p.failLookups(false);
    assert.equal(await rowCount(db), 2, "unknown: the row stays");
    const kept = (
      await db.query<{ id: string }>("SELECT id FROM exchange_orders WHERE id <> $1", [String(placed.orderId)])
    ).rows[0].id;
    // 120 s after it: its placement could still be under way
    clock += 120_000;
    const early = await refusal(orders.cancel(account, kept));
    assert.equal(early.code, "ORDER_NOT_OPEN");
    clock += 1;
    const cancelled = await orders.cancel(account, kept);
    assert.equal(cancelled.status, "CANCELLED");
    assert.equal((await orders.get(account, kept)).status, "CANCELLED");
  } finally {
    await db.close();
  }
});
