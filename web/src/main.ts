// The DEX trading app: markets, a market's live book / trades / candles / ticker, the order form that
// shows what the wallet signs, and the account (balances, deposit, withdrawal, open orders, history).
import "./style.css";
import type { Chain, PublicClient } from "viem";
import { numberToDecimalString, parseDecimal } from "../../sdk/decimal";
import {
  explain,
  getJson,
  getMarkets,
  marketSummary,
  placeOrder,
  signedRequest,
  syncClock,
  type ApiOrder,
  type ApiTicker,
  type ApiTrade,
} from "./api";
import { ApiKeysPanel } from "./apikeys";
import {
  cancelWithdrawal,
  deposit,
  executeWithdrawal,
  loadAccount,
  requestWithdrawal,
  tokensOf,
  units,
  type AccountState,
} from "./account";
import type { LiveBook } from "./book";
import { CandleChart, CANDLE_INTERVALS, type CandleInterval } from "./chart";
import { field, h, replace } from "./dom";
import { Feed, type FeedTrade } from "./feed";
import { amountText, DEFAULT_SLIPPAGE_BPS, estimate, groupDigits, worstPrice } from "./estimate";
import { group, shortHash } from "./format";
import { buildOrder, freshNonce, withSignature, type MarketInfo, type MarketsInfo, type OrderForm } from "./order";
import {
  INTEGRATOR_LABEL,
  developmentWallet,
  discoverExtensions,
  extensionWallet,
  homeChain,
  publicClient,
  type ConnectedWallet,
} from "./wallet";

interface WebConfig {
  chainId: number;
  mode: "sandbox" | "production";
  /** sandbox only: the demo traders' (public Hardhat) keys for the development wallet */
  devWalletKeys: `0x${string}`[];
  /** sandbox: the integrator's wallet, offered first (the simulator never trades it) */
  integratorKey?: `0x${string}`;
}

const dec = (n: number | null | undefined) => (n === null || n === undefined ? "—" : (numberToDecimalString(n) ?? "—"));
const time = (ms: number) => new Date(ms).toLocaleTimeString();

const state = {
  config: null as WebConfig | null,
  info: null as MarketsInfo | null,
  chain: null as Chain | null,
  pub: null as PublicClient | null,
  market: null as MarketInfo | null,
  wallet: null as ConnectedWallet | null,
  trades: [] as FeedTrade[],
  lastTrade: null as FeedTrade | null,
  ticker: null as ApiTicker | null,
  account: null as AccountState | null,
  accountError: "",
  accountLoading: false,
  book: null as LiveBook | null,
  feed: null as Feed | null,
  chart: null as CandleChart | null,
  interval: "1m" as CandleInterval,
};

// ------------------------------------------------------------------ skeleton

const app = document.getElementById("app")!;
const status = h("p", { class: "status", role: "status", "aria-live": "polite", id: "feed-status" }, "Loading…");
const walletArea = h("div", { class: "wallet-area" });
const marketsPanel = h("section", { class: "panel markets", "aria-labelledby": "markets-h" });
const tickerBar = h("section", { class: "ticker", "aria-label": "Ticker", id: "ticker" });
const chartPanel = h("section", { class: "panel chart-panel", "aria-labelledby": "chart-h" });
const bookPanel = h("section", { class: "panel book", "aria-labelledby": "book-h", id: "book" });
const tradesPanel = h("section", { class: "panel trades", "aria-labelledby": "trades-h", id: "trades", tabindex: "0" });
const orderPanel = h("section", { class: "panel order-form", "aria-labelledby": "order-h", id: "order-form" });
const accountPanel = h("section", { class: "panel account", "aria-labelledby": "account-h", id: "account" });
const apiKeysSection = h("section", {
  class: "panel account api-keys",
  "aria-labelledby": "api-keys-h",
  id: "api-keys-panel",
});
const apiKeys = new ApiKeysPanel(apiKeysSection);

app.append(
  h(
    "header",
    { class: "top" },
    h("h1", {}, "DEX"),
    status,
    walletArea,
    h("a", { href: "/exchange", class: "other-app", id: "exchange-link" }, "Exchange app"),
  ),
  h(
    "main",
    { id: "main" },
    marketsPanel,
    h(
      "div",
      { class: "market-view" },
      tickerBar,
      h("div", { class: "grid" }, chartPanel, bookPanel, tradesPanel, orderPanel),
      accountPanel,
      apiKeysSection,
    ),
  ),
);

function setStatus(text: string, kind: "ok" | "warn" | "error" = "ok") {
  status.textContent = text;
  status.dataset.kind = kind;
}

// ------------------------------------------------------------------ markets and market data

