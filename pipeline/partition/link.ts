// One API process's link to one matcher partition over NATS (wire.ts): calls to whichever process leads the
// partition now (request/reply on dex.p<n>.call), its facts polled every second (dex.p<n>.hello), and the
// signatures an API-key placement needs from the caller's agent key (asked on this process's sign subject).
// While no leader answers, calls fail with SERVICE_UNAVAILABLE (retryable), never with another answer.
import { createInbox, RequestError, type NatsConnection, type Subscription } from "@nats-io/nats-core";
import type { LocalAccount } from "viem";
import type { z } from "zod";
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
  /** a call unanswered this long fails with SERVICE_UNAVAILABLE (default 10 s) */
  callTimeoutMs?: number;
}

export function linkPartition(o: LinkOptions): PartitionLink {
  const timeout = o.callTimeoutMs ?? 10_000;
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
      const body = encodeWire({
        method,
        params,
        ...(ticket ? { sign: { subject: o.desk.subject, call: ticket.call } } : {}),
      });
      try {
        const m = await o.nc.request(callSubject(o.index), body, { timeout });
        return decodeAnswer(method, m.string());
      } catch (e) {
        if (e instanceof DexServiceError || !(e instanceof Error) || e.message.startsWith("partition:")) throw e;
        // no responders: no process leads the partition now, nothing happened; else the answer was lost
        throw noResponders(e) ? unavailable("no leader", false) : unavailable(`${method} unanswered`, true);
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
