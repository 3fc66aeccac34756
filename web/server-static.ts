// The built app's files: index.html for the app's routes, hashed assets cached for good, everything
// else revalidated. The build never changes under a running server: each file is read once and
// compressed once per encoding.
import fs from "node:fs";
import type http from "node:http";
import path from "node:path";
import { WEB_CALLBACK_PATH } from "../sdk/exchange-client";
import { chooseEncoding, compressSync, COMPRESS_MIN_BYTES, type Encoding } from "./compress";
import { SECURITY_HEADERS, sendError, TYPES } from "./server-http";

export class StaticFiles {
  private readonly files = new Map<string, Buffer>();

  constructor(private readonly dist: string) {}

  serve(req: http.IncomingMessage, res: http.ServerResponse, pathname: string): void {
    if (req.method !== "GET" && req.method !== "HEAD")
      return sendError(res, 405, "METHOD_NOT_ALLOWED", "only GET and HEAD are served here");
    if (pathname === "/" || pathname === "/index.html" || pathname === WEB_CALLBACK_PATH) {
      return this.send(req, res, path.join(this.dist, "index.html"), TYPES[".html"], "no-cache");
    }
    if (pathname === "/exchange" || pathname === "/exchange/") pathname = "/exchange.html";
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return sendError(res, 400, "INVALID_REQUEST", "malformed path");
    }
    const file = path.resolve(this.dist, `.${path.posix.normalize(decoded)}`);
    if (!file.startsWith(this.dist + path.sep) || decoded.includes("\0"))
      return sendError(res, 404, "NOT_FOUND", "no such file");
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) return sendError(res, 404, "NOT_FOUND", "no such file");
      const type = TYPES[path.extname(file)] ?? "application/octet-stream";
      // Vite names every asset by its content hash: cache it for good
      const cache = pathname.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-cache";
      this.send(req, res, file, type, cache);
    });
  }

  private send(req: http.IncomingMessage, res: http.ServerResponse, file: string, type: string, cache: string): void {
    let body = this.files.get(file);
    if (!body) this.files.set(file, (body = fs.readFileSync(file)));
    const enc: Encoding | null = body.length > COMPRESS_MIN_BYTES ? chooseEncoding(req, type) : null;
    const headers: http.OutgoingHttpHeaders = {
      "content-type": type,
      "cache-control": cache,
      vary: "Accept-Encoding",
      ...SECURITY_HEADERS,
    };
    if (enc) {
      const key = `${enc}:${file}`;
      let z = this.files.get(key);
      if (!z) this.files.set(key, (z = compressSync(body, enc)));
      body = z;
      headers["content-encoding"] = enc;
    }
    headers["content-length"] = body.length;
    res.writeHead(200, headers);
    res.end(req.method === "HEAD" ? undefined : body);
  }
}
