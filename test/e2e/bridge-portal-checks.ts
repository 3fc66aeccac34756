// The bridge portal's browser checks beyond one transfer (bridge-portal.test.ts runs them on its stack): the
// chains named as the tenant's configuration names them, with its explorers; no refused request; and the
// history from the server, shown in a fresh browser profile for the same wallet and to no other wallet.
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { requestWithHost } from "../../api/testing/host-request";

// the page's globals inside page.evaluate / waitForFunction callbacks (this project compiles without the DOM lib)
declare const document: any;
declare const localStorage: any;

export const WAIT = 120_000;
export const DESKTOP = { width: 1280, height: 900 };

const EXPLORERS: Record<number, string> = { 31337: "https://l1.explorer.test", 31338: "https://l2.explorer.test" };

/** The tenant configuration as an operator with explorers writes it: each chain's `explorerUrl`. */
export async function withExplorers(ctx: BrowserContext): Promise<void> {
  await ctx.route("**/api/tenant?*", async (route) => {
    // fetched from this process, which does not resolve the tenants' test hostnames: their Host, 127.0.0.1's address
    const url = new URL(route.request().url());
    const res = await requestWithHost("GET", `http://127.0.0.1:${url.port}${url.pathname}${url.search}`, url.host);
    const tenant = res.body;
    for (const c of tenant.chains) c.explorerUrl = EXPLORERS[c.chainId];
    await route.fulfill({ status: res.status, json: tenant });
  });
}

/** Every refused request of the page (status 400 and up) and every console error, as they come. */
export function watchRefusals(page: Page): string[] {
  const refused: string[] = [];
  page.on("response", (r) => r.status() >= 400 && refused.push(`${r.status()} ${r.request().method()} ${r.url()}`));
  // (but the test's own cut of the network at the link: "Failed to load resource: net::ERR_FAILED" of /complete)
  page.on("console", (m) => {
    const cut = m.text().includes("net::ERR_FAILED") && m.location().url.endsWith("/complete");
    if (m.type() === "error" && !cut) refused.push(`console: ${m.text()} (${m.location().url})`);
  });
  return refused;
}

/** The chains by the tenant's names, never "Home chain"; with explorers, links to them, hashes and contracts included. */
export async function assertChainNames(page: Page, explorers: boolean): Promise<void> {
  const text = (await page.textContent("main"))!;
  assert.ok(!/home chain|remote chain/i.test(text), "no generic chain names");
  assert.match((await page.textContent("#chains"))!, /Sandbox L1.*Sandbox L2/s);
  assert.match((await page.textContent("#direction"))!, /Deposit: Sandbox L1 → Sandbox L2/);
  assert.match((await page.textContent("[data-step=minted]"))!, /Minted on Sandbox L2/);
  const links = await page.$$eval("#timeline a, #chains a", (as: any[]) => as.map((a) => a.getAttribute("href")));
  if (!explorers) return void assert.deepEqual(links, [], "no explorer configured: no links");
  const mint = await page.getAttribute("[data-step=minted] a", "href");
  assert.match(mint!, /^https:\/\/l2\.explorer\.test\/tx\/0x[0-9a-f]{64}$/);
  assert.match((await page.getAttribute("[data-step=signed] a", "href"))!, /^https:\/\/l1\.explorer\.test\/tx\/0x/);
  assert.ok(links.includes(EXPLORERS[31337]) && links.includes(EXPLORERS[31338]), `explorers listed: ${links}`);
  assert.ok(
    links.some((l: string) => /^https:\/\/l1\.explorer\.test\/address\/0x/.test(l)),
    "the vault links to it",
  );
}

/** Opens the portal in a fresh browser context (no localStorage) with development wallet `wallet`. */
async function freshPortal(
  browser: Browser,
  url: string,
  wallet: string,
): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ viewport: DESKTOP });
  const page = await ctx.newPage();
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]", { timeout: WAIT });
  assert.match((await page.textContent("#history"))!, /No transfers yet/, "a fresh profile knows nothing itself");
  await page.selectOption("#wallet-choice", wallet);
  await page.click("#connect");
  return { ctx, page };
}

export async function freshProfileHistory(browser: Browser, url: string): Promise<void> {
  const same = await freshPortal(browser, url, "dev:0");
  await same.page.waitForFunction(() => document.querySelectorAll("#history [data-transfer]").length === 2, null, {
    timeout: WAIT,
  });
  const rows = (await same.page.$$eval("#history [data-transfer]", (trs: any[]) =>
    trs.map((tr) => tr.textContent),
  )) as string[];
  assert.match(rows[0], /Withdrawal.*2\.5 USD/s, "newest first");
  assert.match(rows[1], /Deposit.*12\.5 USD.*Complete/s);
  await same.page.click("#history [data-follow] >> nth=1");
  await same.page.waitForSelector("#timeline [data-step=minted][data-state=done]", { timeout: WAIT });
  assert.equal(await same.page.getAttribute("#transfer-status", "data-status"), "minted");
  const ids = (await same.page.$$eval("#history [data-transfer]", (trs: any[]) =>
    trs.map((tr) => tr.dataset.transfer),
  )) as string[];
  await same.ctx.close();

  // another wallet: its own fresh profile lists none of them, and its signed read gets none by id either
  const other = await freshPortal(browser, url, "dev:1");
  await other.page.waitForFunction(
    () =>
      Object.keys(localStorage).some((k) => k.startsWith("bridge-portal-read:")) &&
      document.getElementById("history-note").textContent === "",
    null,
    { timeout: WAIT },
  );
  assert.match((await other.page.textContent("#history"))!, /No transfers yet/);
  const statuses = (await other.page.evaluate(async (list: string[]) => {
    const key = Object.keys(localStorage).find((k) => k.startsWith("bridge-portal-read:"))!;
    const read = JSON.parse(localStorage.getItem(key)!);
    const headers = {
      "x-wallet-address": read.address,
      "x-wallet-valid-until": read.validUntil,
      "x-wallet-signature": read.signature,
    };
    const out: number[] = [];
    for (const id of list) out.push((await fetch(`/api/v1/transfer/${id}`, { headers })).status);
    const all = (await (await fetch("/api/v1/transfers", { headers })).json()) as { transfers: unknown[] };
    return { byId: out, listed: all.transfers.length };
  }, ids)) as { byId: number[]; listed: number };
  assert.deepEqual(statuses, { byId: [404, 404], listed: 0 }, "another wallet reads none of them");
  await other.ctx.close();
}
