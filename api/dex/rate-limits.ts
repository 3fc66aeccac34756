// Spec 8 rate limits with express-rate-limit: X-RateLimit-Limit / -Remaining / -Reset (Unix seconds) on
// every response (legacy headers), 429 RATE_LIMIT_EXCEEDED with Retry-After through the one error mapper.
// Limiters run in order; the last one that ran sets the headers, so the most specific limit is reported.
import type { Request, RequestHandler, Response } from "express";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
import { ApiError } from "../errors";
import type { AuthContext } from "../auth/authenticate";
import type { DexRateLimits } from "./config";

export interface DexRateLimiters {
  ip: RequestHandler;
  public: RequestHandler;
  private: RequestHandler;
  orders: RequestHandler;
  /** wallet-signed orders: per trader address (res.locals.trader) */
  walletOrders: RequestHandler;
  signedMarketData: RequestHandler;
  signedAccount: RequestHandler;
  signedOrders: RequestHandler;
  signedCancels: RequestHandler;
}

/** The client IP, normalised (an IPv6 address by its prefix). */
export const clientIp = (req: Request) => ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? "unknown");

function authKey(res: Response): string {
  const auth = res.locals.auth as AuthContext | undefined;
  if (!auth) return "anonymous";
  return auth.key ? `key:${auth.key.id}` : `wallet:${auth.account.toLowerCase()}`;
}

/** One spec 8 limiter: X-RateLimit-* headers, 429 RATE_LIMIT_EXCEEDED through the one error mapper
 *  (the DEX's below; the exchange API's in api/exchange/app.ts). */
export const createLimiter = (
  name: string,
  windowMs: number,
  limit: number,
  key: (req: Request, res: Response) => string,
) =>
  rateLimit({
    windowMs,
    limit,
    legacyHeaders: true,
    standardHeaders: false,
    keyGenerator: (req, res) => `${name}:${key(req, res)}`,
    handler: (_req, res, next) => {
      next(
        new ApiError("RATE_LIMIT_EXCEEDED", `rate limit exceeded: ${limit} per ${windowMs / 1000} s`, {
          limit,
          window_ms: windowMs,
          retry_after: Number(res.getHeader("Retry-After") ?? 1),
        }),
      );
    },
    // The IP is normalised with ipKeyGenerator; express-rate-limit's source check cannot see that.
    validate: { keyGeneratorIpFallback: false },
  });

export function createRateLimiters(limits: DexRateLimits): DexRateLimiters {
  const make = createLimiter;
  const minute = 60_000;
  return {
    ip: make("ip", minute, limits.ipPerMinute, clientIp),
    public: make("public", minute, limits.publicPerMinute, clientIp),
    private: make("private", minute, limits.privatePerMinute, (_q, res) => authKey(res)),
    orders: make("orders", 1000, limits.ordersPerSecond, (_q, res) => authKey(res)),
    walletOrders: make("wallet-orders", 1000, limits.ordersPerSecond, (_q, res) =>
      String(res.locals.trader ?? "unknown").toLowerCase(),
    ),
    signedMarketData: make("signed-market", minute, limits.signedMarketDataPerMinute, (_q, res) => authKey(res)),
    signedAccount: make("signed-account", minute, limits.signedAccountPerMinute, (_q, res) => authKey(res)),
    signedOrders: make("signed-orders", minute, limits.signedOrdersPerMinute, (_q, res) => authKey(res)),
    signedCancels: make("signed-cancels", minute, limits.signedCancelsPerMinute, (_q, res) => authKey(res)),
  };
}