async function renderMarkets() {
  const info = state.info!;
  const rows = await marketSummary().catch(() => new Map<string, ApiTicker>());
  const cell = (symbol: string, field: "last" | "change24h" | "volume24h", text: string) =>
    h("td", { "data-symbol": symbol, "data-field": field, class: "num" }, text);
  replace(
    marketsPanel,
    h("h2", { id: "markets-h" }, "Markets"),
    info.markets.length === 0
      ? h("p", { class: "empty" }, "No market is listed yet.")
      : h(
          "table",
          {},
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col" }, "Market"),
              h("th", { scope: "col" }, "Last"),
              h("th", { scope: "col" }, "24 h"),
              h("th", { scope: "col" }, "24 h volume"),
            ),
          ),
          h(
            "tbody",
            {},
            info.markets.map((m) =>
              h(
                "tr",
                { class: state.market?.symbol === m.symbol ? "selected" : "" },
                h(
                  "td",
                  {},
                  h(
                    "a",
                    { href: `#/market/${m.symbol}`, "aria-current": state.market?.symbol === m.symbol ? "page" : null },
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

function summaryText(t: ApiTicker | undefined, field: "last" | "change24h" | "volume24h"): string {
  if (!t) return "—";
  if (field === "change24h")
    return t.change24h === null ? "—" : `${t.change24h.startsWith("-") ? "" : "+"}${t.change24h}%`;
  if (field === "volume24h") return t.volume24h;
  return t.last ?? "—";
}

/** Updates the markets list's numbers in place (no row rebuilt: a focused link stays focused). */
function updateMarketCells(rows: Map<string, ApiTicker>) {
  for (const td of marketsPanel.querySelectorAll<HTMLElement>("td[data-symbol]")) {
    const text = summaryText(rows.get(td.dataset.symbol!), td.dataset.field as "last" | "change24h" | "volume24h");
    if (td.textContent !== text) td.textContent = text;
  }
}

function renderTicker() {
  const m = state.market;
  if (!m) return replace(tickerBar, h("p", {}, "Choose a market."));
  const bid = state.book?.best("bid") ?? null;
  const ask = state.book?.best("ask") ?? null;
  const last = state.lastTrade ? dec(state.lastTrade.price) : (state.ticker?.last ?? "—");
  replace(
    tickerBar,
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
        h("dd", { id: "ticker-change" }, summaryText(state.ticker ?? undefined, "change24h")),
      ),
      h("div", {}, h("dt", {}, `24 h volume (${m.base.symbol})`), h("dd", {}, state.ticker?.volume24h ?? "—")),
      h("div", {}, h("dt", {}, "Tick · lot"), h("dd", {}, `${m.tick_size} · ${m.lot_size}`)),
    ),
  );
}

function renderBook() {
  const m = state.market;
  const b = state.book;
  const header = h("h2", { id: "book-h" }, "Order book");
  if (!m) return replace(bookPanel, header);
  if (!b?.synced) return replace(bookPanel, header, h("p", { class: "loading" }, "Loading the live book…"));
  const asks = b.depthRows("ask").slice(0, 12).reverse();
  const bids = b.depthRows("bid").slice(0, 12);
  const row = (side: "bid" | "ask") => (r: { price: string; size: string; total: string }) =>
    h("tr", { class: side, "data-price": r.price }, h("td", {}, r.price), h("td", {}, r.size), h("td", {}, r.total));
  replace(
    bookPanel,
    header,
    asks.length + bids.length === 0 ? h("p", { class: "empty" }, "The book is empty: place the first order.") : null,
    h(
      "table",
      { "aria-label": `${m.symbol} order book, sequence ${b.sequence}`, "data-sequence": String(b.sequence) },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, `Price (${m.quote.symbol})`),
          h("th", { scope: "col" }, `Size (${m.base.symbol})`),
          h("th", { scope: "col" }, "Total"),
        ),
      ),
      h("tbody", { class: "asks" }, asks.map(row("ask"))),
      h("tbody", { class: "bids" }, bids.map(row("bid"))),
    ),
  );
}

function renderTrades() {
  const header = h("h2", { id: "trades-h" }, "Recent trades");
  const m = state.market;
  if (!m) return replace(tradesPanel, header);
  replace(
    tradesPanel,
    header,
    state.trades.length === 0
      ? h("p", { class: "empty" }, "No trade yet.")
      : h(
          "table",
          {},
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col" }, "Price"),
              h("th", { scope: "col" }, "Size"),
              h("th", { scope: "col" }, "Time"),
            ),
          ),
          h(
            "tbody",
            {},
            state.trades
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

async function loadTrades() {
  if (!state.market) return;
  const symbol = state.market.symbol;
  try {
    const r = await getJson<{ trades: ApiTrade[] }>(`/v1/trades?symbol=${encodeURIComponent(symbol)}&limit=50`);
    if (state.market?.symbol !== symbol) return;
    state.trades = r.trades;
    renderTrades();
  } catch (err) {
    replace(tradesPanel, h("h2", { id: "trades-h" }, "Recent trades"), h("p", { class: "error" }, explain(err)));
  }
}

let tickerTimer: ReturnType<typeof setTimeout> | null = null;
function refreshTickerSoon() {
  if (tickerTimer) return;
  tickerTimer = setTimeout(async () => {
    tickerTimer = null;
    if (!state.market) return;
    const rows = await marketSummary().catch(() => null);
    if (!rows) return;
    updateMarketCells(rows);
    state.ticker = rows.get(state.market.symbol) ?? state.ticker;
    renderTicker();
  }, 1000);
}

function renderChartPanel() {
  const select = h("select", { id: "interval" }) as HTMLSelectElement;
  for (const i of CANDLE_INTERVALS) select.append(h("option", { value: i, selected: i === state.interval }, i));
  select.addEventListener("change", () => {
    state.interval = select.value as CandleInterval;
    void state.chart?.load(state.market!, state.interval);
  });
  const host = h("div", { class: "chart", id: "chart" });
  const note = h("p", { class: "chart-note" });
  replace(
    chartPanel,
    h(
      "div",
      { class: "panel-head" },
      h("h2", { id: "chart-h" }, "Candles"),
      h("label", { for: "interval" }, "Interval"),
      select,
    ),
    host,
    note,
  );
  state.chart?.destroy();
  state.chart = new CandleChart(host, note);
  if (state.market) void state.chart.load(state.market, state.interval);
}

// ------------------------------------------------------------------ order form

const form = {
  side: "buy" as "buy" | "sell",
};
let orderFormLive: () => void = () => {};
let fillPrice: (price: string) => void = () => {};
bookPanel.addEventListener("click", (ev) => {
  const row = (ev.target as Element).closest?.("tr[data-price]") as HTMLElement | null;
  if (row?.dataset.price) fillPrice(row.dataset.price);
});

function renderOrderForm() {
  const m = state.market;
  const info = state.info;
  if (!m || !info) return replace(orderPanel);
  const typeSel = h("select", { name: "type" }) as HTMLSelectElement;
  for (const t of m.order_types)
    typeSel.append(h("option", { value: t.type, selected: t.type === "limit" }, t.type.replace(/_/g, " ")));
  const tifSel = h("select", { name: "time_in_force" }) as HTMLSelectElement;
  const input = (name: string, mode = "decimal") =>
    h("input", { name, inputmode: mode, autocomplete: "off" }) as HTMLInputElement;
  const price = input("price");
  const trigger = input("trigger_price");
  const protection = input("protection_price");
  const size = input("size");
  const iceberg = input("iceberg_visible_size");
  const hidden = h("input", { type: "checkbox", name: "hidden", id: "hidden" }) as HTMLInputElement;
  const expires = h("input", { type: "datetime-local", name: "expires_at" }) as HTMLInputElement;
  const fPrice = field(`Limit price (${m.quote.symbol})`, price, `rounded to the tick, ${m.tick_size}`);
  const fTrigger = field(
    `Trigger price (${m.quote.symbol})`,
    trigger,
    "the order enters the book when the last trade reaches it",
  );
  const fProt = field(
    `Worst price (${m.quote.symbol})`,
    protection,
    "the limit your signature allows: no fill beyond it",
  );
  const estimateLine = h("p", { class: "estimate", id: "order-estimate" });
  // the worst price follows the book (best opposite price + the default slippage) until the user types one
  protection.addEventListener("input", () => (protection.dataset.typed = protection.value.trim() === "" ? "" : "1"));
  const fSize = field(`Size (${m.base.symbol})`, size, `rounded down to the lot, ${m.lot_size}; min ${m.min_size}`);
  const fIce = field(
    `Iceberg visible size (${m.base.symbol}, optional)`,
    iceberg,
    "only this much shows in the book at a time",
  );
  const fExp = field("Expires at (good till date)", expires);
  const fType = field("Order type", typeSel);
  const fTif = field("Time in force", tifSel);
  const preview = h("pre", {
    class: "signed-preview",
    id: "signed-preview",
    tabindex: "0",
    "aria-label": "What the wallet signs",
  });
  const result = h("p", { class: "result", role: "status", "aria-live": "polite", id: "order-result" });
  const submit = h(
    "button",
    { type: "submit", class: "primary", id: "place-order" },
    "Sign and place",
  ) as HTMLButtonElement;
  const sideButtons = (["buy", "sell"] as const).map((s) =>
    h(
      "button",
      {
        type: "button",
        class: `side ${s}`,
        "aria-pressed": String(form.side === s),
        onclick: () => (
          (form.side = s),
          update(),
          sideButtons.forEach((b, i) => b.setAttribute("aria-pressed", String(["buy", "sell"][i] === s)))
        ),
      },
      s === "buy" ? "Buy" : "Sell",
    ),
  );

  const read = (): OrderForm => ({
    side: form.side,
    type: typeSel.value,
    timeInForce: tifSel.value,
    price: price.value,
    triggerPrice: trigger.value,
    protectionPrice: protection.value,
    size: size.value,
    hidden: hidden.checked,
    icebergVisibleSize: iceberg.value,
    expiresAtMs: expires.value ? new Date(expires.value).getTime() : null,
  });
  const fields = {
    price: fPrice,
    triggerPrice: fTrigger,
    protectionPrice: fProt,
    size: fSize,
    icebergVisibleSize: fIce,
    expiresAt: fExp,
    type: fType,
  };

  let shownType = "";
  function update(showErrors = false) {
    const rule = m!.order_types.find((t) => t.type === typeSel.value)!;
    // a new type starts at its default time in force (the first the market lists)
    const current = typeSel.value === shownType ? tifSel.value : rule.time_in_force[0];
    shownType = typeSel.value;
    tifSel.replaceChildren(...rule.time_in_force.map((t) => h("option", { value: t, selected: t === current }, t)));
    fPrice.wrap.hidden = !rule.price;
    fTrigger.wrap.hidden = !rule.trigger_price;
    fProt.wrap.hidden = rule.price;
    fExp.wrap.hidden = tifSel.value !== "gtd";
    if (!rule.price) defaultWorstPrice();
    for (const f of Object.values(fields)) f.error.textContent = "";
    estimateLine.textContent = "";
    if (!state.wallet) {
      preview.textContent = "Connect a wallet to see the order it will sign.";
      return null;
    }
    const built = buildOrder(info!, m!, read(), {
      trader: state.wallet.address,
      nowMs: Date.now(),
      nonce: freshNonce(Date.now(), Math.random()),
    });
    if (!built.ok) {
      if (showErrors)
        for (const [k, msg] of Object.entries(built.errors))
          fields[k as keyof typeof fields].error.textContent = msg ?? "";
      preview.textContent = "Fill in the order to see what the wallet signs.";
      return null;
    }
    const o = built.order;
    const msg = o.message;
    const e = estimate(m!, form.side, o.rounded.signedPrice, o.rounded.size);
    if (e) {
      const bound = o.rounded.price === null ? "at most " : "";
      estimateLine.textContent = `Estimated ${form.side === "buy" ? "cost" : "proceeds"}: ${bound}${amountText(e.cost, m!.quote.symbol)} · fee: ${bound}${amountText(e.fee, e.feeToken)} (taker ${m!.fees.taker_bps} bps, taken from what you receive; maker ${m!.fees.maker_bps} bps)`;
    }
    preview.textContent = [
      `EIP-712 "${info!.eip712.domain.name}" v${info!.eip712.domain.version}, chain ${info!.eip712.domain.chainId}, contract ${info!.eip712.domain.verifyingContract}`,
      `Order {`,
      `  trader:     ${msg.trader}`,
      `  baseToken:  ${msg.baseToken} (${m!.base.symbol})`,
      `  quoteToken: ${msg.quoteToken} (${m!.quote.symbol})`,
      `  side:       ${msg.side} (${form.side})`,
      `  price:      ${msg.price} (= ${o.rounded.signedPrice} ${m!.quote.symbol} per ${m!.base.symbol}${o.rounded.price === null ? ", worst price" : ""})`,
      `  amount:     ${msg.amount} (= ${o.rounded.size} ${m!.base.symbol})`,
      `  expiry:     ${msg.expiry} (${new Date(Number(msg.expiry) * 1000).toISOString()})`,
      `  nonce:      ${msg.nonce}`,
      `  flags:      ${msg.flags}${msg.flags ? " (post only)" : ""}`,
      `}`,
      `sent with: ${JSON.stringify(o.body)}`,
    ].join("\n");
    return o;
  }

  function defaultWorstPrice() {
    if (protection.dataset.typed === "1") return;
    const ref = state.book?.best(form.side === "buy" ? "ask" : "bid") ?? state.lastTrade?.price ?? null;
    const worst = ref === null ? null : worstPrice(form.side, numberToDecimalString(ref) ?? "", m!.tick_size);
    protection.value = worst ?? "";
    fProt.hint.textContent = worst
      ? `default: ${DEFAULT_SLIPPAGE_BPS / 100} % beyond the best ${form.side === "buy" ? "ask" : "bid"} (${groupDigits(numberToDecimalString(ref!) ?? "")}); no fill beyond it`
      : "the book is empty on that side: type the worst price your signature allows";
  }
  // live data: the default worst price follows the book without clearing the refusals on the form
  orderFormLive = () => {
    if (m!.order_types.find((t) => t.type === typeSel.value)?.price !== false || protection.dataset.typed === "1")
      return;
    update(formEl.querySelector(".field-error:not(:empty)") !== null);
  };
  // a price clicked in the book: the limit price, or the worst price of a type without one
  fillPrice = (p: string) => {
    const rule = m!.order_types.find((t) => t.type === typeSel.value)!;
    const target = rule.price ? price : protection;
    target.value = p;
    if (!rule.price) protection.dataset.typed = "1";
    update();
  };

  const formEl = h(
    "form",
    { novalidate: true, "aria-describedby": "order-result" },
    h("div", { class: "sides", role: "group", "aria-label": "Side" }, sideButtons),
    fType.wrap,
    fTif.wrap,
    fPrice.wrap,
    fTrigger.wrap,
    fProt.wrap,
    fSize.wrap,
    h(
      "div",
      { class: "field checkbox" },
      hidden,
      h("label", { for: "hidden" }, "Hidden (rests off the displayed book)"),
    ),
    fIce.wrap,
    fExp.wrap,
    estimateLine,
    submit,
    h("details", {}, h("summary", {}, "What the wallet signs"), preview),
    result,
  );
  formEl.addEventListener("input", () => update());
  formEl.addEventListener("change", () => update());
  formEl.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    result.textContent = "";
    result.dataset.kind = "";
    if (!state.wallet) {
      result.textContent = "Connect a wallet first.";
      result.dataset.kind = "error";
      return;
    }
    const o = update(true);
    if (!o) {
      result.textContent = "The order was not sent: correct the fields marked above.";
      result.dataset.kind = "error";
      (
        formEl
          .querySelector(".field-error:not(:empty)")
          ?.parentElement?.querySelector("input,select") as HTMLElement | null
      )?.focus();
      return;
    }
    submit.disabled = true;
    try {
      result.textContent = "Waiting for the wallet's signature…";
      const signature = await state.wallet.signTypedData({
        domain: info!.eip712.domain,
        types: info!.eip712.types,
        primaryType: info!.eip712.primary_type,
        message: o.message as unknown as Record<string, unknown>,
      });
      result.textContent = "Placing…";
      const placed = await placeOrder(withSignature(o, signature));
      const ended = ["cancelled", "rejected", "expired"].includes(placed.status) && placed.filled_size === 0;
      result.textContent = `Order ${placed.order_id.slice(0, 8)} ${placed.status.replace(/_/g, " ")}${placed.status_reason ? ` (${placed.status_reason.replace(/_/g, " ")})` : ""}: ${placed.side} ${dec(placed.size)} ${m!.base.symbol}${placed.price !== null ? ` at ${dec(placed.price)}` : ""}${placed.filled_size > 0 ? `, ${dec(placed.filled_size)} filled` : ""}.`;
      result.dataset.kind = ended ? "error" : "ok";
      result.dataset.orderId = placed.order_id;
      refreshAccountSoon(0);
    } catch (err) {
      result.textContent = `Not placed: ${explain(err)}`;
      result.dataset.kind = "error";
    } finally {
      submit.disabled = false;
    }
  });
  replace(orderPanel, h("h2", { id: "order-h" }, "Place an order"), formEl);
  update();
}

// ------------------------------------------------------------------ account

let accountTimer: ReturnType<typeof setTimeout> | null = null;
function refreshAccountSoon(delayMs = 400) {
  if (!state.wallet?.autoSign) return;
  if (accountTimer) clearTimeout(accountTimer);
  accountTimer = setTimeout(() => void refreshAccount(), delayMs);
}

async function refreshAccount() {
  accountTimer = null;
  const w = state.wallet;
  if (!w || !state.info || !state.pub) return renderAccount();
  state.accountLoading = true;
  renderAccount();
  try {
    const a = await loadAccount(state.info, w, state.pub);
    if (state.wallet !== w) return;
    state.account = a;
    state.accountError = "";
  } catch (err) {
    state.accountError = `The account could not be loaded: ${explain(err)}`;
  } finally {
    state.accountLoading = false;
  }
  renderAccount();
  // while a fill waits for its settlement transaction, or a withdrawal for its delay, look again
  const pending =
    state.account?.history.some((o) => o.fills?.some((f) => f.settlement === "pending")) ||
    state.account?.balances.some((b) => b.pendingUnits > 0n);
  if (pending) refreshAccountSoon(2000);
}

const messages = { funds: { text: "", kind: "" }, cancel: { text: "", kind: "" } };

function amountInput(name: string) {
  return h("input", { name, inputmode: "decimal", autocomplete: "off" }) as HTMLInputElement;
}

// The account panel's parts: the deposit form is built once per wallet and never rebuilt by live data
// (a trade refreshes the balances and orders around it), so an amount being typed keeps its text and focus.
const accountParts = { head: h("div"), top: h("div"), funds: h("div", { id: "funds-box" }), orders: h("div") };
accountPanel.append(accountParts.head, accountParts.top, accountParts.funds, accountParts.orders);
let fundsFor: { wallet: ConnectedWallet; hint: HTMLElement } | null = null;

function showAccount(children: (Node | null)[], orders: (Node | null)[] = []) {
  const [header, ...rest] = children;
  replace(accountParts.head, header);
  replace(accountParts.top, ...rest);
  replace(accountParts.orders, ...orders);
}

function renderAccount() {
  const header = h("div", { class: "panel-head" }, h("h2", { id: "account-h" }, "Account"));
  const w = state.wallet;
  if (!w || !state.account || fundsFor?.wallet !== w) {
    fundsFor = null;
    replace(accountParts.funds);
  }
  if (!w) return showAccount([header, h("p", { class: "empty" }, "Connect a wallet to see balances and orders.")]);
  const refresh = h(
    "button",
    { type: "button", onclick: () => void refreshAccount() },
    w.autoSign ? "Refresh" : "Load (signs a request for each read)",
  );
  header.append(refresh);
  const a = state.account;
  const info = state.info!;
  const children: (Node | null)[] = [
    header,
    h("p", { class: "who" }, `${w.label} · `, h("code", { id: "account-address" }, w.address)),
  ];
  if (state.accountError) children.push(h("p", { class: "error", role: "alert" }, state.accountError));
  if (!a) {
    children.push(
      h("p", { class: "loading" }, state.accountLoading ? "Loading balances and orders…" : "Not loaded yet."),
    );
    return showAccount(children);
  }
  const _tokens = tokensOf(info);
  // balances
  children.push(
    h("h3", {}, "Balances"),
    h(
      "table",
      { id: "balances" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Token"),
          h("th", { scope: "col" }, "Wallet"),
          h("th", { scope: "col" }, "In Settlement (chain)"),
          h("th", { scope: "col" }, "Available"),
          h("th", { scope: "col" }, "In orders"),
          h("th", { scope: "col" }, "Withdrawal pending"),
        ),
      ),
      h(
        "tbody",
        {},
        a.balances.map((b) => {
          const d = b.token.decimals;
          const ready =
            b.pendingUnits > 0n &&
            b.availableAt <= a.chainNowSec + BigInt(Math.floor((Date.now() - a.loadedAt) / 1000));
          return h(
            "tr",
            { "data-token": b.token.symbol },
            h("th", { scope: "row" }, b.token.symbol),
            h("td", { class: "wallet-bal" }, units(b.walletUnits, d)),
            h("td", { class: "settlement-bal" }, units(b.settlementUnits, d)),
            h("td", { class: "available-bal" }, b.api ? group(b.api.available) : "—"),
            h("td", {}, b.api ? group(b.api.locked) : "—"),
            h(
              "td",
              {},
              b.pendingUnits === 0n
                ? "—"
                : [
                    `${units(b.pendingUnits, d)} `,
                    ready
                      ? "(ready to execute)"
                      : `(ready at ${new Date(Number(b.availableAt) * 1000).toLocaleTimeString()}, chain time)`,
                  ],
            ),
          );
        }),
      ),
    ),
  );
  if (!fundsFor) fundsFor = { wallet: w, hint: renderFunds(w) };
  const delayHint = `the withdrawal delay is ${a.withdrawalDelaySec} s: request, wait, then execute`;
  if (fundsFor.hint.textContent !== delayHint) fundsFor.hint.textContent = delayHint;
  showAccount(children, renderOrders(w, a));
}

