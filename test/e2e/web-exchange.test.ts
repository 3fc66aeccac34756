// The exchange app (/exchange) in a real browser (Debian's chromium driven by playwright-core) on one stack
// (real chains, the pipeline, the identity provider, the exchange API with custody, the indexer, the web
// server): a new person logs in with a phone and the one-time code they read from the sandbox outbox, finds
// AAPL by rail, category and search, buys it at market against a demo trader's resting sell and sees it in
// the portfolio with the API's quantity and its lot; a bad quantity shows an error in words and sends
// nothing; buying NRTH (a 506(c) asset) without accreditation is refused in words and places nothing;
// transactions, account and a sandbox deposit. Screenshots of each page at desktop and phone widths go to
// test-artifacts/web-exchange/ (gitignored); axe-core finds no serious or critical violation on any of them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { launchChromium, shootAtWidths, shotsDir, submitOrderForm } from "../support/web-browser";
import type { Browser, Page } from "playwright-core";
import type { Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createTestConfig, defaultComponents, startStack, type RunningStack } from "../../scripts/stack";
import type { PipelineHandle } from "../../scripts/stack/components/pipeline";
import type { DexService, PlaceOrderRequest } from "../../pipeline/service";
import { signedInput } from "../../pipeline/testing/orders";
import { numberToDecimalString } from "../../sdk/decimal";
import { usd } from "../../web/src/exchange/model";
import { dollarBoundaries, indexerDownAndBack, timedDollarBuy } from "./web-exchange-journeys";

// the page's globals inside page.evaluate / waitForFunction callbacks (this project compiles without the DOM lib)
declare const document: any;
declare const window: any;
declare const sessionStorage: any;
declare const location: any;

const ARTIFACTS = shotsDir("web-exchange");
const WAIT = 90_000;
const DESKTOP = { width: 1280, height: 900 };

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Screenshots at desktop and phone widths and the accessibility check at each. */
const shoot = (page: Page, name: string) => shootAtWidths(page, ARTIFACTS, name, { desktop: DESKTOP });

async function placeFromPage(
  page: Page,
  o: { side: "BUY" | "SELL"; type: "market" | "limit"; quantity: string; price?: string },
): Promise<{ kind: string; text: string; code: string | null; orderId: string | null; status: string | null }> {
  await page.waitForSelector("#order-form form", { timeout: WAIT });
  await page.click(`#order-form .sides button[data-side=${o.side}]`);
  await page.selectOption("#order-type", o.type);
  if (o.side === "BUY" && o.type === "market") await page.click("#by-quantity");
  await page.fill("#quantity", o.quantity);
  if (o.price !== undefined) await page.fill("#limit-price", o.price);
  await submitOrderForm(page, WAIT);
  return {
    kind: (await page.getAttribute("#order-result", "data-kind"))!,
    text: (await page.textContent("#order-result")) ?? "",
    code: await page.getAttribute("#order-result", "data-code"),
    orderId: await page.getAttribute("#order-result", "data-order-id"),
    status: await page.getAttribute("#order-result", "data-status"),
  };
}

