// The white-labelled tenant portal: one page per hostname, branded server-side from the tenant's
// configuration (name, colours, logo text, tagline), whose browser module (portal-app/main.ts, bundled by
// portal-bundle.ts and served as /portal/app.js) connects a wallet, signs the transfer's transactions in
// the page and follows the transfer step by step. Routes (all bound to the Host's tenant; an unknown Host
// gets the 404 page or TENANT_NOT_FOUND):
//   GET  /                      the page
//   GET  /portal/app.js         the browser module (ES module, viem + mipd bundled)
//   GET  /portal/config.json    mode, confirmations per chain, and in the sandbox only the demo keys of the
//                               development wallet (public Hardhat keys; never in production)
//   POST /portal/rpc/:chainId   the tenant's chains' JSON-RPC, an allowlist of read and raw-transaction
//                               methods (never eth_sendTransaction, eth_sign or a node's admin methods)
import type { Express, NextFunction, Request, Response } from "express";
import type { Hex } from "viem";
import { z } from "zod";
import { bridgeConfirmationsFor } from "../../config/bridge";
import { BridgeApiError } from "./errors";
import { portalBundle } from "./portal-bundle";
import { hostnameOf, type TenantConfig, type TenantStore } from "./tenants";
import { WALLET_RPC_METHODS } from "../../sdk/rpc-methods";

export interface PortalOptions {
  /** sandbox: the development wallet holding `devWalletKeys` is offered; production: never */
  mode: "sandbox" | "production";
  devWalletKeys: readonly Hex[];
  /** BRIDGE_CONFIRMATIONS_<chainId> (config.bridge.confirmations); defaults as config/bridge.ts */
  confirmations?: Readonly<Record<number, number>>;
}

/** JSON-RPC methods the page may call through /portal/rpc/:chainId. */
export const PORTAL_RPC_METHODS: ReadonlySet<string> = new Set([
  ...WALLET_RPC_METHODS,
  // viem fills a transaction with it first (no signature, no send); refusing it made every send log a 403
  "eth_fillTransaction",
]);
export const PORTAL_RPC_MAX_BATCH = 20;

const rpcCall = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.number(), z.string(), z.null()]).optional(),
    method: z.string().max(64),
    params: z.array(z.unknown()).max(8).optional(),
  })
  .strict();

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** WCAG relative luminance of "#rrggbb". */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
/** A text colour readable (WCAG AA, 4.5:1) on `background`: `preferred` (the tenant's colour) when it is, else
 *  the darker or the lighter of near-black and white, whichever contrasts more. */
export function readableOn(background: string, preferred: string): string {
  if (contrast(background, preferred) >= 4.5) return preferred;
  return contrast(background, "#111111") >= contrast(background, "#ffffff") ? "#111111" : "#ffffff";
}

type Handler = (req: Request, res: Response) => Promise<void>;
const wrap = (h: Handler) => (req: Request, res: Response, next: NextFunction) => h(req, res).catch(next);

/** Adds the portal's routes to the bridge app (before its 404 and error handlers). */
export function mountPortal(
  app: Express,
  tenants: TenantStore,
  options: PortalOptions = { mode: "production", devWalletKeys: [] },
): void {
  const hostTenant = (req: Request) => tenants.require(hostnameOf(req.headers.host));
  app.get(
    "/",
    wrap(async (req, res) => {
      const hostname = hostnameOf(req.headers.host) ?? "";
      const tenant = await tenants.byHostname(hostname);
      res.set(SECURITY_HEADERS).set("cache-control", "no-cache").type("html");
      if (!tenant) return void res.status(404).send(renderUnknownTenant(hostname));
      res.send(renderPortal(tenant, hostname));
    }),
  );
  app.get(
    "/portal/app.js",
    wrap(async (req, res) => {
      await hostTenant(req);
      const bundle = await portalBundle();
      res
        .set(SECURITY_HEADERS)
        .set({ etag: bundle.etag, "cache-control": "no-cache" })
        .type("text/javascript; charset=utf-8");
      if (req.headers["if-none-match"] === bundle.etag) return void res.status(304).end();
      res.send(bundle.code);
    }),
  );
  app.get(
    "/portal/config.json",
    wrap(async (req, res) => {
      const tenant = await hostTenant(req);
      res.set("cache-control", "no-store").json({
        mode: options.mode,
        devWalletKeys: options.mode === "sandbox" ? options.devWalletKeys : [],
        confirmations: Object.fromEntries(
          tenant.chains.map((c) => [c.chainId, bridgeConfirmationsFor(options.confirmations, c.chainId)]),
        ),
      });
    }),
  );
  app.post(
    "/portal/rpc/:chainId",
    wrap(async (req, res) => {
      const text = await proxyRpc(await hostTenant(req), String(req.params.chainId), req.body);
      res.set("cache-control", "no-store").type("application/json").send(text);
    }),
  );
}

