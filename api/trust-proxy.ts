// Which hop's X-Forwarded-For a service believes: Express's `trust proxy` setting, as one value type for
// the DEX API, the exchange API and the identity provider, and the same rule for requests Express does not
// route (WebSocket upgrades): the client address is proxy-addr's answer under that setting.
import type { IncomingMessage } from "node:http";
import proxyaddr from "proxy-addr";
import { normalizeIp } from "./auth/ip-allowlist";

/** false: the socket's address is the client's; a list: addresses, CIDRs or proxy-addr's names
 *  (loopback, linklocal, uniquelocal) of the proxies whose X-Forwarded-For is believed; true / a number:
 *  Express's meanings (every hop / that many hops) */
export type TrustProxy = boolean | number | string | readonly string[];

/** Express's compilation of a `trust proxy` value (express/lib/utils.js compileTrust), for raw requests. */
export function trustFunction(v: TrustProxy): (addr: string, i: number) => boolean {
  if (v === true) return () => true;
  if (v === false) return () => false;
  if (typeof v === "number") return (_addr, i) => i < v;
  return proxyaddr.compile(typeof v === "string" ? v.split(",").map((s) => s.trim()) : [...v]);
}

/** The client address of a raw request under `trust` (IPv4-mapped IPv6 written as IPv4). */
export function clientAddressOf(req: IncomingMessage, trust: (addr: string, i: number) => boolean): string {
  return normalizeIp(proxyaddr(req, trust));
}