test("the exchange app: log in, browse, buy AAPL, portfolio = API, accreditation refusal in words, funding; screenshots; accessibility", {
  timeout: 570_000,
}, async (t) => {
  // phase timings as TAP diagnostics (where the time of this file goes on a loaded machine)
  const t0 = Date.now();
  const phase = (name: string) => t.diagnostic(`${name}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "web-exchange-e2e-"));
  let stack: RunningStack | undefined;
  let browser: Browser | undefined;
  let restarted: { stop(): Promise<void> } | undefined;
  try {
    // the browser and this test reach the exchange API from one address (through the web server): room for both
    const { config } = await createTestConfig(dataDir, { EXCHANGE_PUBLIC_RATE_LIMIT: "1000" });
    stack = await startStack({
      config,
      components: defaultComponents(["iam", "pipeline", "exchange-api", "indexer", "web"]),
      onComponentError: "fail",
    });
    phase("stack started");
    const webUrl = stack.components.find((c) => c.name === "web")!.handle!.urls!["exchange app"];
    const api = config.urls.exchangeApi;
    const home = stack.deployments.home;

    // liquidity: a demo trader offers 10 AAPL at 200.00 through the DexService (a real signed order)
    const dex: DexService = (stack.components.find((c) => c.name === "pipeline")!.handle as PipelineHandle).dexService;
    const seller = privateKeyToAccount(config.keys.demoTraders[0].privateKey);
    const market = dex.listMarkets().find((m) => m.symbol === "AAPL-USD")!;
    const s = await signedInput(seller, seller.address, home.chainId, home.contracts.Settlement as Address, market, {
      side: "sell",
      priceTicks: 20_000n,
      sizeLots: 10_000n,
    });
    const ask: PlaceOrderRequest = {
      kind: "signed",
      orderId: randomUUID(),
      clientOrderId: randomUUID(),
      symbol: "AAPL-USD",
      side: "sell",
      type: "limit",
      timeInForce: "gtc",
      priceTicks: 20_000n,
      triggerPriceTicks: null,
      sizeLots: 10_000n,
      expiresAtMs: null,
      receivedAtMs: Date.now(),
      trader: seller.address,
      order: s.order,
      signature: s.signature,
    };
    assert.equal((await dex.placeOrder(ask)).status, "open");

    browser = await launchChromium();
    const ctx = await browser.newContext({ viewport: DESKTOP });
    const page = await ctx.newPage();
    /** the page of `hash` has rendered with its first data (main's data-route) */
    const routed = (hash: string) =>
      page.waitForFunction((h) => document.getElementById("main")?.dataset.route === h, hash, { timeout: WAIT });
    const pageErrors: string[] = [];
    page.on("pageerror", (e) => pageErrors.push(String(e)));
    const orderPosts: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "POST" && new URL(r.url()).pathname === "/exchange-api/v1/orders")
        orderPosts.push(r.postData() ?? "");
    });

    phase("step 1");
    // 1. log in: phone, a code, read from the sandbox outbox as the page's hint says, typed in
    await page.goto(webUrl);
    await page.waitForSelector("#phone", { timeout: WAIT });
    await page.fill("#phone", "12345");
    await page.click("#send-code");
    assert.match((await page.textContent("#phone ~ .field-error")) ?? "", /country code/);
    const phone = "+14155550301";
    await page.fill("#phone", phone);
    await page.click("#send-code");
    await page.waitForFunction(() => document.getElementById("login-result")?.dataset.kind === "ok", null, {
      timeout: WAIT,
    });
    await page.waitForSelector("#outbox-hint", { timeout: WAIT });
    await shoot(page, "login");
    await page.click("#show-code");
    await page.waitForFunction(
      () => /^\d{6}$/.test(document.getElementById("sandbox-code")?.dataset.code ?? ""),
      null,
      { timeout: WAIT },
    );
    const code = (await page.getAttribute("#sandbox-code", "data-code"))!;
    // a wrong code first: refused in words, still on the login page
    await page.fill("#code", code === "000000" ? "111111" : "000000");
    await page.click("#login");
    await page.waitForFunction(() => document.getElementById("login-result")?.dataset.kind === "error", null, {
      timeout: WAIT,
    });
    assert.match((await page.textContent("#login-result")) ?? "", /code is wrong or has expired/);
    await page.fill("#code", code);
    await page.click("#login");
    await page.waitForSelector("#asset-list table", { timeout: WAIT });
    assert.match((await page.textContent("#session")) ?? "", new RegExp(`Logged in as \\${phone}`));
    const session = JSON.parse((await page.evaluate(() => sessionStorage.getItem("exchange-session"))) as string) as {
      accessToken: string;
      tenantToken: string;
    };
    const headers = { authorization: `Bearer ${session.accessToken}`, "tenant-authorization": session.tenantToken };
    const apiGet = async (p: string): Promise<Json> => {
      const r = await fetch(`${api}${p}`, { headers });
      assert.equal(r.status, 200, `${p}: ${await r.clone().text()}`);
      return (await r.json()) as Json;
    };
    const everyAsset = (await (await fetch(`${api}/assets?limit=100`)).json()) as Json;
    assert.equal(await page.locator("#asset-list tbody tr").count(), everyAsset.data.length);
    await shoot(page, "assets");

    phase("step 2");
    // 2. browse: the public rail, stocks, then a search: AAPL is there, a private asset is not
    await page.selectOption("#rail", "public");
    await routed("/assets?rail=public");
    await page.selectOption("#category", "stocks");
    await routed("/assets?rail=public&category=stocks");
    const stocks = (await (await fetch(`${api}/assets?marketRail=public&category=stocks&limit=100`)).json()) as Json;
    await page.waitForFunction(
      (n) => document.querySelectorAll("#asset-list tbody tr").length === n,
      stocks.data.length,
      { timeout: WAIT },
    );
    assert.ok(await page.$('#asset-list tr[data-asset-id="AAPL"]'));
    assert.equal(await page.$('#asset-list tr[data-asset-id="NRTH"]'), null);
    await page.fill("#search", "apple");
    await page.press("#search", "Enter");
    await routed("/assets?rail=public&category=stocks&q=apple");
    const apple = (await (await fetch(`${api}/assets?marketRail=public&category=stocks&search=apple`)).json()) as Json;
    assert.ok(apple.data.some((a: Json) => a.id === "AAPL"));
    assert.deepEqual(
      await page.$$eval("#asset-list tbody tr", (rs: any[]) => rs.map((r) => r.dataset.assetId)),
      apple.data.map((a: Json) => a.id),
    );
    await page.fill("#search", "zzzznothing");
    await page.press("#search", "Enter");
    await routed("/assets?rail=public&category=stocks&q=zzzznothing");
    assert.match((await page.textContent("#asset-list .empty")) ?? "", /No asset matches "zzzznothing"/);

    phase("step 3");
    // 3. the asset page: the book shows the resting ask at 200; quote and chart answer (loaded or an empty state)
    await page.goto(`${webUrl}#/asset/AAPL`);
    await routed("/asset/AAPL");
    await page.waitForSelector('#book tbody.asks tr[data-price="200"]', { timeout: WAIT });
    assert.equal(await page.textContent('#book tbody.asks tr[data-price="200"] td:nth-child(2)'), "10");
    await page.waitForFunction(() => !document.querySelector("#quote .loading"), null, { timeout: WAIT });
    await page.waitForFunction(
      () => /candles|No settled trade/.test(document.getElementById("chart-note")?.textContent ?? ""),
      null,
      { timeout: WAIT },
    );
    assert.match((await page.textContent("#accreditation")) ?? "", /Retail/);
    await page.selectOption("#range", "5d");
    assert.deepEqual(await page.$$eval("#interval option", (os: any[]) => os.map((o) => o.value)), ["5m", "15m"]);
    await page.waitForFunction(
      () =>
        /range 5d|No settled trade in this range \(5d\)/.test(document.getElementById("chart-note")?.textContent ?? ""),
      null,
      { timeout: WAIT },
    );

    // before Buy: who may buy, the fee and what it is paid in (from the asset's trading terms); then the dollar
    // amount's boundaries, refused on the form with nothing sent
    const detail = ((await (await fetch(`${api}/assets/AAPL`)).json()) as Json).data as Json;
    assert.deepEqual([detail.trading.lotSize, detail.trading.feeTakenIn], ["0.001", "received"]);
    assert.match((await page.textContent("#eligibility")) ?? "", /Retail: open to every investor/);
    const fee = (await page.textContent("#fee-note")) ?? "";
    assert.match(fee, new RegExp(`Fee: ${detail.trading.takerFeeBps / 100} %.*A buy pays it in AAPL`));
    assert.match(fee, new RegExp(`leaves you ${1 - detail.trading.takerFeeBps / 10_000} AAPL`));
    await dollarBoundaries(page, (await apiGet("/account")).data as Json, orderPosts);

    // a bad quantity: an error in words on the field, nothing sent
    const bad = await placeFromPage(page, { side: "BUY", type: "market", quantity: "abc" });
    assert.equal(bad.kind, "error");
    assert.match(bad.text, /Nothing was sent/);
    assert.match((await page.textContent("#quantity ~ .field-error")) ?? "", /must be a number such as 12\.5/);
    const zero = await placeFromPage(page, { side: "BUY", type: "limit", quantity: "0", price: "" });
    assert.equal(zero.kind, "error");
    assert.match((await page.textContent("#quantity ~ .field-error")) ?? "", /more than zero/);
    assert.match((await page.textContent("#limit-price ~ .field-error")) ?? "", /Enter the limit price/);
    assert.deepEqual(orderPosts, [], "a bad amount sent an order");

    phase("step 4");
    // 4. from the landing page, $300 of AAPL at market in 3 actions and 5 s: 1.5 AAPL at 200, EXECUTED, shown
    const buy = await timedDollarBuy(page, webUrl);
    t.diagnostic(`dollar buy from the landing page: ${buy.ms} ms`);
    assert.ok(buy.ms <= 5_000, `the buy took ${buy.ms} ms`);
    assert.match(buy.text, /executed\. Filled 1\.5 at an average of \$200\.00/);
    assert.equal(orderPosts.length, 1);
    assert.deepEqual(JSON.parse(orderPosts[0]), { assetId: "AAPL", side: "BUY", orderType: "market", quantity: "1.5" });
    const order = (await apiGet(`/orders/${buy.orderId}`)).data as Json;
    assert.equal(order.status, "EXECUTED");
    assert.equal(order.filledQuantity, 1.5);
    await page.waitForFunction(
      () => document.querySelector('#book tbody.asks tr[data-price="200"] td:nth-child(2)')?.textContent === "8.5",
      null,
      { timeout: WAIT },
    );
    await shoot(page, "asset");

    phase("step 5");
    // 5. the portfolio: AAPL with the API's quantity (the buyer's fee is taken in the asset) and its lot; holdings
    //    are the chain's balances, so first wait until the trade has settled (polled within the 300/min budget)
    for (
      const until = Date.now() + WAIT;
      ((await apiGet(`/orders/${buy.orderId}`)).data as Json).settlement !== "settled";
    ) {
      assert.ok(Date.now() < until, "the buy settles on chain");
      await new Promise((r) => setTimeout(r, 1_000));
    }
    await page.goto(`${webUrl}#/portfolio`);
    await routed("/portfolio");
    await page.waitForSelector('#holdings tr[data-asset-id="AAPL"] .quantity', { timeout: WAIT });
    const holding = ((await apiGet("/portfolio")).data as Json[]).find((x) => x.assetId === "AAPL")!;
    assert.ok(holding.quantity > 0 && holding.quantity <= 1.5, `holding ${holding.quantity}`);
    assert.equal(
      await page.textContent('#holdings tr[data-asset-id="AAPL"] .quantity'),
      numberToDecimalString(holding.quantity),
    );
    const lots = ((await apiGet("/exchange-portfolio")).data as Json[]).find((x) => x.assetId === "AAPL")!
      .lots as Json[];
    assert.equal(await page.locator('table.lots tr[data-asset-id="AAPL"]').count(), lots.length);
    const lotCells = await page.$$eval('table.lots tr[data-asset-id="AAPL"] td', (tds: any[]) =>
      tds.map((t) => t.textContent),
    );
    assert.equal(lotCells[1], numberToDecimalString(lots[0].quantity));
    assert.equal(lotCells[2], lots[0].acquisitionDate.slice(0, 10));
    assert.equal(lotCells[3], "no hold", "a retail lot has no resale hold");
    assert.equal(lotCells[4], "no");
    await page.waitForSelector("#open-orders .empty", { timeout: WAIT });
    assert.match((await page.textContent("#portfolio-fee-note")) ?? "", /a buy pays its fee in the asset it buys/);
    // dollars in cents, percentages with at most 2 decimals
    const money = await page.$$eval('#holdings table.holdings tr[data-asset-id="AAPL"] td', (tds: any[]) =>
      tds.slice(2).map((t) => t.textContent),
    );
    for (const m of money.slice(0, 3)) assert.match(m, /^(-?\$[\d,]+\.\d{2}|—)$/, `money cell ${m}`);
    assert.match(money[3], /^(—|-?\$[\d,]+\.\d{2} \([+-]?\d+(\.\d{1,2})?%\))$/, `P&L cell ${money[3]}`);
    await shoot(page, "portfolio");

    phase("step 6");
    // 6. a 506(c) asset without accreditation: refused, explained in words, nothing placed
    await page.goto(`${webUrl}#/asset/NRTH`);
    await routed("/asset/NRTH");
    await page.waitForSelector("#order-form form", { timeout: WAIT });
    assert.match((await page.textContent("#accreditation")) ?? "", /506\(c\)/);
    await page.waitForSelector('#eligibility[data-eligible="false"] a#accreditation-link', { timeout: WAIT });
    assert.match(
      (await page.textContent("#eligibility")) ?? "",
      /You cannot buy this asset yet: it needs a third party/,
    );
    const refused = await placeFromPage(page, { side: "BUY", type: "limit", quantity: "1", price: "1" });
    assert.equal(refused.kind, "error");
    assert.equal(refused.code, "ACCREDITATION_REQUIRED");
    assert.match(
      refused.text,
      /Only accredited investors can buy this asset: it is offered under Rule 506\(c\), which requires a third party to verify your accreditation/,
    );
    assert.doesNotMatch(refused.text, /ACCREDITATION_REQUIRED/);
    assert.equal(orderPosts.length, 2, "the refused order was sent once");
    assert.deepEqual(
      ((await apiGet("/orders?status=ALL")).data as Json[]).filter((o) => o.assetId === "NRTH"),
      [],
    );
    await shoot(page, "asset-refused");
    await page.click("#accreditation-link");
    await routed("/account?step=accreditation");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "sandbox-accreditation");

    phase("step 7");
    // 7. transactions: the deposit of the preloaded funds and the trade
    await page.goto(`${webUrl}#/transactions`);
    await routed("/transactions");
    await page.waitForSelector('#transactions tr[data-type="trade"]', { timeout: WAIT });
    const txs = (await apiGet("/transactions?type=all")).data as Json[];
    assert.equal(await page.locator("#transactions tbody tr").count(), txs.length);
    await page.selectOption("#tx-type", "trade");
    await routed("/transactions?type=trade");
    assert.equal(await page.$('#transactions tr[data-type="deposit"]'), null);
    assert.equal(
      await page.locator('#transactions tr[data-type="trade"]').count(),
      txs.filter((x) => x.type === "trade").length,
    );
    const trade = txs.find((x) => x.type === "trade")!;
    assert.equal(trade.feeAsset, "AAPL");
    assert.equal(
      await page.textContent(`#transactions tr[data-id="${trade.id}"] td.fee`),
      `${numberToDecimalString(trade.feeQuantity)} AAPL (${usd(trade.fee)})`,
    );
    await shoot(page, "transactions");

    phase("step 8");
    // 8. account and funding: below the instant minimum is refused in words; a deposit of 250 raises cash by exactly that
    await page.goto(`${webUrl}#/account`);
    await routed("/account");
    await page.waitForSelector("#cash", { timeout: WAIT });
    const before = (await apiGet("/account")).data as Json;
    assert.equal(await page.textContent("#cash"), usd(before.cashBalance));
    assert.match(usd(before.cashBalance), /^\$\d{1,3}(,\d{3})*\.\d{2,6}$/);
    await page.selectOption("#fund-method", "instant");
    await page.fill("#fund-amount", "9.99");
    await page.click("#fund-submit");
    await page.waitForFunction(() => document.getElementById("fund-result")?.dataset.kind === "error", null, {
      timeout: WAIT,
    });
    assert.match((await page.textContent("#fund-result")) ?? "", /minimum for instant bank link is \$10\.00/);
    await page.fill("#fund-amount", "1.234");
    await page.click("#fund-submit");
    await page.waitForFunction(
      () => /at most 2 digits/.test(document.querySelector("#fund-amount ~ .field-error")?.textContent ?? ""),
      null,
      { timeout: WAIT },
    );
    await page.fill("#fund-amount", "250");
    await page.click("#fund-submit");
    await page.waitForFunction(() => document.getElementById("fund-result")?.dataset.kind === "ok", null, {
      timeout: WAIT,
    });
    assert.match(
      (await page.textContent("#fund-result")) ?? "",
      /Deposit of \$250\.00 by instant bank link: completed/,
    );
    const after = (await apiGet("/account")).data as Json;
    assert.equal(BigInt(after.cashBalanceUnits) - BigInt(before.cashBalanceUnits), 250_000_000n);
    await page.waitForFunction((t) => document.getElementById("cash")?.textContent === t, usd(after.cashBalance), {
      timeout: WAIT,
    });
    await shoot(page, "account");

    phase("step 9");
    // 9. the sandbox's 506(c) verification from the account page: the same NRTH order now rests (PENDING), and
    //    the portfolio's open orders cancel it
    await page.click("#verify-506c");
    await page.waitForFunction(() => document.getElementById("accreditation-result")?.dataset.kind === "ok", null, {
      timeout: WAIT,
    });
    assert.match((await page.textContent("#accreditation-result")) ?? "", /Accreditation is now .*\(506c\)/);
    assert.equal(((await apiGet("/account")).data as Json).accreditationType, "506c");
    await page.goto(`${webUrl}#/asset/NRTH`);
    await routed("/asset/NRTH");
    const rests = await placeFromPage(page, { side: "BUY", type: "limit", quantity: "1", price: "1" });
    assert.equal(rests.kind, "ok", rests.text);
    assert.equal(rests.status, "PENDING");
    assert.match(rests.text, /rests on the book/);
    await page.goto(`${webUrl}#/portfolio`);
    await routed("/portfolio");
    await page.waitForSelector(`#open-orders tr[data-order-id="${rests.orderId}"] button`, { timeout: WAIT });
    await page.click(`#open-orders tr[data-order-id="${rests.orderId}"] button`);
    await page.waitForSelector("#open-orders .empty", { timeout: WAIT });
    assert.equal(((await apiGet(`/orders/${rests.orderId}`)).data as Json).status, "CANCELLED");

    phase("step 10");
    // 10. the indexer stopped: book and catalogue still shown, the quote marked stale; started again, the page
    //     recovers by itself (no reload)
    const back = await indexerDownAndBack(page, stack, config, webUrl, phase);
    restarted = back.again;
    t.diagnostic(`asset page live again ${back.recoveredMs} ms after the indexer was back`);
    assert.ok(back.recoveredMs <= 15_000, `recovered after ${back.recoveredMs} ms`);

    phase("step 11");
    // 11. the way to the DEX app is in the header; logging out returns to the login page
    assert.equal(await page.getAttribute("header a.other-app", "href"), "/");
    await page.click("#logout");
    await page.waitForSelector("#phone", { timeout: WAIT });
    assert.equal(await page.evaluate(() => sessionStorage.getItem("exchange-session")), null);
    assert.deepEqual(pageErrors, []);
    phase("done");
  } finally {
    await browser?.close();
    await restarted?.stop();
    await stack?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
