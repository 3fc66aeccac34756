// What the browser tests of the web apps share: Debian's chromium for playwright-core, axe-core's serious
// and critical violations, the widths every page is checked at, and a limit order signed by a demo trader's
// key and posted straight to the DEX API (to give a page a book and trades to show).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import type { Hex } from "viem";
import { fromViem, signWalletOrder, type MarketsResponse } from "../../sdk";
import { componentHandle, type TestStack, withTestStack } from "./test-stack";
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

/** Debian's chromium, headless. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
}

/** Screenshots of the whole page (`dir`/`name`-desktop.png, -phone.png) and the accessibility check at
 *  desktop and phone widths (`onPhone` checks more at the phone's), back at `desktop` width afterwards. */
export async function shootAtWidths(
  page: Page,
  dir: string,
  name: string,
  o: { desktop?: { width: number; height: number }; onPhone?: () => Promise<void> } = {},
): Promise<void> {
  const desktop = o.desktop ?? DESKTOP;
  for (const [label, size] of [
    ["desktop", desktop],
    ["phone", PHONE],
  ] as const) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(dir, `${name}-${label}.png`), fullPage: true });
    if (label === "phone") await o.onPhone?.();
    await axeCheck(page, `${name} at ${label} width`);
  }
  await page.setViewportSize(desktop);
}

/** Places the order the page's form holds (#place-order) and waits until #order-result says ok or error. */
export async function submitOrderForm(page: Page, timeout: number): Promise<void> {
  await page.evaluate(() => {
    const r = document.getElementById("order-result")!;
    r.textContent = "";
    r.dataset.kind = "";
  });
  await page.click("#place-order");
  await page.waitForFunction(
    () => ["ok", "error"].includes(document.getElementById("order-result")!.dataset.kind ?? ""),
    null,
    { timeout },
  );
}

/** The last refusal postLimit met (for a failing assertion's message). */
export const refusals = { last: "" };

/** A limit order signed by `key` and posted straight to the DEX API; true when accepted. */
export async function postLimit(
  restOrigin: string,
  info: MarketsResponse,
  key: Hex,
  symbol: string,
  side: "buy" | "sell",
  price: string,
  size: string,
): Promise<boolean> {
  const body = await signWalletOrder(fromViem(privateKeyToAccount(key)), info, { symbol, side, price, size });
  const r = await fetch(`${restOrigin}/v1/orders`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (r.status !== 201) refusals.last = `${symbol} ${side}: ${r.status} ${await r.text()}`;
  return r.status === 201;
}

/** A stack with the pipeline, the DEX API and the web server, and a browser: `fn` gets the trading app's and
 *  the DEX API's origins; `onFailure` sees the browser when `fn` throws (to show what each page showed). */
export async function withDexWebBrowser(
  o: { prefix: string; onFailure?: (browser: Browser) => Promise<void> },
  fn: (s: TestStack & { webUrl: string; rest: string; browser: Browser }) => Promise<void>,
): Promise<void> {
  await withTestStack(o.prefix, ["pipeline", "dex-api", "web"], async (s) => {
    const web = componentHandle<{ urls: Record<string, string> }>(s.stack, "web");
    const browser = await launchChromium();
    try {
      await fn({
        ...s,
        webUrl: web.urls["trading app"].replace(/\/$/, ""),
        rest: s.config.urls.dexRest.replace(/\/v1$/, ""),
        browser,
      });
    } catch (err) {
      await o.onFailure?.(browser);
      throw err;
    } finally {
      await browser.close().catch(() => {});
    }
  });
}
