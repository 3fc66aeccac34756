// The exchange API's real time (spec 4.D, 6.1, 6.4): the hub, SSE at /api/realtime and the legacy
// WebSocket at /ws, as one extension of the exchange API's server (startExchangeApi's `extensions`).
// `publishToUser` is the hook for order-status and settlement-confirmation events to their owner.
import type { IncomingMessage, Server } from "node:http";
import type { Router } from "express";
import type { DexService } from "../../../pipeline/service";
import type { CatalogueAsset } from "../assets/catalogue";
import type { IdentityVerifier } from "../identity-tokens";
import { createRealtimeHub, type RealtimeEvent, type RealtimeHubOptions, type RealtimeUser } from "./hub";
import { createSseRouter, DEFAULT_REALTIME_LIMITS, type RealtimeLimits } from "./sse";
import { createLegacyWs } from "./ws";

export { REALTIME_PATH } from "./sse";
export { LEGACY_WS_PATH } from "./ws";
export type { RealtimeEvent, RealtimeUser, QuoteData, BookData } from "./hub";

export interface ExchangeRealtimeOptions extends Omit<RealtimeHubOptions, "dex" | "catalogue"> {
  dex: DexService | undefined;
  catalogue?: readonly CatalogueAsset[];
  limits?: Partial<RealtimeLimits>;
  authTimeoutMs?: number;
}

export interface ExchangeRealtime {
  /** order-status (`order`) and settlement confirmation (`settlement`) events to every SSE and WebSocket
   *  connection of the user; `data` is sent as given (JSON) */
  publishToUser(user: RealtimeUser, event: "order" | "settlement", data: Record<string, unknown>): RealtimeEvent;
  /** the exchange API's extension: mount `router` at the root, `attach` the server, `close` on stop */
  extension(api: { identity: IdentityVerifier; clientAddress: (req: IncomingMessage) => string }): {
    router: Router;
    attach(server: Server): void;
    close(): Promise<void>;
  };
  close(): Promise<void>;
}

export function createExchangeRealtime(opts: ExchangeRealtimeOptions): ExchangeRealtime {
  const hub = createRealtimeHub(opts);
  const limits = { ...DEFAULT_REALTIME_LIMITS, ...opts.limits };
  const closers: (() => Promise<void>)[] = [];
  return {
    publishToUser: (user, event, data) => hub.publishToUser(user, event, data),
    extension({ identity, clientAddress }) {
      const router = createSseRouter({ hub, identity, limits, now: opts.now });
      const ws = createLegacyWs({
        hub,
        identity,
        limits,
        authTimeoutMs: opts.authTimeoutMs,
        clientAddress,
        now: opts.now,
      });
      closers.push(() => ws.close());
      return { router, attach: (server) => ws.attach(server), close: () => ws.close() };
    },
    async close() {
      hub.close();
      await Promise.all(closers.map((c) => c()));
    },
  };
}
