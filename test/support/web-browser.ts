// What the browser tests of the web apps share: Debian's chromium for playwright-core, axe-core's serious
// and critical violations, the widths every page is checked at, and a limit order signed by a demo trader's
// key and posted straight to the DEX API (to give a page a book and trades to show).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { createTestConfig, defaultComponents, startStack } from "../../scripts/stack";
import { parseUnits, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

export const CHROMIUM = "/usr/bin/chromium";
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Where a browser test's screenshots of `app` go: test-artifacts/<app>/ (gitignored), or
 *  $SCREENSHOTS_DIR/<app>/ when `npm run screenshots` (scripts/screenshots.mjs) renews docs/screenshots/. */
export function shotsDir(app: string): string {
  const dir = path.join(process.env.SCREENSHOTS_DIR ?? path.join(__dirname, "..", "..", "test-artifacts"), app);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

// the page's globals inside page.evaluate callbacks (the project compiles without the DOM lib)
declare const document: any;
declare const window: any;

/** axe-core over the whole page: no serious or critical violation. */
export async function axeCheck(page: Page, label: string): Promise<void> {
  if (!(await page.evaluate(() => Boolean(window.axe))))
    await page.evaluate(fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8"));
  const violations = (await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 3).map((n: any) => n.target.join(" ")),
    }));
  })) as { id: string; impact: string; nodes: string[] }[];
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(serious, [], `${label}: axe found ${JSON.stringify(serious)}`);
}

/** The last refusal postLimit met (for a failing assertion's message). */
export const refusals = { last: "" };

/** A limit order signed by `key` and posted straight to the DEX API; true when accepted. */
export async function postLimit(
  restOrigin: string,
  info: any,
  key: Hex,
  symbol: string,
  side: "buy" | "sell",
  price: string,
  size: string,
): Promise<boolean> {
  const m = info.markets.find((x: { symbol: string }) => x.symbol === symbol);
  const wallet = privateKeyToAccount(key);
  const so = m.signed_order;
  const order = {
    trader: wallet.address,
    baseToken: so.base_token,
    quoteToken: so.quote_token,
    side: side === "buy" ? 0 : 1,
    price: parseUnits(price, so.price_exponent),
    amount: parseUnits(size, so.amount_exponent),
    expiry: BigInt(Math.floor(Date.now() / 1000) + 3600),
    nonce: BigInt(Date.now()) * 1024n + BigInt(Math.floor(Math.random() * 1024)),
    flags: 0,
  };
  const signature = await wallet.signTypedData({
    domain: info.eip712.domain,
    types: info.eip712.types,
    primaryType: "Order",
    message: order,
  });
  const wire = {
    trader: order.trader,
    base_token: order.baseToken,
    quote_token: order.quoteToken,
    side: order.side,
    price: order.price.toString(),
    amount: order.amount.toString(),
    expiry: order.expiry.toString(),
    nonce: order.nonce.toString(),
    flags: 0,
  };
  const r = await fetch(`${restOrigin}/v1/orders`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ symbol, side, type: "limit", price, size, order: wire, signature }),
  });
  if (r.status !== 201) refusals.last = `${symbol} ${side}: ${r.status} ${await r.text()}`;
  return r.status === 201;
}

/** A stack with the pipeline, the DEX API and the web server in `dataDir`: the trading app's and the DEX
 *  API's origins. */
export async function startDexWebStack(dataDir: string) {
  const { config } = await createTestConfig(dataDir);
  const stack = await startStack({
    config,
    components: defaultComponents(["pipeline", "dex-api", "web"]),
    onComponentError: "fail",
  });
  const webUrl = stack.components.find((c) => c.name === "web")!.handle!.urls!["trading app"].replace(/\/$/, "");
  return { config, stack, webUrl, rest: config.urls.dexRest.replace(/\/v1$/, "") };
}