/** The deposit and withdrawal form, into its own part of the account panel; returns its hint line. */
function renderFunds(w: ConnectedWallet): HTMLElement {
  const info = state.info!;
  const tokens = tokensOf(info);
  const tokenSel = h("select", { name: "token" }) as HTMLSelectElement;
  for (const t of tokens) tokenSel.append(h("option", { value: t.address }, t.symbol));
  const amount = amountInput("amount");
  const fTok = field("Token", tokenSel);
  const fAmt = field("Amount", amount, "");
  // results outlive the re-render that the refresh after each action makes
  const out = h(
    "p",
    { class: "result", role: "status", "aria-live": "polite", id: "funds-result", "data-kind": messages.funds.kind },
    messages.funds.text,
  );
  const say = (el: HTMLElement, key: "funds" | "cancel", text: string, kind = "") => {
    messages[key] = { text, kind };
    el.textContent = text;
    el.dataset.kind = kind;
  };
  const tokenOf = () => tokens.find((t) => t.address === tokenSel.value)!;
  const parsed = (): bigint | null => {
    const t = tokenOf();
    const v = parseDecimal(amount.value.trim(), t.decimals);
    fAmt.error.textContent = "";
    if (amount.value.trim() === "" || v === null || v <= 0n) {
      fAmt.error.textContent = `Enter an amount of ${t.symbol} above zero with at most ${t.decimals} decimals.`;
      return null;
    }
    return v;
  };
  const run = (label: string, fn: () => Promise<`0x${string}`>) => async () => {
    say(out, "funds", `${label}: confirm in the wallet…`);
    try {
      const hash = await fn();
      say(out, "funds", `${label}: done, transaction ${hash}.`, "ok");
      void refreshAccount();
    } catch (err) {
      say(out, "funds", `${label} failed: ${explain(err)}`, "error");
    }
  };
  const withAmount = (label: string, fn: (amt: bigint) => Promise<`0x${string}`>) => () => {
    const v = parsed();
    if (v === null) return;
    void run(label, () => fn(v))();
  };
  const chain = state.chain!;
  const pub = state.pub!;
  replace(
    accountParts.funds,
    h("h3", {}, "Deposit and withdraw"),
    h(
      "div",
      { class: "funds" },
      fTok.wrap,
      fAmt.wrap,
      h(
        "div",
        { class: "buttons" },
        h(
          "button",
          { type: "button", onclick: withAmount("Deposit", (v) => deposit(info, w, pub, chain, tokenOf(), v)) },
          "Deposit",
        ),
        h(
          "button",
          {
            type: "button",
            onclick: withAmount("Withdrawal request", (v) => requestWithdrawal(info, w, pub, chain, tokenOf(), v)),
          },
          "Request withdrawal",
        ),
        h(
          "button",
          { type: "button", onclick: run("Withdrawal", () => executeWithdrawal(info, w, pub, chain, tokenOf())) },
          "Execute withdrawal",
        ),
        h(
          "button",
          { type: "button", onclick: run("Withdrawal cancel", () => cancelWithdrawal(info, w, pub, chain, tokenOf())) },
          "Cancel withdrawal",
        ),
      ),
      out,
    ),
  );
  return fAmt.hint;
}

