// The exchange app (/exchange): log in with a phone and a one-time code, browse assets by rail, category
// and search, an asset's quote, chart ranges and book, buy and sell (market and limit) with every refusal in
// words, the portfolio with its lots and restriction dates, transactions, the account and funding. Hash
// routes: #/login, #/assets?rail=&category=&q=, #/asset/<id>, #/portfolio, #/transactions, #/account; one
// file per page in pages/, the shared frame in shell.ts.
import "../style.css";
import "./exchange.css";
import { h } from "../dom";
import { currentSession, loadSession, publicGet, setOnExpired, type Rail } from "./api";
import { accountPage } from "./pages/account";
import { assetPage } from "./pages/asset";
import { assetsPage } from "./pages/assets";
import { loginPage } from "./pages/login";
import { portfolioPage } from "./pages/portfolio";
import { transactionsPage } from "./pages/transactions";
import { app, leavePage, main, mountFrame, onScreen, page, renderHeader, type WebConfig } from "./shell";

/** Renders the page of the current hash; main's data-route names it once its first data has loaded. */
async function route(): Promise<void> {
  leavePage();
  const seq = ++app.seq;
  delete main.dataset.route;
  const hash = location.hash.replace(/^#/, "") || (currentSession() ? "/assets" : "/login");
  const [path, qs = ""] = hash.split("?");
  renderHeader(path);
  await render(path, new URLSearchParams(qs));
  if (onScreen(seq)) main.dataset.route = hash;
}

async function render(path: string, params: URLSearchParams): Promise<void> {
  if (path === "/login") return loginPage(params);
  if (path === "/assets") return assetsPage(params);
  const asset = /^\/asset\/([^/]+)$/.exec(path);
  if (asset) return assetPage(decodeURIComponent(asset[1]));
  if (path === "/portfolio") return portfolioPage();
  if (path === "/transactions") return transactionsPage(params);
  if (path === "/account") return accountPage(params);
  page("Page not found", h("p", {}, "There is no such page. ", h("a", { href: "#/assets" }, "Go to the assets"), "."));
}

async function boot(): Promise<void> {
  mountFrame(document.getElementById("app")!);
  loadSession();
  setOnExpired(() => {
    if (!location.hash.startsWith("#/login"))
      location.hash = `#/login?next=${encodeURIComponent(location.hash.slice(1))}`;
  });
  try {
    app.config = (await (await fetch("/config.json")).json()) as WebConfig;
  } catch {
    /* production defaults: no sandbox hint */
  }
  try {
    app.rails = (await publicGet<{ rails: Rail[] }>("/navigation")).rails;
  } catch {
    app.rails = [];
  }
  window.addEventListener("hashchange", () => void route());
  await route();
}

void boot();
