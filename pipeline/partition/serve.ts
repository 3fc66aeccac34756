// A matcher partition's DexService served to API processes over NATS (wire.ts): calls on dex.p<n>.call and
// its facts on dex.p<n>.hello, answered only while this process leads the partition (a standby, or a leader
// woken from a pause past its lease, answers nothing: the leader's answer is the only one a caller gets), and
// its events on dex.market.<SYMBOL>.events. Who may publish or subscribe there is NATS's authorization.
import type { Msg, NatsConnection, Subscription } from "@nats-io/nats-core";
import { toAccount } from "viem/accounts";
import type { Address, Hex, LocalAccount } from "viem";
import type { z } from "zod";
import { metrics, refusalReason } from "../../runtime/metrics";
import { DexServiceError, type DexService, type PlaceOrderRequest } from "../service";
import {
  callSchema,
  callSubject,
  decodeWire,
  encodeWire,
  eventSubject,
  eventSymbol,
  helloSubject,
  METHODS,
  signAnswerSchema,
  type MethodName,
} from "./wire";

type Logger = { warn(o: object, m?: string): void; info(o: object, m?: string): void };

export interface PartitionServerOptions {
  nc: NatsConnection;
  service: DexService;
  /** this partition's index: its subjects, its API-key nonce range (callers refuse two partitions with one) */
  index: number;
  /** whether this process leads the partition now (default: always; the replicated log's lease otherwise) */
  isLeader?: () => boolean;
  /** the pipeline's `syncChain` (its chain follower reaches the head) */
  syncChain?: () => Promise<void>;
  logger?: Logger;
  /** how long an API-key placement waits for the caller's signature (default 15 s) */
  signTimeoutMs?: number;
}

export interface PartitionServer {
  readonly subject: string;
  close(): Promise<void>;
}

interface Ctx {
  o: PartitionServerOptions;
  svc: DexService;
  leads: () => boolean;
  /** the placements on their way (until the log holds them, or they are refused), by the intent's orderId */
  placing: Map<string, Promise<unknown>>;
}

function errorBody(e: unknown): { code: string; message: string; details: Record<string, unknown> } {
  if (e instanceof DexServiceError)
    return { code: e.code, message: e.message, details: (e.details ?? {}) as Record<string, unknown> };
  // anything else is the partition's fault: the API answers it as it would an in-process failure
  return { code: "INTERNAL", message: "the partition failed to answer", details: {} };
}

/** The caller's agent signs the order the service built, in the caller's process (sign.subject). */
function remoteAgent(ctx: Ctx, address: Address, sign: { subject: string; call: number }): LocalAccount {
  const only = async (): Promise<never> => {
    throw new Error("partition: a remote agent signs orders only");
  };
  return toAccount({
    address,
    signMessage: only,
    signTransaction: only,
    async signTypedData(typedData) {
      const reply = await ctx.o.nc
        .request(sign.subject, encodeWire({ call: sign.call, typedData }), {
          timeout: ctx.o.signTimeoutMs ?? 15_000,
        })
        .catch(() => {
          throw new DexServiceError("SERVICE_UNAVAILABLE", "the API process did not sign the order in time");
        });
      const a = signAnswerSchema.safeParse(decodeWire(reply.string()));
      if (!a.success) throw new DexServiceError("SERVICE_UNAVAILABLE", "the API process answered no signature");
      if ("refused" in a.data)
        throw new DexServiceError("AGENT_NOT_APPROVED", `the API process refused to sign: ${a.data.refused}`);
      return a.data.signature as Hex;
    },
  }) as LocalAccount;
}

/**
 * A placement, idempotent on the intent's orderId: an API process sends it again when its answer is late
 * (link.ts), and the retry joins the placement still on its way here instead of placing it a second time
 * (the in-memory book already holds it while its log append waits for the quorum); once that placement ended,
 * a retry (never marked newOrderId) finds the order on the service, as a new leader does after replaying the log.
 */
function placeOrder(ctx: Ctx, params: unknown, sign: z.infer<typeof callSchema>["sign"]): Promise<unknown> {
  const orderId = (params as { orderId: string }).orderId;
  const onItsWay = ctx.placing.get(orderId);
  if (onItsWay) return onItsWay;
  const placed = placeOnce(ctx, params, sign).finally(() => ctx.placing.delete(orderId));
  ctx.placing.set(orderId, placed);
  return placed;
}

