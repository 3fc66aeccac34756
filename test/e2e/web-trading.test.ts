// The trading web app in a real browser (Debian's chromium driven by playwright-core) on one stack (real
// chains, the pipeline, the DEX API, the web server): two browser contexts are two people. Alice connects
// the development wallet and places a limit order she sees in the book; Bob takes it; both see the trade,
// their fills with a settlement transaction, and Settlement balances equal to the chain's. A stop order and
// an iceberg placed from the page behave as on the API; a bad amount shows an error in words and sends
// nothing. An API key created from the page (read + trade, limits) shows its secret once, works with HMAC, and
// stops working (401) once revoked from the page. Screenshots (1280 and 390 px) go to test-artifacts/dex/ (gitignored); axe-core finds no
// serious or critical violation.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { createPublicClient, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { settlementAbi } from "../../sdk/abi";
import { formatDecimal } from "../../sdk/decimal";
import { api, hmacHeaders } from "../../api/testing/client";
import {
  axeCheck,
  DESKTOP,
  PHONE,
  postLimit,
  refusals,
  shootAtWidths,
  shotsDir,
  submitOrderForm,
  withDexWebBrowser,
} from "../support/web-browser";

// the page's globals inside page.evaluate / waitForFunction callbacks (this project compiles without the DOM lib)
declare const document: any;
declare const window: any;

const ARTIFACTS = shotsDir("dex");
const WAIT = 90_000;

async function connect(page: Page, url: string, walletIndex: number): Promise<void> {
  await page.goto(`${url}/#/market/WETH-USD`);
  await page.waitForSelector("#book table", { timeout: WAIT });
  // the wallet offered first is the integrator's (the simulator never trades it), not a market maker's
  assert.equal(await page.inputValue("#wallet-choice"), "dev:integrator");
  await page.selectOption("#wallet-choice", `dev:${walletIndex}`);
  await page.click("#connect");
  await page.waitForSelector("#balances", { timeout: WAIT });
}

async function placeFromPage(
  page: Page,
  o: {
    side: "buy" | "sell";
    type: string;
    price?: string;
    trigger?: string;
    size: string;
    iceberg?: string;
    tif?: string;
  },
): Promise<string> {
  await page.click(`.sides button.${o.side}`);
  await page.selectOption("#order-form select[name=type]", o.type);
  if (o.tif) await page.selectOption("#order-form select[name=time_in_force]", o.tif);
  if (o.price !== undefined) await page.fill("#order-form input[name=price]", o.price);
  if (o.trigger !== undefined) await page.fill("#order-form input[name=trigger_price]", o.trigger);
  await page.fill("#order-form input[name=size]", o.size);
  await page.fill("#order-form input[name=iceberg_visible_size]", o.iceberg ?? "");
  await submitOrderForm(page, WAIT);
  const kind = await page.getAttribute("#order-result", "data-kind");
  const text = await page.textContent("#order-result");
  assert.equal(kind, "ok", `placing ${JSON.stringify(o)}: ${text}`);
  return (await page.getAttribute("#order-result", "data-order-id"))!;
}

/** A wallet-signed GET straight to the DEX API, as an integrator would make it. */
async function apiGet(restOrigin: string, key: Hex, p: string): Promise<any> {
  const account = privateKeyToAccount(key);
  const timestamp = String(Date.now());
  const host = new URL(restOrigin).host;
  const signature = await account.signMessage({
    message: { raw: new TextEncoder().encode(`${timestamp}GET${host}${p}`) },
  });
  const r = await fetch(restOrigin + p, {
    headers: { "X-Wallet-Address": account.address, "X-Wallet-Timestamp": timestamp, "X-Wallet-Signature": signature },
  });
  assert.equal(r.status, 200, await r.clone().text());
  return r.json();
}

/** One trade between two demo traders (the maker's sell rests, the taker's buy takes it). */
async function trade(
  restOrigin: string,
  info: any,
  maker: Hex,
  taker: Hex,
  symbol: string,
  price: string,
  size: string,
): Promise<boolean> {
  return (
    (await postLimit(restOrigin, info, maker, symbol, "sell", price, size)) &&
    (await postLimit(restOrigin, info, taker, symbol, "buy", price, size))
  );
}

