// Minimal JSON-over-HTTP plumbing shared by the signer node and the HSM stand-in: a router whose handlers
// just return or throw, one error mapper to {error:{code,message,details}}, and a client that turns an
// error body back into an MpcError.
import { metricsResponse } from "../runtime/metrics";
import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { z, ZodError } from "zod";
import { MpcError, isMpcError, mpcErrorFromBody } from "./errors";

export type JsonHandler = (body: unknown) => unknown | Promise<unknown>;
export type Routes = Record<string, JsonHandler>;
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const MAX_BODY_BYTES = 1 << 20;

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new MpcError("INVALID_REQUEST", "body too large", { maxBytes: MAX_BODY_BYTES }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      if (size === 0) return resolve({});
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        reject(new MpcError("INVALID_REQUEST", "body is not valid JSON"));
      }
    });
    req.on("error", reject);
  });
}

export function toMpcError(err: unknown): MpcError {
  if (isMpcError(err)) return err;
  if (err instanceof ZodError)
    return new MpcError("INVALID_REQUEST", "request failed validation", {
      issues: err.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  return new MpcError("INTERNAL_ERROR", "internal error", {}, { cause: err });
}

/** Routes are keyed "METHOD /path"; the body of a GET is {} (query strings are not used). */
export function createJsonServer(routes: Routes, logger: Logger): Server {
  return createServer(async (req, res) => {
    // the process's Prometheus metrics (runtime/metrics.ts), on every signer-cluster service
    if (metricsResponse(req, res)) return;
    const path = (req.url ?? "/").split("?")[0];
    const handler = routes[`${req.method} ${path}`];
    let status = 200;
    let payload: unknown;
    try {
      if (!handler) throw new MpcError("NOT_FOUND", `no route ${req.method} ${path}`);
      payload = await handler(await readBody(req));
    } catch (err) {
      const e = toMpcError(err);
      if (e.code === "INTERNAL_ERROR")
        logger.error({ err: String((e.cause as Error)?.stack ?? e.cause), path }, "request failed");
      status = e.status;
      payload = e.toBody();
    }
    const text = JSON.stringify(payload, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  });
}

export function listen(server: Server, port: number, host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/** A service's start (listen, then its "listening" line from `announce`) and stop (every connection closed). */
export function serverLifecycle(server: Server, at: { port: number; host?: string }, announce: (port: number) => void) {
  return {
    async start() {
      const port = await listen(server, at.port, at.host);
      announce(port);
      return port;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Runs a service as its own process: exits 1 when it cannot start, stops it on SIGTERM and SIGINT. */
export function runAsProgram(service: { start(): Promise<unknown>; stop(): Promise<void> }, logger: Logger): void {
  service.start().catch((err) => {
    logger.error({ err: String(err) }, "cannot start");
    process.exit(1);
  });
  const shutdown = () => service.stop().then(() => process.exit(0));
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

// node:http with a keep-alive agent rather than fetch: the coordinator makes 8 calls per signature, and
// undici's fetch costs several times the CPU of a plain http.request per call.
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One JSON request over the keep-alive agent; resolves with the status and parsed body of any answer.
 *  A connection failure, timeout or unparsable answer throws SIGNER_UNREACHABLE. */
export function requestJson(url: string, body: unknown, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const unreachable = (reason: string, cause?: unknown) =>
      reject(new MpcError("SIGNER_UNREACHABLE", `cannot reach ${url}`, { url, reason }, { cause }));
    const req = httpRequest(
      url,
      {
        method: payload === undefined ? "GET" : "POST",
        agent,
        headers:
          payload === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", (err) => unreachable(err.message, err));
        res.on("end", () => {
          clearTimeout(timer);
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
          } catch (err) {
            unreachable(`unreadable answer (status ${res.statusCode})`, err);
          }
        });
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    req.on("error", (err) => {
      clearTimeout(timer);
      unreachable(err.message, err);
    });
    req.end(payload);
  });
}

/** POSTs (or GETs when body is undefined) JSON; a non-2xx answer throws the node's own MpcError,
 *  a connection failure or timeout throws SIGNER_UNREACHABLE. */
export async function callJson<T>(url: string, body: unknown, timeoutMs: number): Promise<T> {
  const res = await requestJson(url, body, timeoutMs);
  if (res.status < 200 || res.status >= 300) throw mpcErrorFromBody(res.body, `${url} answered ${res.status}`);
  return res.body as T;
}

// Shared wire schemas
export const hexBytes = (len?: number) =>
  z
    .string()
    .regex(/^0x[0-9a-fA-F]*$/, "expected 0x-prefixed hex")
    .refine((s) => s.length % 2 === 0 && (len === undefined || s.length === 2 + 2 * len), {
      message: len === undefined ? "expected whole bytes" : `expected ${len} bytes`,
    });
export const uintString = z
  .union([z.string().regex(/^\d{1,78}$/), z.number().int().nonnegative(), z.bigint().nonnegative()])
  .transform((v) => BigInt(v));
export const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "expected an address") as unknown as z.ZodType<`0x${string}`>;
export const nodeIndex = z.number().int().min(1).max(255);