async function placeOnce(ctx: Ctx, params: unknown, sign: z.infer<typeof callSchema>["sign"]): Promise<unknown> {
  const w = params as z.infer<(typeof METHODS)["placeOrder"]["params"]>;
  let req: PlaceOrderRequest;
  if (w.kind === "signed") req = w;
  else {
    if (!sign) throw new DexServiceError("INVALID_REQUEST", "an API-key placement names where to sign");
    const { agentAddress, ...rest } = w;
    req = { ...rest, agent: remoteAgent(ctx, agentAddress, sign) };
  }
  try {
    const placed = await ctx.svc.placeOrder(req);
    metrics.ordersAccepted.inc("partition");
    return placed;
  } catch (e) {
    metrics.ordersRefused.inc("partition", refusalReason(e));
    throw e;
  }
}

/** One call: its params checked against its method's schema, then the service's method. */
async function dispatch(ctx: Ctx, call: z.infer<typeof callSchema>): Promise<unknown> {
  const { method } = call;
  if (!Object.hasOwn(METHODS, method)) throw new DexServiceError("INVALID_REQUEST", `unknown method ${method}`);
  const parsed = METHODS[method as MethodName].params.safeParse(call.params);
  if (!parsed.success)
    throw new DexServiceError("INVALID_REQUEST", `bad params of ${method}`, {
      issues: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".")}: ${i.message}`),
    });
  const p = parsed.data as never as Record<string, never>;
  const svc = ctx.svc;
  switch (method as MethodName) {
    case "placeOrder":
      return placeOrder(ctx, parsed.data, call.sign);
    case "cancelOrder":
      return svc.cancelOrder(p as never);
    case "cancelOrdersOfApiKey":
      return svc.cancelOrdersOfApiKey(p.apiKeyId, p.account, p.reason);
    case "getOrder":
      return svc.getOrder(p.orderId);
    case "findOrderByClientOrderId":
      return svc.findOrderByClientOrderId(p.account, p.clientOrderId);
    case "listOrders":
      return svc.listOrders(p as never);
    case "getBalances":
      return svc.getBalances(p.account);
    case "getOrderBook":
      return svc.getOrderBook(p.symbol, (p as { depth?: number }).depth);
    case "getRecentTrades":
      return svc.getRecentTrades(p.symbol, p.limit);
    case "getMarketStats":
      return svc.getMarketStats(p.symbol);
    case "prepareAgentApproval":
      return svc.prepareAgentApproval(p.trader, p.agent, p.expiry);
    case "submitAgentApproval":
      return svc.submitAgentApproval(p.approval, p.signature).then(() => null);
    case "submitAgentRenouncement":
      return svc.submitAgentRenouncement(p.renouncement, p.signature);
    case "syncChain":
      return (ctx.o.syncChain?.() ?? Promise.resolve()).then(() => null);
  }
}

function onCall(ctx: Ctx, msg: Msg): void {
  // not the leader (a standby never subscribes; a leader woken past its lease stays silent): no answer at all
  if (!ctx.leads() || !msg.reply) return;
  let call: z.infer<typeof callSchema>;
  try {
    call = callSchema.parse(decodeWire(msg.string()));
  } catch {
    msg.respond(encodeWire({ error: { code: "INVALID_REQUEST", message: "not a call", details: {} } }));
    return;
  }
  dispatch(ctx, call).then(
    (result) => {
      // deposed while it ran: the log refused its write, and another process answers from now on
      if (ctx.leads()) msg.respond(encodeWire({ result: result ?? null }));
    },
    (e: unknown) => {
      if (!(e instanceof DexServiceError))
        ctx.o.logger?.warn({ err: String(e), method: call.method }, "partition: a call failed");
      if (ctx.leads()) msg.respond(encodeWire({ error: errorBody(e) }));
    },
  );
}

/** Subscribes to the partition's subjects and publishes its events; close() unsubscribes (the standby's, or a
 *  deposed process's, silence). */
export function servePartition(o: PartitionServerOptions): PartitionServer {
  const ctx: Ctx = { o, svc: o.service, leads: o.isLeader ?? (() => true), placing: new Map() };
  const subs: Subscription[] = [
    o.nc.subscribe(callSubject(o.index), { callback: (_e, msg) => onCall(ctx, msg) }),
    o.nc.subscribe(helloSubject(o.index), {
      callback: (_e, msg) => {
        if (!ctx.leads() || !msg.reply) return;
        const svc = ctx.svc;
        msg.respond(
          encodeWire({ index: o.index, domain: svc.settlementDomain, markets: svc.listMarkets(), fees: svc.getFees() }),
        );
      },
    }),
  ];
  const unsubscribe = o.service.subscribe((event) => {
    if (ctx.leads()) o.nc.publish(eventSubject(eventSymbol(event)), encodeWire(event));
  });
  o.logger?.info({ index: o.index, subject: callSubject(o.index) }, "partition serving on NATS");
  let closed = false;
  return {
    subject: callSubject(o.index),
    async close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      for (const s of subs) s.unsubscribe();
      await o.nc.flush().catch(() => undefined);
    },
  };
}