/** The tenant's chain `chainIdParam` (exactly its decimal id), with a JSON-RPC endpoint configured. */
function rpcChainOf(tenant: TenantConfig, chainIdParam: string) {
  const chainId = Number(chainIdParam);
  const chain = tenant.chains.find((c) => c.chainId === chainId && String(c.chainId) === chainIdParam);
  if (!chain)
    throw new BridgeApiError(
      "ROUTE_NOT_FOUND",
      `chain ${chainIdParam.slice(0, 20)} is not one of this bridge's chains`,
      {
        chains: tenant.chains.map((c) => c.chainId),
      },
    );
  if (!chain.rpcUrl)
    throw new BridgeApiError("SERVICE_UNAVAILABLE", `no JSON-RPC endpoint is configured for chain ${chainId}`, {
      chainId,
    });
  return { chainId, rpcUrl: chain.rpcUrl };
}

/** A batch of 1 to PORTAL_RPC_MAX_BATCH JSON-RPC 2.0 calls, each of an allowed method; refused otherwise. */
function checkRpcCalls(body: unknown): void {
  const calls = Array.isArray(body) ? body : [body];
  if (calls.length === 0 || calls.length > PORTAL_RPC_MAX_BATCH)
    throw new BridgeApiError("INVALID_REQUEST", `a batch holds 1 to ${PORTAL_RPC_MAX_BATCH} calls`, {
      limit: PORTAL_RPC_MAX_BATCH,
    });
  for (const c of calls) {
    const parsed = rpcCall.safeParse(c);
    if (!parsed.success)
      throw new BridgeApiError("INVALID_REQUEST", "not a JSON-RPC 2.0 call", {
        issues: parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join("."), message: i.message })),
      });
    if (!PORTAL_RPC_METHODS.has(parsed.data.method))
      throw new BridgeApiError("FORBIDDEN", "this JSON-RPC method is not available through the portal", {
        reason: "rpc_method_not_allowed",
        method: parsed.data.method,
      });
  }
}

/** Forwards the page's allowed JSON-RPC calls to the tenant's chain node; its answer's text, as it is. */
async function proxyRpc(tenant: TenantConfig, chainIdParam: string, body: unknown): Promise<string> {
  const { chainId, rpcUrl } = rpcChainOf(tenant, chainIdParam);
  checkRpcCalls(body);
  let upstream: globalThis.Response;
  try {
    upstream = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new BridgeApiError(
      "SERVICE_UNAVAILABLE",
      `chain ${chainId} cannot be reached: try again shortly`,
      { chainId },
      { cause: err },
    );
  }
  const text = await upstream.text();
  if (!upstream.ok)
    throw new BridgeApiError("SERVICE_UNAVAILABLE", `chain ${chainId} answered ${upstream.status}`, {
      chainId,
      status: upstream.status,
    });
  return text;
}

