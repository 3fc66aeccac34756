// IP allowlists: single addresses or CIDR blocks, IPv4 or IPv6, matched with node:net's BlockList.
import { BlockList, isIP } from "node:net";

/** Parses "1.2.3.4", "10.0.0.0/8", "2001:db8::/32"; null when malformed. */
export function parseAllowEntry(entry: string): { address: string; prefix: number; family: "ipv4" | "ipv6" } | null {
  const [address, prefixText, extra] = entry.trim().split("/");
  if (extra !== undefined) return null;
  const v = isIP(address);
  if (v === 0) return null;
  const family = v === 4 ? "ipv4" : "ipv6";
  const max = v === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) return null;
  return { address, prefix, family };
}

/** "::ffff:1.2.3.4" (an IPv4 client on a dual-stack socket) -> "1.2.3.4". */
export function normalizeIp(ip: string | undefined): string {
  if (!ip) return "";
  return ip.startsWith("::ffff:") && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

/** True when the list is empty (no restriction) or the address is in it. */
export function ipAllowed(allowlist: readonly string[], ip: string | undefined): boolean {
  if (allowlist.length === 0) return true;
  const addr = normalizeIp(ip);
  const v = isIP(addr);
  if (v === 0) return false;
  const list = new BlockList();
  for (const entry of allowlist) {
    const p = parseAllowEntry(entry);
    if (p) list.addSubnet(p.address, p.prefix, p.family);
  }
  return list.check(addr, v === 4 ? "ipv4" : "ipv6");
}
