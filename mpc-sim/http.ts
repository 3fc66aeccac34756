// Minimal JSON-over-HTTP plumbing shared by the signer node and the HSM stand-in: a router whose handlers
// just return or throw, one error mapper to {error:{code,message,details}}, and a client that turns an
// error body back into an MpcError.
import { createServer, type IncomingMessage, type Server } from "node:http";
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
    const path = (req.url ?? "/").split("?")[0];
    const handler = routes[`${req.method} ${path}`];
    let status = 200;
    let payload: unknown;
    try {
      if (!handler) throw new MpcError("NOT_FOUND", `no route ${req.method} ${path}`);
      payload = await handler(await readBody(req));
    } catch (err) {
      const e = toMpcError(err);
      if (e.code === "INTERNAL_ERROR") logger.error({ err: String((e.cause as Error)?.stack ?? e.cause), path }, "request failed");
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

/** POSTs (or GETs when body is undefined) JSON; a non-2xx answer throws the node's own MpcError,
 *  a connection failure or timeout throws SIGNER_UNREACHABLE. */
export async function callJson<T>(url: string, body: unknown, timeoutMs: number): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: body === undefined ? "GET" : "POST",
      headers: body === undefined ? undefined : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new MpcError("SIGNER_UNREACHABLE", `cannot reach ${url}`, { url, reason: (err as Error).message }, { cause: err });
  }
  let parsed: unknown;
  try {
    parsed = await res.json();
  } catch (err) {
    throw new MpcError("SIGNER_UNREACHABLE", `unreadable answer from ${url}`, { url, status: res.status }, { cause: err });
  }
  if (!res.ok) throw mpcErrorFromBody(parsed, `${url} answered ${res.status}`);
  return parsed as T;
}

// Shared wire schemas
export const hexBytes = (len?: number) =>
  z
    .string()
    .regex(/^0x[0-9a-fA-F]*$/, "expected 0x-prefixed hex")
    .refine((s) => s.length % 2 === 0 && (len === undefined || s.length === 2 + 2 * len), {
      message: len === undefined ? "expected whole bytes" : `expected ${len} bytes`,
    });
export const uintString = z.union([z.string().regex(/^\d{1,78}$/), z.number().int().nonnegative(), z.bigint().nonnegative()]).transform((v) => BigInt(v));
export const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected an address") as unknown as z.ZodType<`0x${string}`>;
export const nodeIndex = z.number().int().min(1).max(255);
