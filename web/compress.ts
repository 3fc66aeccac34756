// Response compression for the web server: brotli when the browser accepts it, else gzip, for text bodies
// over COMPRESS_MIN_BYTES (files of the build, the forwarded API answers, JSON-RPC and candles). Files of
// the build are compressed once at the highest level and kept in memory (they are named by content hash);
// forwarded streams are compressed on the fly at a fast level.
import type http from "node:http";
import zlib from "node:zlib";
import type { Readable, Transform } from "node:stream";

/** Bodies of this size or less go out as they are (compressing them saves nothing worth the CPU). */
export const COMPRESS_MIN_BYTES = 1024;

export type Encoding = "br" | "gzip";

const COMPRESSIBLE = /^(text\/|application\/(json|javascript|xml)|image\/svg\+xml)/i;

/** The encoding to use for this request and content type, or null (not accepted, or not text). */
export function chooseEncoding(req: http.IncomingMessage, contentType: string | undefined): Encoding | null {
  if (!contentType || !COMPRESSIBLE.test(contentType)) return null;
  const accept = String(req.headers["accept-encoding"] ?? "");
  const accepted = (name: string) =>
    accept.split(",").some((part) => {
      const [token, ...params] = part.trim().split(";");
      if (token.trim().toLowerCase() !== name) return false;
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      return !q || Number(q.slice(2)) > 0;
    });
  if (accepted("br")) return "br";
  if (accepted("gzip")) return "gzip";
  return null;
}

/** A whole body, compressed (static files: highest level, result cached by the caller). */
export function compressSync(body: Buffer, enc: Encoding, fast = false): Buffer {
  if (enc === "br") {
    return zlib.brotliCompressSync(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: fast ? 5 : 11,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    });
  }
  return zlib.gzipSync(body, { level: fast ? 6 : 9 });
}

function stream(enc: Encoding): Transform {
  return enc === "br"
    ? zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } })
    : zlib.createGzip({ level: 6 });
}

function varyOn(headers: http.OutgoingHttpHeaders): void {
  const vary = headers.vary ? String(headers.vary) : "";
  if (!/accept-encoding/i.test(vary)) headers.vary = vary ? `${vary}, Accept-Encoding` : "Accept-Encoding";
}

/** Sends a whole body: compressed when it is text over the threshold and the browser accepts an encoding. */
export function sendBody(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  status: number,
  headers: http.OutgoingHttpHeaders,
  body: string | Buffer,
): void {
  const buf = typeof body === "string" ? Buffer.from(body) : body;
  const out: http.OutgoingHttpHeaders = { ...headers };
  const enc = buf.length > COMPRESS_MIN_BYTES ? chooseEncoding(req, String(out["content-type"] ?? "")) : null;
  if (COMPRESSIBLE.test(String(out["content-type"] ?? ""))) varyOn(out);
  const payload = enc ? compressSync(buf, enc, true) : buf;
  if (enc) out["content-encoding"] = enc;
  out["content-length"] = payload.length;
  res.writeHead(status, out);
  res.end(req.method === "HEAD" ? undefined : payload);
}

/** Pipes an upstream answer to the browser, compressing it when it is uncompressed text over the threshold. */
export function pipeResponse(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  upstream: http.IncomingMessage,
): void {
  const headers: http.OutgoingHttpHeaders = { ...upstream.headers };
  const length = headers["content-length"] === undefined ? undefined : Number(headers["content-length"]);
  const small = length !== undefined && length <= COMPRESS_MIN_BYTES;
  const enc =
    headers["content-encoding"] || small ? null : chooseEncoding(req, headers["content-type"] as string | undefined);
  if (!headers["content-encoding"] && COMPRESSIBLE.test(String(headers["content-type"] ?? ""))) varyOn(headers);
  if (!enc) {
    res.writeHead(upstream.statusCode ?? 502, headers);
    return void (upstream as Readable).pipe(res);
  }
  delete headers["content-length"];
  headers["content-encoding"] = enc;
  res.writeHead(upstream.statusCode ?? 502, headers);
  const z = stream(enc);
  z.on("error", () => res.destroy());
  upstream.pipe(z).pipe(res);
}
