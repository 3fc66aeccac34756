// One API process's link to one matcher partition over NATS (wire.ts): calls to whichever process leads the
// partition now (request/reply on dex.p<n>.call), its facts polled every second (dex.p<n>.hello), and the
// signatures an API-key placement needs from the caller's agent key (asked on this process's sign subject).
// While no leader answers, calls fail with SERVICE_UNAVAILABLE (retryable), never with another answer.
import {
  ClosedConnectionError,
  createInbox,
  RequestError,
  TimeoutError,
  type NatsConnection,
  type Subscription,
} from "@nats-io/nats-core";
import type { LocalAccount } from "viem";
import type { z } from "zod";
import { metrics } from "../../runtime/metrics";
import { DexServiceError, type DexFees, type DexService, type MarketSpec } from "../service";
import { signForPartition, type AwaitingSignature } from "./agent-sign";
import {
  answerSchema,
  callSubject,
  decodeWire,
  encodeWire,
  helloSchema,
  helloSubject,
  METHODS,
  signRequestSchema,
  type MethodName,
} from "./wire";

export type Result<M extends MethodName> = z.infer<(typeof METHODS)[M]["result"]>;

export interface PartitionHello {
  index: number;
  domain: DexService["settlementDomain"];
  markets: MarketSpec[];
  fees: DexFees;
}

export interface PartitionLink {
  readonly name: string;
  readonly index: number;
  /** a leader answered the last look */
  readonly up: boolean;
  /** the last answered facts (markets and fees as last told); null before the first */
  readonly hello: PartitionHello | null;
  /** resolves at the first answer; rejects after `timeoutMs` without one */
  ready(timeoutMs: number): Promise<PartitionHello>;
  call<M extends MethodName>(
    method: M,
    params: z.input<(typeof METHODS)[M]["params"]>,
    agent?: LocalAccount,
  ): Promise<Result<M>>;
  close(): void;
}

/** What reaches the API's client: no internal address. `sent`: the call reached a leader (its answer was lost:
 *  a placement may have happened) or not (nothing happened there). */
const unavailable = (why: string, sent: boolean) =>
  new DexServiceError("SERVICE_UNAVAILABLE", `the market's matcher partition is unavailable (${why})`, { sent });

const noResponders = (e: unknown) => e instanceof RequestError && e.isNoResponders();

/** The process's one sign subject: each API-key placement in flight, by its call id. */
export class SignDesk {
  readonly subject = `${createInbox()}.sign`;
  private next = 0;
  private readonly waiting = new Map<number, { p: AwaitingSignature; link: PartitionLink }>();
  private readonly sub: Subscription;

  constructor(nc: NatsConnection) {
    this.sub = nc.subscribe(this.subject, {
      callback: (_e, msg) => {
        const req = signRequestSchema.safeParse(
          (() => {
            try {
              return decodeWire(msg.string());
            } catch {
              return null;
            }
          })(),
        );
        if (!req.success) {
          msg.respond(encodeWire({ refused: "not a sign request" }));
          return;
        }
        const w = this.waiting.get(req.data.call);
        void signForPartition(w?.p, w?.link.hello ?? null, req.data.typedData).then((a) => msg.respond(encodeWire(a)));
      },
    });
  }

  open(p: AwaitingSignature, link: PartitionLink): { call: number; done(): void } {
    const call = this.next++;
    this.waiting.set(call, { p, link });
    return { call, done: () => this.waiting.delete(call) };
  }

  close(): void {
    this.sub.unsubscribe();
  }
}

function decodeAnswer<M extends MethodName>(method: M, text: string): Result<M> {
  const a = answerSchema.safeParse(decodeWire(text));
  if (!a.success) throw new Error(`partition: a bad answer to ${method}`);
  if ("error" in a.data) {
    const { code, message, details } = a.data.error;
    throw code === "INTERNAL" ? new Error(`partition: ${message}`) : new DexServiceError(code, message, details);
  }
  const r = METHODS[method].result.safeParse(a.data.result);
  if (!r.success) throw new Error(`partition: bad result of ${method}: ${r.error.issues[0]?.message}`);
  return r.data as Result<M>;
}

export interface LinkOptions {
  nc: NatsConnection;
  index: number;
  desk: SignDesk;
  /** a call of a method that is not RETRIED waits this long for its answer (default 10 s) */
  callTimeoutMs?: number;
  /** one attempt of a RETRIED method waits this long before it is sent again (default 3 s) */
  attemptMs?: number;
  /** a RETRIED method's call gets its answer within this long, else SERVICE_UNAVAILABLE (default 25 s) */
  callDeadlineMs?: number;
}