/** A fill's fee with its unit: the token the order receives (base for a buy, quote for a sell). */
function feeText(o: ApiOrder, fee: string | number): string {
  const m = state.info?.markets.find((x) => x.symbol === o.symbol);
  const text = typeof fee === "number" ? dec(fee) : fee;
  return m ? amountText(text, o.side === "buy" ? m.base.symbol : m.quote.symbol) : text;
}

/** A transaction hash, short, with the whole hash in its title and a copy button. */
function hashChip(hash: string): HTMLElement {
  const copy = h(
    "button",
    { type: "button", class: "copy", "aria-label": `Copy transaction hash ${hash}` },
    "Copy",
  ) as HTMLButtonElement;
  copy.onclick = () =>
    void navigator.clipboard?.writeText(hash).then(
      () => (copy.textContent = "Copied"),
      () => (copy.textContent = "Select and copy"),
    );
  return h(
    "span",
    { class: "hash" },
    h("code", { class: "tx-hash", title: hash, "data-hash": hash }, shortHash(hash)),
    " ",
    copy,
  );
}

/** Open orders and history, with their cancel buttons. */
function renderOrders(w: ConnectedWallet, a: AccountState): Node[] {
  const say = (el: HTMLElement, key: "funds" | "cancel", text: string, kind = "") => {
    messages[key] = { text, kind };
    el.textContent = text;
    el.dataset.kind = kind;
  };
  const cancelOut = h(
    "p",
    { class: "result", role: "status", "aria-live": "polite", id: "cancel-result", "data-kind": messages.cancel.kind },
    messages.cancel.text,
  );
  const cancel = async (ids: string[]) => {
    say(cancelOut, "cancel", ids.length > 1 ? `Cancelling ${ids.length} orders…` : "Cancelling…");
    const failures: string[] = [];
    for (const id of ids) {
      try {
        await signedRequest(w, "DELETE", `/v1/orders/${id}`);
      } catch (err) {
        failures.push(`${id.slice(0, 8)}: ${explain(err)}`);
      }
    }
    say(
      cancelOut,
      "cancel",
      failures.length
        ? `Not cancelled: ${failures.join("; ")}`
        : ids.length > 1
          ? `${ids.length} orders cancelled.`
          : "Order cancelled.",
      failures.length ? "error" : "ok",
    );
    void refreshAccount();
  };
  const orderRow = (o: ApiOrder, open: boolean) =>
    h(
      "tr",
      { "data-order-id": o.order_id, "data-status": o.status },
      h("td", {}, o.symbol),
      h("td", {}, o.side),
      h(
        "td",
        {},
        `${o.type.replace(/_/g, " ")}${o.hidden ? " (hidden)" : ""}${o.iceberg_visible_size !== null ? ` (iceberg ${dec(o.iceberg_visible_size)})` : ""}`,
      ),
      h(
        "td",
        {},
        o.price === null ? "market" : dec(o.price),
        o.trigger_price !== null ? ` (trigger ${dec(o.trigger_price)})` : "",
      ),
      h("td", {}, `${dec(o.filled_size)} / ${dec(o.size)}`),
      h("td", { class: "order-status" }, o.status.replace(/_/g, " ")),
      open
        ? h(
            "td",
            {},
            h(
              "button",
              {
                type: "button",
                "aria-label": `Cancel order ${o.order_id.slice(0, 8)}`,
                onclick: () => void cancel([o.order_id]),
              },
              "Cancel",
            ),
          )
        : h(
            "td",
            { class: "fills" },
            (o.fills ?? []).length === 0
              ? "—"
              : h(
                  "ul",
                  {},
                  (o.fills ?? []).map((f) =>
                    h(
                      "li",
                      { "data-settlement": f.settlement },
                      `${dec(f.size)} @ ${dec(f.price)} (${f.liquidity}, fee ${feeText(o, f.fee)}) · `,
                      f.tx_hash ? h("span", { class: "tx" }, "settled in ", hashChip(f.tx_hash)) : "settlement pending",
                    ),
                  ),
                ),
          ),
    );
  const orderTable = (orders: ApiOrder[], open: boolean, id: string, empty: string) =>
    orders.length === 0
      ? h("p", { class: "empty", id }, empty)
      : h(
          "table",
          { id },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              [
                "Market",
                "Side",
                "Type",
                "Price",
                "Filled / size",
                "Status",
                open ? "Action" : "Fills and settlement",
              ].map((c) => h("th", { scope: "col" }, c)),
            ),
          ),
          h(
            "tbody",
            {},
            orders.map((o) => orderRow(o, open)),
          ),
        );
  return [
    h(
      "div",
      { class: "panel-head" },
      h("h3", {}, "Open orders"),
      a.open.length
        ? h(
            "button",
            { type: "button", id: "cancel-all", onclick: () => void cancel(a.open.map((o) => o.order_id)) },
            "Cancel all",
          )
        : null,
    ),
    orderTable(a.open, true, "open-orders", "No open order."),
    cancelOut,
    h("h3", {}, "Order history"),
    orderTable(a.history, false, "order-history", "No order yet."),
  ];
}