/** What each page showed when the test failed, beside the screenshots. */
async function showPages(browser: Browser): Promise<void> {
  for (const [i, ctx] of browser.contexts().entries()) {
    const page = ctx.pages()[0];
    if (!page) continue;
    await page.screenshot({ path: path.join(ARTIFACTS, `failure-${i}.png`), fullPage: true }).catch(() => {});
    const seen = await page
      .evaluate(() => ({
        status: document.getElementById("feed-status")?.textContent,
        // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered (innerText), what a user reads
        book: document.getElementById("book")?.innerText,
        result: document.getElementById("order-result")?.textContent,
      }))
      .catch(() => null);
    console.error(`page ${i}:`, JSON.stringify(seen));
  }
}

test("two people trade from the web app; stop, iceberg and a bad amount; screenshots; accessibility", {
  timeout: 480_000,
}, async () => {
  const web = { prefix: "web-e2e-", onFailure: showPages };
  await withDexWebBrowser(web, async ({ config, stack, webUrl, rest, browser }) => {
    const [alice, bob] = config.keys.demoTraders;
    const pub = createPublicClient({ transport: http(stack.chains.home.rpcUrl) });
    const settlement = stack.deployments.home.contracts.Settlement as `0x${string}`;
    const tokens = stack.deployments.home.tokens as Record<string, { address: `0x${string}`; decimals: number }>;

    const ctxA = await browser.newContext({ viewport: DESKTOP });
    const ctxB = await browser.newContext({ viewport: DESKTOP });
    const a = await ctxA.newPage();
    const b = await ctxB.newPage();
    const pageErrors: string[] = [];
    for (const p of [a, b]) p.on("pageerror", (e) => pageErrors.push(String(e)));

    await connect(a, webUrl, 0);
    await connect(b, webUrl, 1);

    // 0. market data and live data: one trade in every market between two other traders, then the public
    // summary fills the markets list (Last, 24 h change and volume) with no refused request; while trades
    // arrive about 10 a second, a deposit amount being typed keeps its text and the focus
    const refused: string[] = [];
    // (this stack runs no indexer: its candles answer 503, which is not a refusal of the page's requests)
    a.on("response", (r) => void (r.status() >= 400 && r.status() < 500 && refused.push(`${r.status()} ${r.url()}`)));
    a.on("console", (m) => void (m.type() === "error" && !/status of 503/.test(m.text()) && refused.push(m.text())));
    const info: any = await (await fetch(`${rest}/v1/markets`)).json();
    const [, , carol, dave] = config.keys.demoTraders;
    const traded: string[] = [];
    await Promise.all(
      info.markets.map(
        async (m: { symbol: string; min_size: string }) =>
          void (
            (await trade(rest, info, carol.privateKey, dave.privateKey, m.symbol, "5000", m.min_size)) &&
            traded.push(m.symbol)
          ),
      ),
    );
    assert.ok(traded.includes("WETH-USD"), `traded in ${traded.join(", ")}; ${refusals.last}`);
    await a.click("#funds-box input[name=amount]");
    const typed = "1234.5678";
    // 30 trades in 3 s, one every 100 ms: a resting sell of carol's and a resting bid of dave's, taken in turn by
    // a buy of dave's and a sell of carol's (each wallet places 5 a second, half its per-trader limit)
    assert.ok(await postLimit(rest, info, carol.privateKey, "WETH-USD", "sell", "2100", "0.15"), refusals.last);
    assert.ok(await postLimit(rest, info, dave.privateKey, "WETH-USD", "buy", "2000", "0.15"), refusals.last);
    let trades = 0;
    const takes: Promise<void>[] = [];
    const burst = (async () => {
      for (let i = 0; i < 30; i++) {
        const [key, side, price] = i % 2 === 0 ? [dave.privateKey, "buy", "2100"] : [carol.privateKey, "sell", "2000"];
        takes.push(
          postLimit(rest, info, key, "WETH-USD", side as "buy" | "sell", price, "0.01").then(
            (ok) => void (ok && trades++),
          ),
        );
        await new Promise((r) => setTimeout(r, 100));
      }
      await Promise.all(takes);
    })();
    for (const ch of typed) {
      await a.keyboard.type(ch);
      await new Promise((r) => setTimeout(r, 300));
    }
    await burst;
    await a.waitForTimeout(1_000); // the account refresh after the last trade
    assert.equal(trades, 30, refusals.last);
    assert.equal(await a.inputValue("#funds-box input[name=amount]"), typed);
    assert.equal(
      await a.evaluate(() => document.activeElement?.getAttribute("name")),
      "amount",
      "the amount input lost the focus",
    );
    await a.fill("#funds-box input[name=amount]", "");
    await a.waitForFunction(
      (symbols) =>
        symbols.every((sym: string) =>
          /^\d[\d.,]*$/.test(
            document.querySelector(`#main td[data-symbol="${sym}"][data-field="last"]`)?.textContent ?? "",
          ),
        ),
      traded,
      { timeout: WAIT },
    );
    const rows = await a.evaluate(() =>
      [...document.querySelectorAll("td[data-field]")].map((td: any) => [
        td.dataset.symbol,
        td.dataset.field,
        td.textContent,
      ]),
    );
    for (const m of info.markets) {
      const vol = rows.find(([sym, f]) => sym === m.symbol && f === "volume24h")?.[2] ?? "";
      assert.match(
        vol,
        traded.includes(m.symbol) ? /^[1-9\d.,]*\d$|^0\.\d*[1-9]\d*$/ : /^\d[\d.,]*$/,
        `${m.symbol} 24 h volume`,
      );
    }
    assert.equal(traded.length, info.markets.length, `every market traded: ${traded.length} of ${info.markets.length}`);
    assert.match((await a.textContent("#ticker-change")) ?? "", /^[+-]\d+\.\d{2}%$/);
    assert.deepEqual(refused, [], "no 4xx and no console error");
    await a.screenshot({ path: path.join(ARTIFACTS, "market-desktop-empty.png"), fullPage: true });

    // 1. a bad amount: an error in words, no order request leaves the page
    const posts: string[] = [];
    a.on("request", (r) => {
      if (r.method() === "POST" && new URL(r.url()).pathname === "/v1/orders") posts.push(r.url());
    });
    await a.click(".sides button.sell");
    await a.selectOption("#order-form select[name=type]", "limit");
    await a.fill("#order-form input[name=price]", "2000");
    await a.fill("#order-form input[name=size]", "abc");
    await a.click("#place-order");
    await a.waitForFunction(() => document.getElementById("order-result")!.dataset.kind === "error");
    const sizeError = await a.textContent("#order-form input[name=size] ~ .field-error");
    assert.match(sizeError ?? "", /The size must be a number such as 12\.5/);
    assert.match((await a.textContent("#order-result")) ?? "", /not sent/);
    await a.fill("#order-form input[name=size]", "0");
    await a.click("#place-order");
    assert.match((await a.textContent("#order-form input[name=size] ~ .field-error")) ?? "", /more than zero/);
    assert.deepEqual(posts, [], "a bad amount sent an order");

    // 2. Alice's limit sell rests and shows in both people's live book (price rounded to the tick)
    const sellId = await placeFromPage(a, { side: "sell", type: "limit", price: "2000.004", size: "0.5" });
    assert.equal(posts.length, 1);
    for (const p of [a, b]) await p.waitForSelector('#book tbody.asks tr[data-price="2000"]', { timeout: WAIT });
    assert.equal(await b.textContent('#book tbody.asks tr[data-price="2000"] td:nth-child(2)'), "0.5");
    // the page shows what the wallet signs
    assert.match((await a.textContent("#signed-preview")) ?? "", /Order \{/);

    // 3. Bob takes it
    const buyId = await placeFromPage(b, { side: "buy", type: "limit", price: "2000", size: "0.5" });
    for (const p of [a, b]) {
      await p.waitForSelector("#trades tbody tr", { timeout: WAIT });
      await p.waitForFunction(() => !document.querySelector('#book tbody.asks tr[data-price="2000"]'), null, {
        timeout: WAIT,
      });
      assert.equal(await p.textContent("#trades tbody tr td:first-child"), "2000");
    }
    // both see their fill with its settlement transaction
    for (const [p, id] of [
      [a, sellId],
      [b, buyId],
    ] as const) {
      await p.waitForSelector(`#order-history tr[data-order-id="${id}"] .tx-hash`, { timeout: WAIT });
      const tx = (await p.getAttribute(`#order-history tr[data-order-id="${id}"] .tx-hash`, "data-hash"))!;
      assert.match(
        (await p.textContent(`#order-history tr[data-order-id="${id}"] .tx-hash`))!,
        /^0x[0-9a-f]{4}…[0-9a-f]{4}$/,
        "a short hash",
      );
      assert.match(
        (await p.textContent(`#order-history tr[data-order-id="${id}"] .fills li`))!,
        / fee [\d,.]+ (WETH|USD)\)/,
        "the fee has its unit",
      );
      const receipt = await pub.getTransactionReceipt({ hash: tx as Hex });
      assert.equal(receipt.status, "success");
    }
    // balances on the page equal the chain's (Settlement.balanceOf), read after the settlement
    for (const [p, who] of [
      [a, alice],
      [b, bob],
    ] as const) {
      await p.click("#account .panel-head button");
      await p.waitForFunction(() => !document.querySelector("#account .loading"), null, { timeout: WAIT });
      for (const sym of ["WETH", "USD"]) {
        const t = tokens[sym];
        const onChain = await pub.readContract({
          address: settlement,
          abi: settlementAbi,
          functionName: "balanceOf",
          args: [who.address, t.address],
        });
        const expected = formatDecimal(onChain as bigint, t.decimals).replace(/^\d+/, (w) =>
          w.replace(/\B(?=(\d{3})+(?!\d))/g, ","),
        );
        await p.waitForFunction(
          ([s, e]) => document.querySelector(`#balances tr[data-token="${s}"] .settlement-bal`)?.textContent === e,
          [sym, expected] as const,
          { timeout: WAIT },
        );
      }
    }

    // 4. an iceberg: the book shows its visible slice only, as the API says
    const iceId = await placeFromPage(a, { side: "sell", type: "limit", price: "2100", size: "1", iceberg: "0.2" });
    await b.waitForSelector('#book tbody.asks tr[data-price="2100"]', { timeout: WAIT });
    assert.equal(await b.textContent('#book tbody.asks tr[data-price="2100"] td:nth-child(2)'), "0.2");
    const ice = await apiGet(rest, alice.privateKey, `/v1/orders/${iceId}`);
    assert.equal(ice.iceberg_visible_size, 0.2);
    assert.equal(ice.size, 1);
    assert.equal(ice.status, "open");

    // 5. a stop order waits for its trigger, off the book, then enters it when a trade reaches the trigger
    const stopId = await placeFromPage(a, {
      side: "sell",
      type: "stop_loss_limit",
      trigger: "1900",
      price: "1890",
      size: "0.1",
    });
    let stop = await apiGet(rest, alice.privateKey, `/v1/orders/${stopId}`);
    assert.equal(stop.status, "pending_trigger");
    assert.equal(stop.trigger_price, 1900);
    await a.waitForSelector(`#open-orders tr[data-order-id="${stopId}"][data-status="pending_trigger"]`, {
      timeout: WAIT,
    });
    assert.equal(await b.$('#book tbody.asks tr[data-price="1890"]'), null);
    // a trade at 1900 (Bob sells, Alice buys) triggers it
    await placeFromPage(b, { side: "sell", type: "limit", price: "1900", size: "0.1" });
    await placeFromPage(a, { side: "buy", type: "limit", price: "1900", size: "0.1" });
    await b.waitForSelector('#book tbody.asks tr[data-price="1890"]', { timeout: WAIT });
    stop = await apiGet(rest, alice.privateKey, `/v1/orders/${stopId}`);
    assert.equal(stop.status, "open");

    // 6. cancel all from the page
    await a.click("#account .panel-head button");
    await a.waitForSelector("#cancel-all", { timeout: WAIT });
    await a.click("#cancel-all");
    await a.waitForFunction(() => /cancelled/.test(document.getElementById("cancel-result")?.textContent ?? ""), null, {
      timeout: WAIT,
    });
    const open = await apiGet(rest, alice.privateKey, "/v1/orders");
    assert.deepEqual(open.orders, []);
    await b.waitForFunction(() => !document.querySelector('#book tbody.asks tr[data-price="2100"]'), null, {
      timeout: WAIT,
    });

    // 7. an API key from the page: a bad limit is refused in words and sends nothing; then read + trade with
    //    limits, the secret shown once, listed as the API lists it, usable with HMAC; revoked from the page
    const keyPosts: string[] = [];
    a.on("request", (r) => {
      if (r.method() === "POST" && new URL(r.url()).pathname === "/v1/api-keys") keyPosts.push(r.url());
    });
    await a.waitForSelector("#api-key-form", { timeout: WAIT });
    await a.fill("#api-key-form input[name=key-label]", "e2e bot");
    await a.check("#perm-trade");
    await a.fill("#api-key-form input[name=position_limit]", "12abc");
    await a.click("#create-api-key");
    await a.waitForFunction(() => document.getElementById("api-key-result")!.dataset.kind === "error");
    assert.match(
      (await a.textContent("#api-key-form input[name=position_limit] ~ .field-error")) ?? "",
      /must be a number such as/,
    );
    assert.equal(await a.evaluate(() => document.activeElement?.getAttribute("name")), "position_limit");
    assert.deepEqual(keyPosts, [], "a bad limit sent a key request");
    await a.fill("#api-key-form input[name=position_limit]", "5000");
    await a.fill("#api-key-form input[name=daily_loss_limit]", "250.5");
    assert.match(
      (await a.textContent("#api-key-preview")) ?? "",
      /"permissions":\["read","trade"\],"position_limit":"5000","daily_loss_limit":"250.5"/,
    );
    await a.click("#create-api-key");
    await a.waitForFunction(
      () => ["ok", "error"].includes(document.getElementById("api-key-result")!.dataset.kind ?? ""),
      null,
      { timeout: WAIT },
    );
    assert.equal(
      await a.getAttribute("#api-key-result", "data-kind"),
      "ok",
      (await a.textContent("#api-key-result")) ?? "",
    );
    assert.equal(keyPosts.length, 1);
    assert.match((await a.textContent("#api-key-preview")) ?? "", /AgentApproval \{/);
    const apiKey = (await a.textContent("#new-api-key"))!;
    const secret = (await a.textContent("#new-api-secret"))!;
    assert.ok(apiKey.length > 8 && secret.length > 16);
    const listed = (await apiGet(rest, alice.privateKey, "/v1/api-keys")).api_keys.find(
      (k: any) => k.api_key === apiKey,
    );
    assert.ok(listed, "the page's key is not in GET /v1/api-keys");
    assert.deepEqual(
      [listed.label, listed.permissions, listed.position_limit, listed.daily_loss_limit, listed.revoked_at],
      ["e2e bot", ["read", "trade"], "5000", "250.5", null],
    );
    assert.equal(listed.agent_status, "approved");
    const row = `#api-keys tr[data-key-id="${listed.id}"]`;
    await a.waitForSelector(`${row} .key-agent:text-is("approved")`, { timeout: WAIT });
    assert.equal(await a.textContent(`${row} .key-permissions`), "read, trade");
    assert.equal(await a.textContent(`${row} .key-position-limit`), "5000");
    assert.equal(await a.textContent(`${row} .key-loss-limit`), "250.5");
    // the key at work: an HMAC-signed read
    const hmacGet = (p: string) => api(rest, "GET", p, { headers: hmacHeaders(apiKey, secret, "GET", p) });
    const withKey = await hmacGet("/v1/balances");
    assert.equal(withKey.status, 200, withKey.text);
    assert.ok(Array.isArray(withKey.body.balances));
    // it trades (its agent is approved) within the page's position limit, and the limit refuses more
    const hmacPost = (p: string, body: object) => {
      const text = JSON.stringify(body);
      return api(rest, "POST", p, { body: text, headers: hmacHeaders(apiKey, secret, "POST", p, text) });
    };
    const keyOrder = (size: number) => ({
      symbol: "WETH-USD",
      side: "buy",
      type: "limit",
      price: 1500,
      size,
      time_in_force: "gtc",
      client_order_id: `web-key-${size}-${Date.now()}`,
    });
    const keyPlaced = await hmacPost("/v1/orders", keyOrder(0.1));
    assert.equal(keyPlaced.status, 201, keyPlaced.text);
    assert.equal(keyPlaced.body.status, "open");
    const overLimit = await hmacPost("/v1/orders", keyOrder(3.3)); // 150 + 4950 > 5000
    assert.equal(overLimit.status, 403, overLimit.text);
    assert.equal(overLimit.body.error.details.reason, "position_limit_exceeded");
    await a.locator("#api-keys-panel").screenshot({ path: path.join(ARTIFACTS, "api-keys-desktop.png") });
    await axeCheck(a, "api keys, desktop");
    await a.setViewportSize(PHONE);
    await a.locator("#api-keys-panel").screenshot({ path: path.join(ARTIFACTS, "api-keys-phone.png") });
    assert.ok(
      (await a.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)) <= 1,
      "the API keys panel is wider than a phone",
    );
    await axeCheck(a, "api keys, phone");
    await a.setViewportSize(DESKTOP);
    // the secret is shown once: gone when the box is closed, after the panel re-renders, and after a reload
    await a.click("#api-key-reveal-close");
    assert.equal(await a.$("#new-api-secret"), null);
    await a.click("#api-keys-refresh");
    await a.waitForSelector(row, { timeout: WAIT });
    assert.ok(!(await a.content()).includes(secret), "the secret is still in the page");
    await a.reload();
    await a.waitForSelector("#book table", { timeout: WAIT });
    await a.selectOption("#wallet-choice", "dev:0");
    await a.click("#connect");
    await a.waitForSelector("#balances", { timeout: WAIT });
    await a.waitForSelector(row, { timeout: WAIT });
    assert.ok(!(await a.content()).includes(secret), "the secret is shown again after a reload");
    // revoke from the page, with a confirmation: the row goes, the API lists it revoked, the key answers 401
    await a.click(`[data-revoke="${listed.id}"]`);
    assert.equal(await a.evaluate(() => document.activeElement?.textContent), "Yes, revoke");
    await a.click(`[data-confirm-revoke="${listed.id}"]`);
    await a.waitForFunction(
      () => ["ok", "error"].includes(document.getElementById("api-key-revoke-result")?.dataset.kind ?? ""),
      null,
      { timeout: WAIT },
    );
    assert.match(
      (await a.textContent("#api-key-revoke-result")) ?? "",
      /revoked: it no longer works; 1 open order cancelled/,
    );
    assert.equal((await apiGet(rest, alice.privateKey, `/v1/orders/${keyPlaced.body.order_id}`)).status, "cancelled");
    await a.waitForFunction((id) => !document.querySelector(`#api-keys tr[data-key-id="${id}"]`), listed.id, {
      timeout: WAIT,
    });
    const after = (await apiGet(rest, alice.privateKey, "/v1/api-keys")).api_keys.find((k: any) => k.id === listed.id);
    assert.ok(after.revoked_at !== null);
    assert.equal((await hmacGet("/v1/balances")).status, 401);

    // 8. screenshots and accessibility at desktop and phone widths
    await shootAtWidths(a, ARTIFACTS, "market", {
      onPhone: async () => {
        const overflow = await a.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 1, `the page is ${overflow} px wider than a phone`);
      },
    });
    assert.deepEqual(pageErrors, []);
  });
});
