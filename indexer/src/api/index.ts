// The indexer's HTTP surface (Ponder mounts this Hono app beside its own /health, /ready, /status and
// /metrics): GraphQL at / and /graphql, Ponder's SQL-over-HTTP client at /sql/*, and a few plain REST
// reads for the other services. Amounts leave as decimal strings (they exceed 2^53), times as numbers.
import { db } from "ponder:api";
import schema from "ponder:schema";
import { type Context, Hono } from "hono";
import { and, asc, client, desc, eq, gte, graphql, lte, sql } from "ponder";
import { z } from "zod";
import { TRADES_THROUGH_HEADER, candlesQuery, invalidQueryBody, tradesQuery } from "../../lib/queries";
import { candleJson, errorBody, tradeJson, transferJson } from "./json";

const app = new Hono();
// an unexpected failure answers with the spec's error body, never the error's text or stack
app.onError((_err, c) => c.json(errorBody("INTERNAL_ERROR", "internal error", {}), 500));

app.use("/sql/*", client({ db, schema }));
app.use("/", graphql({ db, schema }));
app.use("/graphql", graphql({ db, schema }));

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .transform((a) => a.toLowerCase() as `0x${string}`);

function invalid(c: Context, error: z.ZodError) {
  return c.json(invalidQueryBody(error), 400);
}

/** The highest block holding a trade, as a column of the same statement as the rows (one snapshot). */
const tradesThrough = sql<number>`(SELECT coalesce(max(${schema.trade.blockNumber}), -1) FROM ${schema.trade})`.mapWith(
  Number,
);

/**
 * Runs a select that carries `tradesThrough` and sets the TRADES_THROUGH_HEADER. With no row the
 * statement carries no value: the max is then read first and the rows again after it, so that "no row" is
 * true of a snapshot at least as late as the max (Ponder only adds rows; a reorg is Ponder's own revert).
 */
async function withThrough<T extends { through: number }>(c: Context, run: () => Promise<T[]>): Promise<T[]> {
  let rows = await run();
  let through = rows[0]?.through;
  if (through === undefined) {
    const [m] = await db.select({ through: tradesThrough }).from(schema.trade).limit(1);
    const before = m?.through ?? -1;
    rows = await run();
    through = rows[0]?.through ?? before;
  }
  c.header(TRADES_THROUGH_HEADER, String(through));
  return rows;
}

/** Newest first; with `fromBlock`, the trades of that block and later, oldest first. */
app.get("/trades", async (c) => {
  const q = tradesQuery.safeParse(c.req.query());
  if (!q.success) return invalid(c, q.error);
  const { pair, fromBlock, limit } = q.data;
  const where = and(
    pair ? eq(schema.trade.pair, pair) : undefined,
    fromBlock !== undefined ? gte(schema.trade.blockNumber, fromBlock) : undefined,
  );
  const order =
    fromBlock !== undefined
      ? [asc(schema.trade.blockNumber), asc(schema.trade.logIndex), asc(schema.trade.tradeIndex)]
      : [desc(schema.trade.blockNumber), desc(schema.trade.logIndex), desc(schema.trade.tradeIndex)];
  const rows = await withThrough(c, () =>
    db
      .select({ row: schema.trade, through: tradesThrough })
      .from(schema.trade)
      .where(where)
      .orderBy(...order)
      .limit(limit),
  );
  return c.json({ trades: rows.map((r) => tradeJson(r.row)) });
});

/** Oldest first (`order=desc`: newest first); `from`/`to` bound the bucket start (ms). */
app.get("/candles", async (c) => {
  const q = candlesQuery.safeParse(c.req.query());
  if (!q.success) return invalid(c, q.error);
  const { pair, interval, from, to, limit, order } = q.data;
  const rows = await withThrough(c, () =>
    db
      .select({ row: schema.candle, through: tradesThrough })
      .from(schema.candle)
      .where(
        and(
          eq(schema.candle.pair, pair),
          eq(schema.candle.interval, interval),
          from === undefined ? undefined : gte(schema.candle.bucketStartMs, from),
          to === undefined ? undefined : lte(schema.candle.bucketStartMs, to),
        ),
      )
      .orderBy(order === "desc" ? desc(schema.candle.bucketStartMs) : asc(schema.candle.bucketStartMs))
      .limit(limit),
  );
  return c.json({ pair, interval, candles: rows.map((r) => candleJson(r.row)) });
});

app.get("/balances/:account", async (c) => {
  const account = address.safeParse(c.req.param("account"));
  if (!account.success) return invalid(c, account.error);
  const rows = await db
    .select()
    .from(schema.balance)
    .where(eq(schema.balance.account, account.data))
    .orderBy(asc(schema.balance.token));
  return c.json({
    account: account.data,
    balances: rows.map((b) => ({
      token: b.token,
      amount: b.amount.toString(),
      pendingWithdrawal: b.pendingWithdrawal.toString(),
      updatedAtBlock: Number(b.updatedAtBlock),
    })),
  });
});

app.get("/transfers/:id", async (c) => {
  const id = c.req.param("id").toLowerCase();
  const [row] = await db.select().from(schema.bridgeTransfer).where(eq(schema.bridgeTransfer.id, id)).limit(1);
  if (!row) return c.json(errorBody("TRANSFER_NOT_FOUND", `no transfer ${id}`, {}), 404);
  return c.json(transferJson(row));
});

export default app;