// ------------------------------------------------------------------ wallet

let extensions: readonly import("mipd").EIP6963ProviderDetail[] = [];

function renderWallet() {
  const w = state.wallet;
  if (w) {
    return replace(
      walletArea,
      h(
        "span",
        { class: "wallet-label" },
        `${w.label}: `,
        h("code", {}, `${w.address.slice(0, 6)}…${w.address.slice(-4)}`),
      ),
      h(
        "button",
        {
          type: "button",
          onclick: () => (
            (state.wallet = null),
            (state.account = null),
            renderWallet(),
            renderAccount(),
            renderOrderForm(),
            apiKeys.render(null)
          ),
        },
        "Disconnect",
      ),
    );
  }
  const sel = h("select", { id: "wallet-choice" }) as HTMLSelectElement;
  const keys = state.config?.devWalletKeys ?? [];
  const integratorKey = state.config?.integratorKey;
  if (integratorKey)
    sel.append(
      h("option", { value: "dev:integrator" }, `${INTEGRATOR_LABEL} (yours: the simulated market never trades it)`),
    );
  keys.forEach((_, i) => sel.append(h("option", { value: `dev:${i}` }, `Development wallet: demo trader ${i + 1}`)));
  extensions.forEach((d) => sel.append(h("option", { value: `ext:${d.info.uuid}` }, d.info.name)));
  const err = h("p", { class: "field-error", role: "alert" });
  if (sel.options.length === 0)
    return replace(walletArea, h("p", {}, "No wallet found: install a browser wallet (EIP-6963)."));
  const connect = h(
    "button",
    {
      type: "button",
      class: "primary",
      id: "connect",
      onclick: async () => {
        err.textContent = "";
        try {
          const [kind, ref] = sel.value.split(":");
          if (kind === "dev" && ref === "integrator")
            state.wallet = developmentWallet(state.chain!, integratorKey!, INTEGRATOR_LABEL);
          else if (kind === "dev")
            state.wallet = developmentWallet(
              state.chain!,
              keys[Number(ref)],
              `Development wallet: demo trader ${Number(ref) + 1}`,
            );
          else state.wallet = await extensionWallet(state.chain!, extensions.find((d) => d.info.uuid === ref)!);
          renderWallet();
          renderOrderForm();
          renderAccount();
          apiKeys.render(state.wallet);
          if (state.wallet.autoSign) void refreshAccount();
        } catch (e) {
          err.textContent = `Could not connect: ${explain(e)}`;
        }
      },
    },
    "Connect",
  );
  replace(walletArea, h("label", { for: "wallet-choice" }, "Wallet"), sel, connect, err);
}

