// Journeys of the exchange app's browser test (web-exchange.test.ts) that #31 asks for, each timed and asserted:
// a market buy by dollar amount from the landing page in at most 3 actions and 5 s; the dollar amount's
// boundaries (below one lot's cost, above buying power) refused on the form with nothing sent; and the asset
// page with the indexer stopped (book and catalogue shown, the quote marked stale) recovering by itself when
// the indexer is started again, without a reload.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import pino from "pino";
import type { Config } from "../../config";
import { indexerComponent, type RunningStack, type StackContext } from "../../scripts/stack";

declare const document: any;

const WAIT = 90_000;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What a form's amount gives before anything is sent: the estimate's text and kind. */
async function estimateFor(page: Page, amount: string): Promise<{ kind: string; text: string }> {
  await page.fill("#amount-usd", amount);
  return page.evaluate(() => {
    const e = document.getElementById("order-estimate");
    return { kind: e.dataset.kind ?? "", text: e.textContent ?? "" };
  });
}

/** On AAPL's page (a 200.00 ask on the book, lot 0.001): one lot's cost and buying power at their exact
 *  boundaries, and Buy on a refused amount sends nothing. */
export async function dollarBoundaries(page: Page, account: Json, orderPosts: string[]): Promise<void> {
  await page.waitForFunction(() => document.getElementById("order-buying-power")?.textContent, null, {
    timeout: WAIT,
  });
  await page.waitForSelector('#book tbody.asks tr[data-price="200"]', { timeout: WAIT });
  const sent = orderPosts.length;
  const below = await estimateFor(page, "0.19");
  assert.equal(below.kind, "error");
  assert.match(below.text, /below the cost of one lot: the smallest buy is 0\.001 AAPL, \$0\.20/);
  const oneLot = await estimateFor(page, "0.2");
  assert.equal(oneLot.kind, "ok");
  assert.match(oneLot.text, /^About 0\.001 AAPL for an estimated \$0\.20/);
  const bp = BigInt(account.buyingPowerUnits ?? account.cashBalanceUnits); // USD base units (6 decimals)
  const cents = (units: bigint) => `${units / 1_000_000n}.${String((units % 1_000_000n) / 10_000n).padStart(2, "0")}`;
  assert.equal(bp % 10_000n, 0n, "buying power is whole cents");
  assert.equal((await estimateFor(page, cents(bp))).kind, "ok", "an amount equal to buying power is accepted");
  const above = await estimateFor(page, cents(bp + 10_000n));
  assert.equal(above.kind, "error");
  assert.match(above.text, /Not enough buying power/);
  await page.click("#place-order");
  await page.waitForFunction(() => document.getElementById("order-result")?.dataset.kind === "error", null, {
    timeout: WAIT,
  });
  assert.match((await page.textContent("#amount-usd ~ .field-error")) ?? "", /Not enough buying power/);
  await estimateFor(page, "0.19");
  await page.click("#place-order");
  await page.waitForFunction(
    () => /below the cost of one lot/.test(document.querySelector("#amount-usd ~ .field-error")?.textContent ?? ""),
    null,
    { timeout: WAIT },
  );
  assert.equal(orderPosts.length, sent, "a refused amount sent an order");
  await page.fill("#amount-usd", "");
}

/** From the landing page (logged in: the asset list): AAPL, $300, Buy; the fill shown within 5 s. */
export async function timedDollarBuy(
  page: Page,
  webUrl: string,
): Promise<{ text: string; orderId: string; ms: number }> {
  await page.goto(webUrl);
  await page.waitForFunction(() => document.getElementById("main")?.dataset.route === "/assets", null, {
    timeout: WAIT,
  });
  const t0 = Date.now();
  await page.click('#asset-list a[href="#/asset/AAPL"]'); // action 1
  await page.fill("#amount-usd", "300"); // action 2
  await page.click("#place-order"); // action 3
  await page.waitForFunction(() => document.getElementById("order-result")?.dataset.kind === "ok", null, {
    timeout: WAIT,
  });
  const ms = Date.now() - t0;
  return {
    text: (await page.textContent("#order-result")) ?? "",
    orderId: (await page.getAttribute("#order-result", "data-order-id"))!,
    ms,
  };
}

/** Starts the stack's indexer component again on its port, as the stack did (the exchange API reads its URL
 *  per request). */
function startIndexerAgain(config: Config) {
  const ctx = { config, logger: pino({ level: "silent" }), deploymentsFile: config.deploymentsFile };
  return indexerComponent.start(ctx as unknown as StackContext);
}

const stale = () => document.getElementById("quote")?.dataset.stale !== undefined;

/** The indexer stopped: the asset page keeps its book and facts and marks its quote stale; a fresh visit shows
 *  the catalogue (marked stale) and the asset page the same way; started again, the page recovers by itself.
 *  Returns the indexer started again (the caller stops it) and the recovery's time. */
export async function indexerDownAndBack(
  page: Page,
  stack: RunningStack,
  config: Config,
  webUrl: string,
  phase: (name: string) => void,
) {
  await page.goto(`${webUrl}#/asset/AAPL`);
  await page.waitForFunction(
    () => document.querySelector("#quote dl.figures") && !document.getElementById("quote").dataset.stale,
    null,
    { timeout: WAIT },
  );
  await stack.components.find((c) => c.name === "indexer")!.handle!.stop();
  phase("indexer stopped");
  await page.waitForFunction(stale, null, { timeout: 30_000 });
  assert.ok(await page.$("#quote dl.figures"), "the last known quote stays");
  assert.match((await page.textContent("#quote .stale")) ?? "", /Stale: the last known quote, as of/);
  assert.ok(await page.$('#book tbody.asks tr[data-price="200"]'), "the book is still shown");
  // a fresh visit: the catalogue and the asset page answer, marked stale
  await page.goto(`${webUrl}#/assets`);
  await page.waitForSelector("#asset-list #assets-stale", { timeout: WAIT });
  assert.ok(await page.$('#asset-list tr[data-asset-id="AAPL"]'));
  await page.click('#asset-list a[href="#/asset/AAPL"]');
  await page.waitForSelector(".asset-facts .stale", { timeout: WAIT });
  await page.waitForSelector('#book tbody.asks tr[data-price="200"]', { timeout: WAIT });
  await page.waitForFunction(stale, null, { timeout: 30_000 });
  phase("stale shown");
  const again = await startIndexerAgain(config);
  phase("indexer started again");
  const t0 = Date.now();
  await page.waitForFunction(() => document.getElementById("quote")?.dataset.stale === undefined, null, {
    timeout: 30_000,
  });
  return { again, recoveredMs: Date.now() - t0 };
}
