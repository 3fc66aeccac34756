// Text and links the page shows: escaping, short hashes linked to the tenant's explorer, and each status in
// words (the API's status codes stay in data attributes).
import type { TenantChain } from "./types";

export const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
export const short = (h: string) => `${h.slice(0, 8)}…${h.slice(-6)}`;
export const at = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleTimeString() : "");

/** Each transfer status in words, as the badge and the history show it. */
export const STATUS_LABELS: Readonly<Record<string, string>> = {
  initiated: "Waiting for your transaction",
  deposited: "Deposit received",
  burned: "Burn received",
  signed: "Signed by the bridge",
  minted: "Complete",
  release_queued: "In the challenge window",
  released: "Complete",
  disputed: "Disputed: not released",
  failed: "Failed",
};
export const statusLabel = (status: string) => STATUS_LABELS[status] ?? "In progress";

/** A short transaction hash, linked to the chain's explorer when the tenant configures one. */
export function txRef(chain: TenantChain, hash: string): string {
  if (!chain.explorerUrl) return `<code title="${esc(hash)}">${esc(short(hash))}</code>`;
  return `<a href="${esc(chain.explorerUrl)}/tx/${esc(hash)}" target="_blank" rel="noopener noreferrer" title="${esc(hash)}">${esc(short(hash))}</a>`;
}

/** An address, linked to the chain's explorer when the tenant configures one. */
export function addressRef(chain: TenantChain, address: string): string {
  if (!chain.explorerUrl) return `<code>${esc(address)}</code>`;
  return `<a href="${esc(chain.explorerUrl)}/address/${esc(address)}" target="_blank" rel="noopener noreferrer"><code>${esc(address)}</code></a>`;
}
