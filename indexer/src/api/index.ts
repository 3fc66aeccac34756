// The indexer's HTTP surface (Ponder mounts this Hono app beside its own /health, /ready, /status and
// /metrics): GraphQL at / and /graphql, Ponder's SQL-over-HTTP client at /sql/*, and a few plain REST
// reads for the other services. Amounts leave as decimal strings (they exceed 2^53), times as numbers.
import { db } from "ponder:api";
import schema from "ponder:schema";
import { type Context, Hono } from "hono";
import { and, asc, client, desc, eq, gte, graphql, lte } from "ponder";
import { z } from "zod";
import { CANDLE_INTERVAL_NAMES } from "../../lib/candles";
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

const tradesQuery = z.object({
  pair: z.string().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  /** only trades of this block or later, oldest first (a client following new trades) */
  fromBlock: z.coerce.bigint().min(0n).optional(),
});

const candlesQuery = z.object({
  pair: z.string().min(1).max(100),
  interval: z.enum(CANDLE_INTERVAL_NAMES as [string, ...string[]]),
  /** bucket start, Unix ms, inclusive */
  from: z.coerce.bigint().optional(),
  to: z.coerce.bigint().optional(),
  limit: z.coerce.number().int().min(1).max(5000).default(1000),
  /** asc (default): the oldest `limit` buckets of the bounds; desc: the newest first */
  order: z.enum(["asc", "desc"]).default("asc"),
});

function invalid(c: Context, error: z.ZodError) {
  // path and message only: an issue can carry bigints (a bound such as 0n) that JSON cannot hold
  const issues = error.issues.map((i) => ({ path: i.path.map(String), message: i.message }));
  return c.json(errorBody("INVALID_REQUEST", "invalid query parameters", { issues }), 400);
}

/** Newest first; with `fromBlock`, the trades of that block and later, oldest first. */
app.get("/trades", async (c) => {
  const q = tradesQuery.safeParse(c.req.query());
  if (!q.success) return invalid(c, q.error);
  const { pair, fromBlock, limit } = q.data;
  const where = and(pair ? eq(schema.trade.pair, pair) : undefined, fromBlock !== undefined ? gte(schema.trade.blockNumber, fromBlock) : undefined);
  const order =
    fromBlock !== undefined
      ? [asc(schema.trade.blockNumber), asc(schema.trade.logIndex)]
      : [desc(schema.trade.blockNumber), desc(schema.trade.logIndex)];
  const rows = await db
    .select()
    .from(schema.trade)
    .where(where)
    .orderBy(...order)
    .limit(limit);
  return c.json({ trades: rows.map(tradeJson) });
});

/** Oldest first (`order=desc`: newest first); `from`/`to` bound the bucket start (ms). */
app.get("/candles", async (c) => {
  const q = candlesQuery.safeParse(c.req.query());
  if (!q.success) return invalid(c, q.error);
  const { pair, interval, from, to, limit, order } = q.data;
  const rows = await db
    .select()
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
    .limit(limit);
  return c.json({ pair, interval, candles: rows.map(candleJson) });
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
