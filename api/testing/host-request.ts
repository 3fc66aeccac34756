// One HTTP request with a chosen Host header, for the tests of host-routed apps (the bridge's tenants):
// node:http, because fetch lets a caller choose neither the Host header nor a body without a Content-Type.
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";

export interface HostReply {
  status: number;
  headers: IncomingHttpHeaders;
  /** the parsed JSON body, or the text when it is not JSON (HTML pages) */
  body: any;
}

/** `url` is the full URL; `headers` are sent as given (Host first); a body gets its Content-Length. */
export function requestWithHost(
  method: string,
  url: string,
  host: string,
  opts: { body?: string; headers?: Record<string, string> } = {},
): Promise<HostReply> {
  const headers: Record<string, string> = { host, ...opts.headers };
  if (opts.body !== undefined) headers["content-length"] = String(Buffer.byteLength(opts.body));
  return plainRequest(url, { method, headers, body: opts.body });
}

/** One request as given (node:http adds only what it must: Host when not given, the body's framing), from
 *  `localAddress` when given; the body read as JSON when it is JSON. */
export function plainRequest(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<HostReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: o.method ?? "GET", headers: o.headers, localAddress: o.localAddress },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (text += c));
        res.on("end", () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode!, headers: res.headers, body });
        });
      },
    );
    req.on("error", reject);
    req.end(o.body);
  });
}