// ------------------------------------------------------------------ routing and boot

function selectMarket(symbol: string) {
  const m = state.info?.markets.find((x) => x.symbol === symbol) ?? state.info?.markets[0];
  if (!m) return;
  if (state.market?.symbol === m.symbol) return;
  state.market = m;
  state.trades = [];
  state.lastTrade = null;
  state.ticker = null;
  state.feed?.select(m.symbol);
  document.title = `${m.symbol} · DEX`;
  void renderMarkets();
  renderTicker();
  renderBook();
  renderTrades();
  renderChartPanel();
  renderOrderForm();
  void loadTrades();
  refreshTickerSoon();
}

function route() {
  const match = /^#\/market\/([A-Za-z0-9_.-]{1,32})$/.exec(location.hash);
  selectMarket(match ? match[1] : (state.info?.markets[0]?.symbol ?? ""));
}

async function boot() {
  try {
    const [config, info] = await Promise.all([getJson<WebConfig>("/config.json"), getMarkets(), syncClock()]);
    state.config = config;
    state.info = info;
    state.chain = homeChain(info.chain_id);
    state.pub = publicClient(state.chain);
  } catch (err) {
    setStatus(`The exchange could not be reached: ${explain(err)}. Reload when it is running.`, "error");
    replace(
      marketsPanel,
      h("h2", { id: "markets-h" }, "Markets"),
      h("p", { class: "error" }, "Markets could not be loaded."),
    );
    return;
  }
  discoverExtensions((list) => {
    extensions = list;
    if (!state.wallet) renderWallet();
  });
  renderWallet();
  renderAccount();
  apiKeys.render(null);
  const wsUrl = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
  state.feed = new Feed(wsUrl, {
    onBook(book) {
      state.book = book;
      renderBook();
      orderFormLive();
      renderTicker();
    },
    onTrade(t) {
      state.trades = [t, ...state.trades].slice(0, 50);
      state.lastTrade = t;
      renderTrades();
      renderTicker();
      refreshTickerSoon();
      state.chart?.refreshSoon();
      refreshAccountSoon(300);
    },
    onTradeGap() {
      void loadTrades();
    },
    onStatus(s) {
      setStatus(s.detail, s.state === "live" ? "ok" : s.state === "down" ? "error" : "warn");
      status.dataset.state = s.state;
    },
  });
  window.addEventListener("hashchange", route);
  route();
}

void boot();