/**
 * The methods a call may send again when an attempt's answer does not come: the reads, and placeOrder, which
 * the partition makes idempotent on the intent's orderId (a retry joins the placement still on its way, or
 * finds the order once it is on the log, on this leader or on the next). Not the cancels or the chain
 * submissions: a second attempt of those would answer what the first one did as a refusal.
 */
const RETRIED: ReadonlySet<MethodName> = new Set<MethodName>([
  "placeOrder",
  "getOrder",
  "findOrderByClientOrderId",
  "listOrders",
  "getBalances",
  "getOrderBook",
  "getRecentTrades",
  "getMarketStats",
  "prepareAgentApproval",
  "syncChain",
]);
const RETRY_PAUSE_MS = 250;

/**
 * One call, sent again while its answer does not come (the leader's log append waits out a JetStream
 * stream leader's election, a NATS node's death lost the reply, the leader died with it in flight) for
 * a RETRIED method, until `callDeadlineMs`: the same message each time (the wire carries no newOrderId, so the
 * partition looks every placement's orderId up). "No responders" before any attempt was sent means no leader: nothing happened,
 * SERVICE_UNAVAILABLE at once; after one was sent, the call keeps trying until the deadline.
 */
async function callWithRetries(
  o: LinkOptions,
  method: MethodName,
  params: unknown,
  sign: { subject: string; call: number } | undefined,
): Promise<string> {
  const retried = RETRIED.has(method);
  const timeout = retried ? (o.attemptMs ?? 3_000) : (o.callTimeoutMs ?? 10_000);
  const end = Date.now() + (retried ? (o.callDeadlineMs ?? 25_000) : timeout);
  let sent = false;
  const body = encodeWire({ method, params, ...(sign ? { sign } : {}) });
  for (;;) {
    try {
      const wait = Math.max(100, Math.min(timeout, end - Date.now()));
      return (await o.nc.request(callSubject(o.index), body, { timeout: wait })).string();
    } catch (e) {
      if (!(e instanceof Error)) throw e;
      // no responders: no process leads the partition now, this attempt did nothing; else its answer was lost
      if (!sent && noResponders(e)) throw unavailable("no leader", false);
      sent = true;
      if (!retried || e instanceof ClosedConnectionError || Date.now() + RETRY_PAUSE_MS >= end)
        throw unavailable(`${method} unanswered`, true);
      metrics.partitionCallRetries.inc({ method });
      // a timeout waited already; anything else (no leader yet, a connection between servers) waits here
      if (!(e instanceof TimeoutError)) await new Promise((r) => setTimeout(r, RETRY_PAUSE_MS));
    }
  }
}

export function linkPartition(o: LinkOptions): PartitionLink {
  let hello: PartitionHello | null = null;
  let up = false;
  let closed = false;
  const greeted = new Set<(h: PartitionHello) => void>();
  const look = async () => {
    try {
      const m = await o.nc.request(helloSubject(o.index), "", { timeout: 1_000 });
      hello = helloSchema.parse(decodeWire(m.string())) as PartitionHello;
      up = true;
      for (const g of greeted) g(hello);
      greeted.clear();
    } catch {
      up = false;
    }
  };
  const poll = setInterval(() => void look(), 1_000);
  poll.unref();
  void look();

  const link: PartitionLink = {
    name: `p${o.index}`,
    index: o.index,
    get up() {
      return up && !closed;
    },
    get hello() {
      return hello;
    },
    ready(timeoutMs) {
      if (up && hello) return Promise.resolve(hello);
      return new Promise((resolve, reject) => {
        const done = (h: PartitionHello) => (clearTimeout(t), resolve(h));
        const t = setTimeout(() => {
          greeted.delete(done);
          reject(unavailable(`no answer within ${timeoutMs} ms`, false));
        }, timeoutMs);
        greeted.add(done);
      });
    },
    async call(method, params, agent) {
      if (closed) throw unavailable("closed", false);
      const { trader, symbol, side } = params as { trader?: string; symbol?: string; side?: string };
      const ticket = agent
        ? o.desk.open({ agent, trader: trader?.toLowerCase() ?? "", symbol: symbol ?? "", side: side ?? "" }, link)
        : null;
      // one sign ticket for every attempt: a placement still on its way may ask for its signature late
      const sign = ticket ? { subject: o.desk.subject, call: ticket.call } : undefined;
      try {
        return decodeAnswer(method, await callWithRetries(o, method, params, sign));
      } finally {
        ticket?.done();
      }
    },
    close() {
      closed = true;
      clearInterval(poll);
    },
  };
  return link;
}