export function renderPortal(t: TenantConfig, hostname: string): string {
  const b = t.branding;
  const homeChain = t.chains.find((c) => c.role === "home");
  const tokens = homeChain?.tokens ?? [];
  const homeName = homeChain?.name ?? "";
  const remoteName = t.chains.find((c) => c.role === "remote")?.name ?? "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(t.name)} · Bridge</title>
<style>
  :root { --primary: ${b.primaryColor}; --accent: ${b.accentColor}; --bg: ${b.backgroundColor}; --on-accent: ${readableOn(b.accentColor, b.primaryColor)}; --on-primary: ${readableOn(b.primaryColor, "#ffffff")}; --primary-text: ${readableOn("#ffffff", b.primaryColor)}; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.45 system-ui, sans-serif; background: var(--bg); color: #1d2330; }
  header { background: var(--primary); color: var(--on-primary); padding: 16px 24px; display: flex; flex-wrap: wrap; align-items: center; gap: 12px 16px; }
  .logo { background: var(--accent); color: var(--on-accent); font-weight: 800; border-radius: 10px; padding: 8px 12px; letter-spacing: .04em; }
  header h1 { font-size: 22px; margin: 0; } header p { margin: 0; }
  main { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 420px), 1fr)); gap: 18px; padding: 20px 24px; max-width: 1100px; }
  section { background: #fff; border-radius: 12px; padding: 16px; box-shadow: 0 1px 3px #0002; border-top: 4px solid var(--accent); min-width: 0; }
  h2 { margin: 0 0 10px; font-size: 17px; color: var(--primary-text); }
  label { display: block; margin: 8px 0 3px; font-size: 13px; color: #4a5060; }
  input, select { width: 100%; padding: 8px 9px; border: 1px solid #8a90a0; border-radius: 7px; font: inherit; background: #fff; color: #1d2330; }
  button { margin-top: 12px; background: var(--primary); color: var(--on-primary); border: 0; border-radius: 8px; padding: 9px 16px; font: inherit; cursor: pointer; }
  button:disabled { opacity: .55; cursor: not-allowed; }
  button.link { margin: 0; padding: 0; background: none; color: var(--primary-text); text-decoration: underline; }
  :focus-visible { outline: 3px solid var(--primary); outline-offset: 2px; }
  table { width: 100%; border-collapse: collapse; font-size: 13px; } th, td { padding: 5px 6px; border-bottom: 1px solid #eee; text-align: left; overflow-wrap: anywhere; } th { overflow-wrap: normal; }
  code { font-size: 12px; word-break: break-all; }
  .badge { display: inline-block; background: var(--accent); color: var(--on-accent); border-radius: 999px; padding: 2px 10px; font-weight: 700; }
  .hint { font-size: 13px; color: #4a5060; margin: 4px 0 0; }
  .error { color: #a4161a; background: #fdecea; border-radius: 6px; padding: 6px 8px; margin: 10px 0 0; }
  .wide { grid-column: 1 / -1; }
  ol#timeline { list-style: none; padding: 0; margin: 10px 0 0; }
  ol#timeline li { display: flex; gap: 10px; align-items: flex-start; padding: 6px 0; color: #5a6070; }
  ol#timeline .dot { flex: none; width: 24px; height: 24px; border-radius: 50%; border: 2px solid #9aa0b0; display: grid; place-items: center; font-size: 13px; font-weight: 700; }
  ol#timeline li[data-state=done] { color: #1d2330; } ol#timeline li[data-state=done] .dot { background: var(--primary); border-color: var(--primary); color: var(--on-primary); }
  ol#timeline li[data-state=active] { color: #1d2330; } ol#timeline li[data-state=active] .dot { border-color: var(--primary); color: var(--primary); }
  ol#timeline li[data-state=failed] .dot { border-color: #a4161a; color: #a4161a; }
  .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  @media (max-width: 520px) { header { padding: 12px 14px; } main { padding: 12px; gap: 12px; } }
</style></head>
<body data-tenant="${esc(t.tenantId)}" data-hostname="${esc(hostname)}">
<header><div class="logo" id="logo" aria-hidden="true">${esc(b.logoText)}</div><div><h1 id="tenant-name">${esc(t.name)}</h1><p>${esc(b.tagline)}</p></div>
<div style="margin-left:auto"><span class="badge" id="mode">signing: ${esc(t.mpcMode)}</span></div></header>
<main>
  <section aria-labelledby="h-wallet"><h2 id="h-wallet">Wallet</h2>
    <label for="wallet-choice">Choose a wallet</label><select id="wallet-choice"><option value="">Looking for wallets…</option></select>
    <button type="button" id="connect">Connect</button>
    <p id="wallet-status" class="hint" role="status">Loading…</p>
    <table id="balances"></table>
  </section>
  <section aria-labelledby="h-transfer"><h2 id="h-transfer">New transfer</h2>
    <form id="transfer-form" novalidate>
      <label for="direction">Direction</label><select id="direction" name="direction"><option value="deposit">Deposit: ${esc(homeName)} → ${esc(remoteName)}</option><option value="withdrawal">Withdrawal: ${esc(remoteName)} → ${esc(homeName)} (after a challenge window)</option></select>
      <label for="token">Token</label><select id="token" name="token">${tokens.map((x) => `<option value="${esc(x.symbol)}">${esc(x.symbol)}</option>`).join("")}</select>
      <label for="amount">Amount</label><input id="amount" name="amount" inputmode="decimal" autocomplete="off" placeholder="0.0" aria-describedby="available form-error">
      <p id="available" class="hint"></p>
      <label for="recipient">Recipient on the other chain</label><input id="recipient" name="recipient" autocomplete="off" spellcheck="false" placeholder="0x… (your own address when empty)" aria-describedby="form-error">
      <button type="submit" id="submit" disabled>Sign and send</button>
      <p id="form-error" class="error" role="alert" hidden></p>
    </form>
  </section>
  <section id="progress" class="wide" aria-labelledby="h-progress"><h2 id="h-progress">Progress</h2>
    <p id="followed" class="hint">Start a transfer, or pick one from your history, to follow it here.</p>
    <p id="progress-note" class="hint" role="status"></p>
    <ol id="timeline" aria-live="polite"></ol>
    <button type="button" id="finish" hidden>Link my transaction</button> <button type="button" id="release" hidden>Release now</button>
  </section>
  <section class="wide" aria-labelledby="h-history"><h2 id="h-history">Your transfers</h2><p id="history-note" class="hint" role="status"></p><button type="button" id="history-sign" hidden>Show my transfers</button><table id="history"></table></section>
  <section class="wide" aria-labelledby="h-chains"><h2 id="h-chains">Chains</h2><table id="chains"><tr><td>loading…</td></tr></table></section>
</main>
<script type="module" src="/portal/app.js"></script>
</body></html>`;
}

export function renderUnknownTenant(hostname: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Unknown bridge</title></head><body style="font-family:system-ui;padding:40px">
<main><h1>No bridge here</h1><p>No bridge tenant is configured for <code>${esc(hostname)}</code>.</p></main></body></html>`;
}
