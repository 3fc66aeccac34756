// The page's skeleton: the header (feed status, wallet, link to the exchange app) and the panels each
// module fills. Built once; the panels are replaced inside, never the skeleton. On a phone (style.css) the
// chart, the book and the order form are tabs under the ticker, and the markets list follows them.
import { h } from "./dom";

export interface Panels {
  status: HTMLElement;
  walletArea: HTMLElement;
  markets: HTMLElement;
  ticker: HTMLElement;
  chart: HTMLElement;
  book: HTMLElement;
  trades: HTMLElement;
  order: HTMLElement;
  account: HTMLElement;
  apiKeys: HTMLElement;
}

export function buildLayout(app: HTMLElement): Panels {
  const p: Panels = {
    status: h("p", { class: "status", role: "status", "aria-live": "polite", id: "feed-status" }, "Loading…"),
    walletArea: h("div", { class: "wallet-area" }),
    markets: h("section", { class: "panel markets", "aria-labelledby": "markets-h" }),
    ticker: h("section", { class: "ticker", "aria-label": "Ticker", id: "ticker" }),
    chart: h("section", { class: "panel chart-panel", "aria-labelledby": "chart-h", id: "chart-panel" }),
    book: h("section", { class: "panel book", "aria-labelledby": "book-h", id: "book" }),
    trades: h("section", { class: "panel trades", "aria-labelledby": "trades-h", id: "trades", tabindex: "0" }),
    order: h("section", { class: "panel order-form", "aria-labelledby": "order-h", id: "order-form" }),
    account: h("section", { class: "panel account", "aria-labelledby": "account-h", id: "account" }),
    apiKeys: h("section", { class: "panel account api-keys", "aria-labelledby": "api-keys-h", id: "api-keys-panel" }),
  };
  const grid = h("div", { class: "grid", "data-tab": "trade" }, p.chart, p.book, p.trades, p.order);
  app.append(
    h(
      "header",
      { class: "top" },
      h("h1", {}, "DEX"),
      p.status,
      p.walletArea,
      h("a", { href: "/exchange", class: "other-app", id: "exchange-link" }, "Exchange app"),
    ),
    h(
      "main",
      { id: "main" },
      p.markets,
      h("div", { class: "market-view" }, p.ticker, viewTabs(grid), grid, p.account, p.apiKeys),
    ),
  );
  return p;
}

export function setStatus(p: Panels, text: string, kind: "ok" | "warn" | "error" = "ok"): void {
  p.status.textContent = text;
  p.status.dataset.kind = kind;
}

const TABS = [
  { tab: "chart", label: "Chart", controls: "chart-panel" },
  { tab: "book", label: "Book", controls: "book trades" },
  { tab: "trade", label: "Trade", controls: "order-form" },
] as const;

/** The phone's tabs (hidden on a wide screen, where every panel shows): the grid shows its `data-tab`. */
function viewTabs(grid: HTMLElement): HTMLElement {
  const buttons = TABS.map((t) =>
    h(
      "button",
      {
        type: "button",
        role: "tab",
        id: `tab-${t.tab}`,
        "data-tab": t.tab,
        "aria-controls": t.controls,
        "aria-selected": String(grid.dataset.tab === t.tab),
        onclick: () => {
          grid.dataset.tab = t.tab;
          for (const b of buttons) b.setAttribute("aria-selected", String(b.dataset.tab === t.tab));
        },
      },
      t.label,
    ),
  );
  return h("div", { class: "view-tabs", role: "tablist", "aria-label": "Market view" }, buttons);
}
