// The chosen market's data panels: the markets list (Last, 24 h change and volume from the public summary,
// updated in place), the ticker, the live book, the recent trades and the candle chart.
import { explain, getJson, marketSummary, type ApiTicker, type ApiTrade } from "./api";
import { CandleChart, CANDLE_INTERVALS, type CandleInterval } from "./chart";
import { h, replace, thead } from "./dom";
import type { Panels } from "./layout";
import { dec, time, type AppState } from "./state";

type SummaryField = "last" | "change24h" | "volume24h";

export function summaryText(t: ApiTicker | undefined, field: SummaryField): string {
  if (!t) return "—";
  if (field === "change24h")
    return t.change24h === null ? "—" : `${t.change24h.startsWith("-") ? "" : "+"}${t.change24h}%`;
  if (field === "volume24h") return t.volume24h;
  return t.last ?? "—";
}

export class MarketView {
  private tickerTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly state: AppState,
    private readonly p: Panels,
  ) {}

  async renderMarkets() {
    const info = this.state.info!;
    const rows = await marketSummary().catch(() => new Map<string, ApiTicker>());
    const cell = (symbol: string, field: "last" | "change24h" | "volume24h", text: string) =>
      h("td", { "data-symbol": symbol, "data-field": field, class: "num" }, text);
    replace(
      this.p.markets,
      h("h2", { id: "markets-h" }, "Markets"),
      info.markets.length === 0
        ? h("p", { class: "empty" }, "No market is listed yet.")
        : h(
            "table",
            {},
            thead(["Market", "Last", "24 h", "24 h volume"]),
            h(
              "tbody",
              {},
              info.markets.map((m) =>
                h(
                  "tr",
                  { class: this.state.market?.symbol === m.symbol ? "selected" : "" },
                  h(
                    "td",
                    {},
                    h(
                      "a",
                      {
                        href: `#/market/${m.symbol}`,
                        "aria-current": this.state.market?.symbol === m.symbol ? "page" : null,
                      },
                      m.symbol,
                    ),
                  ),
                  cell(m.symbol, "last", summaryText(rows.get(m.symbol), "last")),
                  cell(m.symbol, "change24h", summaryText(rows.get(m.symbol), "change24h")),
                  cell(m.symbol, "volume24h", summaryText(rows.get(m.symbol), "volume24h")),
                ),
              ),
            ),
          ),
    );
  }

  /** Updates the markets list's numbers in place (no row rebuilt: a focused link stays focused). */
  updateMarketCells(rows: Map<string, ApiTicker>) {
    for (const td of this.p.markets.querySelectorAll<HTMLElement>("td[data-symbol]")) {
      const text = summaryText(rows.get(td.dataset.symbol!), td.dataset.field as SummaryField);
      if (td.textContent !== text) td.textContent = text;
    }
  }

  renderTicker() {
    const m = this.state.market;
    if (!m) return replace(this.p.ticker, h("p", {}, "Choose a market."));
    const bid = this.state.book?.best("bid") ?? null;
    const ask = this.state.book?.best("ask") ?? null;
    const last = this.state.lastTrade ? dec(this.state.lastTrade.price) : (this.state.ticker?.last ?? "—");
    replace(
      this.p.ticker,
      h("h2", { id: "market-h" }, m.symbol),
      h(
        "dl",
        {},
        h("div", {}, h("dt", {}, "Last"), h("dd", { id: "ticker-last" }, last)),
        h("div", {}, h("dt", {}, "Bid"), h("dd", {}, bid === null ? "—" : dec(bid))),
        h("div", {}, h("dt", {}, "Ask"), h("dd", {}, ask === null ? "—" : dec(ask))),
        h(
          "div",
          {},
          h("dt", {}, "24 h change"),
          h("dd", { id: "ticker-change" }, summaryText(this.state.ticker ?? undefined, "change24h")),
        ),
        h("div", {}, h("dt", {}, `24 h volume (${m.base.symbol})`), h("dd", {}, this.state.ticker?.volume24h ?? "—")),
        h("div", {}, h("dt", {}, "Tick · lot"), h("dd", {}, `${m.tick_size} · ${m.lot_size}`)),
      ),
    );
  }

  renderBook() {
    const m = this.state.market;
    const b = this.state.book;
    const header = h("h2", { id: "book-h" }, "Order book");
    if (!m) return replace(this.p.book, header);
    if (!b?.synced) return replace(this.p.book, header, h("p", { class: "loading" }, "Loading the live book…"));
    const asks = b.depthRows("ask").slice(0, 12).reverse();
    const bids = b.depthRows("bid").slice(0, 12);
    const row = (side: "bid" | "ask") => (r: { price: string; size: string; total: string }) =>
      h("tr", { class: side, "data-price": r.price }, h("td", {}, r.price), h("td", {}, r.size), h("td", {}, r.total));
    replace(
      this.p.book,
      header,
      asks.length + bids.length === 0 ? h("p", { class: "empty" }, "The book is empty: place the first order.") : null,
      h(
        "table",
        { "aria-label": `${m.symbol} order book, sequence ${b.sequence}`, "data-sequence": String(b.sequence) },
        thead([`Price (${m.quote.symbol})`, `Size (${m.base.symbol})`, "Total"]),
        h("tbody", { class: "asks" }, asks.map(row("ask"))),
        h("tbody", { class: "bids" }, bids.map(row("bid"))),
      ),
    );
  }

  renderTrades() {
    const header = h("h2", { id: "trades-h" }, "Recent trades");
    const m = this.state.market;
    if (!m) return replace(this.p.trades, header);
    replace(
      this.p.trades,
      header,
      this.state.trades.length === 0
        ? h("p", { class: "empty" }, "No trade yet.")
        : h(
            "table",
            {},
            thead(["Price", "Size", "Time"]),
            h(
              "tbody",
              {},
              this.state.trades
                .slice(0, 30)
                .map((t) =>
                  h(
                    "tr",
                    { class: t.side === "buy" ? "bid" : "ask", "data-trade-id": t.trade_id },
                    h("td", {}, dec(t.price)),
                    h("td", {}, dec(t.size)),
                    h("td", {}, time(t.timestamp)),
                  ),
                ),
            ),
          ),
    );
  }

  async loadTrades() {
    if (!this.state.market) return;
    const symbol = this.state.market.symbol;
    try {
      const r = await getJson<{ trades: ApiTrade[] }>(`/v1/trades?symbol=${encodeURIComponent(symbol)}&limit=50`);
      if (this.state.market?.symbol !== symbol) return;
      this.state.trades = r.trades;
      this.renderTrades();
    } catch (err) {
      replace(this.p.trades, h("h2", { id: "trades-h" }, "Recent trades"), h("p", { class: "error" }, explain(err)));
    }
  }

  refreshTickerSoon() {
    if (this.tickerTimer) return;
    this.tickerTimer = setTimeout(async () => {
      this.tickerTimer = null;
      if (!this.state.market) return;
      const rows = await marketSummary().catch(() => null);
      if (!rows) return;
      this.updateMarketCells(rows);
      this.state.ticker = rows.get(this.state.market.symbol) ?? this.state.ticker;
      this.renderTicker();
    }, 1000);
  }

  renderChartPanel() {
    const select = h("select", { id: "interval" }) as HTMLSelectElement;
    for (const i of CANDLE_INTERVALS) select.append(h("option", { value: i, selected: i === this.state.interval }, i));
    select.addEventListener("change", () => {
      this.state.interval = select.value as CandleInterval;
      void this.state.chart?.load(this.state.market!, this.state.interval);
    });
    const host = h("div", { class: "chart", id: "chart" });
    const note = h("p", { class: "chart-note" });
    const legend = h("p", { class: "chart-legend", id: "chart-legend", "aria-live": "off" });
    replace(
      this.p.chart,
      h(
        "div",
        { class: "panel-head" },
        h("h2", { id: "chart-h" }, "Candles"),
        h("label", { for: "interval" }, "Interval"),
        select,
      ),
      legend,
      host,
      note,
    );
    this.state.chart?.destroy();
    this.state.chart = new CandleChart(host, note, legend);
    if (this.state.market) void this.state.chart.load(this.state.market, this.state.interval);
  }
}
