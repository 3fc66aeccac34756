// The exchange app (/exchange): log in with a phone and a one-time code, browse assets by rail, category
// and search, an asset's quote, chart ranges and book, buy and sell (market and limit) with every refusal in
// words, the portfolio with its lots and restriction dates, transactions, the account and funding. Hash
// routes: #/login, #/assets?rail=&category=&q=, #/asset/<id>, #/portfolio, #/transactions, #/account.
import "../style.css";
import "./exchange.css";
import { CandlestickSeries, createChart, type IChartApi, type UTCTimestamp } from "lightweight-charts";
import {
  call,
  currentSession,
  loadSession,
  login,
  logout,
  publicGet,
  requestCode,
  sandboxOutbox,
  setOnExpired,
  type Account,
  type AssetDetail,
  type AssetSummary,
  type Book,
  type Candle,
  type Holding,
  type LotHolding,
  type Order,
  type Quote,
  type Rail,
  type Transaction,
} from "./api";
import { field, h, replace } from "../dom";
import {
  accreditationLabel,
  checkAmount,
  checkCode,
  checkPhone,
  CHART_RANGES,
  dateOf,
  dateTimeOf,
  dec,
  explain,
  imagePath,
  methodLabel,
  orderBody,
  pct,
  regimeLabel,
  usd,
  type OrderDraft,
} from "./model";

interface WebConfig {
  mode: "sandbox" | "production";
}

const app = document.getElementById("app")!;
const nav = h("nav", { class: "ex-nav", "aria-label": "Exchange" });
const sessionArea = h("div", { class: "wallet-area", id: "session" });
const main = h("main", { id: "main", class: "ex-main" });
app.append(
  h(
    "header",
    { class: "top" },
    h("h1", {}, h("a", { href: "#/assets", class: "brand" }, "Exchange")),
    nav,
    sessionArea,
    h("a", { href: "/", class: "other-app" }, "DEX trading app"),
  ),
  main,
);

let config: WebConfig = { mode: "production" };
let rails: Rail[] = [];
/** timers of the page on screen; cleared when the route changes */
let timers: ReturnType<typeof setInterval>[] = [];
let chart: IChartApi | null = null;
let routeSeq = 0;

function every(ms: number, f: () => void): void {
  timers.push(setInterval(f, ms));
}

function leavePage(): void {
  for (const t of timers) clearInterval(t);
  timers = [];
  chart?.remove();
  chart = null;
}

function renderHeader(route: string): void {
  const links: [string, string][] = [
    ["#/assets", "Assets"],
    ["#/portfolio", "Portfolio"],
    ["#/transactions", "Transactions"],
    ["#/account", "Account"],
  ];
  replace(
    nav,
    h(
      "ul",
      {},
      links.map(([href, label]) =>
        h(
          "li",
          {},
          h(
            "a",
            {
              href,
              "aria-current": route.startsWith(href.slice(1)) ? "page" : null,
            },
            label,
          ),
        ),
      ),
    ),
  );
  const s = currentSession();
  replace(
    sessionArea,
    s
      ? [
          h("span", { class: "who" }, `Logged in as ${s.phone}`),
          h(
            "button",
            {
              type: "button",
              id: "logout",
              onclick: () => (logout(), (location.hash = "#/login")),
            },
            "Log out",
          ),
        ]
      : h("a", { href: "#/login", class: "login-link" }, "Log in"),
  );
}

/** The page frame: its heading (focused on arrival, for screen readers and keyboards) and body. */
function page(title: string, ...body: (Node | string | null)[]): HTMLElement {
  const heading = h("h2", { id: "page-h", tabindex: "-1" }, title);
  replace(main, heading, ...body);
  heading.focus({ preventScroll: true });
  return heading;
}

/** A table that may scroll sideways on a phone: a focusable, labelled region, so keyboards can scroll it. */
const scroller = (label: string, table: HTMLElement) =>
  h("div", { class: "scroller", tabindex: "0", role: "region", "aria-label": label }, table);
const loading = (what: string) => h("p", { class: "loading", role: "status" }, `Loading ${what}…`);
const errorBox = (err: unknown) => h("p", { class: "error", role: "alert" }, explain(err));

function requireLogin(): boolean {
  if (currentSession()) return true;
  location.hash = `#/login?next=${encodeURIComponent(location.hash.slice(1))}`;
  return false;
}

// ---------------------------------------------------------------- login

function loginPage(params: URLSearchParams): void {
  const phone = h("input", {
    type: "tel",
    name: "phone",
    autocomplete: "tel",
    inputmode: "tel",
    placeholder: "+14155550123",
  }) as HTMLInputElement;
  const code = h("input", {
    type: "text",
    name: "code",
    autocomplete: "one-time-code",
    inputmode: "numeric",
    maxlength: 6,
  }) as HTMLInputElement;
  phone.id = "phone";
  code.id = "code";
  const fPhone = field("Phone number", phone, "with its country code");
  const fCode = field("One-time code", code, "6 digits, valid for 5 minutes");
  const result = h("p", {
    class: "result",
    id: "login-result",
    role: "status",
    "aria-live": "polite",
  });
  const sandboxCode = h("p", {
    class: "sandbox-code",
    id: "sandbox-code",
    "aria-live": "polite",
  });
  const sendBtn = h("button", { type: "button", id: "send-code" }, "Send me a code") as HTMLButtonElement;
  const loginBtn = h("button", { type: "submit", class: "primary", id: "login" }, "Log in") as HTMLButtonElement;
  const hint =
    config.mode === "sandbox"
      ? h(
          "div",
          { class: "hint", id: "outbox-hint" },
          h(
            "p",
            {},
            "Sandbox: no SMS is sent. The code lands in the identity provider's sandbox outbox (",
            h("code", {}, "GET /api/sandbox/outbox"),
            "), readable only with the phone's sandbox key, which this browser received with the phone's first code and keeps. Read it there and type it below.",
          ),
          h(
            "button",
            {
              type: "button",
              id: "show-code",
              onclick: async () => {
                const p = checkPhone(phone.value);
                if (!p.ok) return void (fPhone.error.textContent = p.error);
                sandboxCode.textContent = "Reading the outbox…";
                try {
                  const m = await sandboxOutbox(p.phone);
                  sandboxCode.textContent = m
                    ? `Newest code for ${p.phone}: ${m.code}`
                    : "No code yet: send one first.";
                  sandboxCode.dataset.code = m?.code ?? "";
                } catch (err) {
                  sandboxCode.textContent = explain(err);
                }
              },
            },
            "Show the sandbox outbox",
          ),
          sandboxCode,
        )
      : null;

  sendBtn.addEventListener("click", async () => {
    fPhone.error.textContent = "";
    const p = checkPhone(phone.value);
    if (!p.ok) return void ((fPhone.error.textContent = p.error), phone.focus());
    sendBtn.disabled = true;
    try {
      const r = await requestCode(p.phone);
      result.dataset.kind = "ok";
      result.textContent = `A code was sent to ${p.phone}. It is valid for ${Math.round(r.expiresIn / 60)} minutes.`;
      code.focus();
    } catch (err) {
      result.dataset.kind = "error";
      result.textContent = explain(err);
    } finally {
      sendBtn.disabled = false;
    }
  });
  const form = h(
    "form",
    {
      novalidate: true,
      class: "panel login-form",
      "aria-labelledby": "page-h",
    },
    fPhone.wrap,
    sendBtn,
    hint,
    fCode.wrap,
    loginBtn,
    result,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    fPhone.error.textContent = "";
    fCode.error.textContent = "";
    const p = checkPhone(phone.value);
    const c = checkCode(code.value);
    if (!p.ok) fPhone.error.textContent = p.error;
    if (!c.ok) fCode.error.textContent = c.error;
    if (!p.ok || !c.ok) return void (!p.ok ? phone : code).focus();
    loginBtn.disabled = true;
    result.dataset.kind = "";
    result.textContent = "Logging in…";
    try {
      await login(p.phone, c.code);
      const next = params.get("next");
      location.hash = next?.startsWith("/") && !next.startsWith("/login") ? `#${next}` : "#/assets";
    } catch (err) {
      result.dataset.kind = "error";
      result.textContent = explain(err);
    } finally {
      loginBtn.disabled = false;
    }
  });
  page(
    "Log in",
    h("p", {}, "Log in with your phone number: we send you a one-time code. A new phone number opens a new account."),
    form,
  );
}

// ---------------------------------------------------------------- assets

async function assetsPage(params: URLSearchParams): Promise<void> {
  const seq = routeSeq;
  const rail = params.get("rail") ?? "";
  const category = params.get("category") ?? "";
  const q = params.get("q") ?? "";
  const railSel = h("select", {
    id: "rail",
    name: "rail",
  }) as HTMLSelectElement;
  railSel.append(
    h("option", { value: "" }, "All rails"),
    ...rails.map((r) => h("option", { value: r.id, selected: r.id === rail }, r.label)),
  );
  const catSel = h("select", {
    id: "category",
    name: "category",
  }) as HTMLSelectElement;
  const cats = (rail ? rails.filter((r) => r.id === rail) : rails).flatMap((r) => r.categories);
  catSel.append(
    h("option", { value: "" }, "All categories"),
    ...cats.map((c) => h("option", { value: c.id, selected: c.id === category }, c.label)),
  );
  const search = h("input", {
    type: "search",
    id: "search",
    name: "q",
    value: q,
    autocomplete: "off",
    placeholder: "symbol or name",
  }) as HTMLInputElement;
  const go = (changes: Record<string, string>) => {
    const p = new URLSearchParams({ rail, category, q, ...changes });
    for (const k of [...p.keys()]) if (!p.get(k)) p.delete(k);
    const s = p.toString();
    location.hash = `#/assets${s ? `?${s}` : ""}`;
  };
  railSel.addEventListener("change", () => go({ rail: railSel.value, category: "" }));
  catSel.addEventListener("change", () => go({ category: catSel.value }));
  const filters = h(
    "form",
    { class: "filters", role: "search", "aria-label": "Find assets" },
    h("div", { class: "field" }, h("label", { for: "rail" }, "Rail"), railSel),
    h("div", { class: "field" }, h("label", { for: "category" }, "Category"), catSel),
    h("div", { class: "field grow" }, h("label", { for: "search" }, "Search"), search),
    h("button", { type: "submit" }, "Search"),
  );
  filters.addEventListener("submit", (ev) => {
    ev.preventDefault();
    go({ q: search.value.trim() });
  });
  const list = h("div", { id: "asset-list", "aria-live": "polite" }, loading("assets"));
  page("Assets", filters, list);

  const query = new URLSearchParams();
  if (rail) query.set("marketRail", rail);
  if (category) query.set("category", category);
  if (q) query.set("search", q);
  query.set("limit", "50");
  const rows: AssetSummary[] = [];
  const more = async (cursor: string | null) => {
    if (cursor) query.set("cursor", cursor);
    try {
      const r = await publicGet<{
        data: AssetSummary[];
        nextCursor: string | null;
      }>(`/assets?${query}`);
      if (seq !== routeSeq) return;
      rows.push(...r.data);
      replace(
        list,
        assetTable(rows, q),
        r.nextCursor
          ? h(
              "button",
              {
                type: "button",
                id: "more-assets",
                onclick: () => void more(r.nextCursor),
              },
              "Show more",
            )
          : null,
      );
    } catch (err) {
      if (seq === routeSeq) replace(list, errorBox(err));
    }
  };
  await more(null);
}

function assetTable(rows: AssetSummary[], q: string): Node {
  if (rows.length === 0)
    return h("p", { class: "empty" }, q ? `No asset matches "${q}".` : "No asset in this category.");
  return h(
    "table",
    { class: "assets" },
    h("caption", { class: "sr-only" }, "Assets"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "Asset"),
        h("th", { scope: "col" }, "Category"),
        h("th", { scope: "col" }, "Price (USD)"),
        h("th", { scope: "col" }, "Change"),
      ),
    ),
    h(
      "tbody",
      {},
      rows.map((a) => {
        const img = imagePath(a.image);
        return h(
          "tr",
          { "data-asset-id": a.id },
          h(
            "td",
            {},
            h(
              "a",
              {
                href: `#/asset/${encodeURIComponent(a.id)}`,
                class: "asset-link",
              },
              img ? h("img", { src: img, alt: "", width: 24, height: 24 }) : null,
              h("span", { class: "sym" }, a.symbol),
              " ",
              h("span", { class: "name" }, a.name),
            ),
            a.tradeable ? null : h("span", { class: "badge" }, "not tradeable"),
          ),
          h("td", {}, categoryLabel(a.type)),
          h("td", {}, a.priceSource === "reference" ? `${usd(a.price)} (offering)` : usd(a.price)),
          h(
            "td",
            { class: changeClass(a.changesPercentage) },
            a.priceSource === "reference" ? "—" : pct(a.changesPercentage),
          ),
        );
      }),
    ),
  );
}

const categoryLabel = (id: string) => rails.flatMap((r) => r.categories).find((c) => c.id === id)?.label ?? id;
const changeClass = (n: number | null | undefined) =>
  n === null || n === undefined || n === 0 ? "" : n > 0 ? "up" : "down";

// ---------------------------------------------------------------- one asset

async function assetPage(id: string): Promise<void> {
  const seq = routeSeq;
  page(id, loading("the asset"));
  let a: AssetDetail;
  try {
    a = (await publicGet<{ data: AssetDetail }>(`/assets/${encodeURIComponent(id)}`)).data;
  } catch (err) {
    if (seq === routeSeq) page(id, errorBox(err), h("p", {}, h("a", { href: "#/assets" }, "Back to the assets")));
    return;
  }
  if (seq !== routeSeq) return;
  const quoteEl = h(
    "section",
    { class: "panel quote", id: "quote", "aria-labelledby": "quote-h" },
    h("h3", { id: "quote-h" }, "Quote"),
    loading("the quote"),
  );
  const bookEl = h(
    "section",
    { class: "panel", id: "book", "aria-labelledby": "book-h" },
    h("h3", { id: "book-h" }, "Order book"),
    loading("the book"),
  );
  const chartPanel = chartSection(a);
  const orderEl = orderSection(a);
  const img = imagePath(a.image);
  page(
    `${a.symbol} · ${a.name}`,
    h(
      "section",
      { class: "panel asset-facts", "aria-label": "About this asset" },
      img ? h("img", { src: img, alt: "", width: 40, height: 40 }) : null,
      h(
        "dl",
        {},
        h("div", {}, h("dt", {}, "Category"), h("dd", {}, categoryLabel(a.type))),
        h("div", {}, h("dt", {}, "Exchange"), h("dd", {}, a.exchange ?? "—")),
        h("div", {}, h("dt", {}, "Offering"), h("dd", {}, a.offeringType)),
        h(
          "div",
          {},
          h("dt", {}, "Who may buy"),
          h("dd", { id: "accreditation" }, accreditationLabel(a.accreditationType)),
        ),
        h("div", {}, h("dt", {}, "Regime"), h("dd", {}, regimeLabel(a.regime))),
        h("div", {}, h("dt", {}, "Tradeable"), h("dd", {}, a.tradeable ? "yes" : "no")),
      ),
    ),
    h("div", { class: "asset-grid" }, quoteEl, chartPanel, bookEl, orderEl),
  );

  const loadQuote = async () => {
    try {
      const q = await publicGet<Quote>(`/assets/${encodeURIComponent(id)}/quote`);
      if (seq !== routeSeq) return;
      replace(
        quoteEl,
        h("h3", { id: "quote-h" }, "Quote"),
        q.priceSource === "reference"
          ? h("p", { class: "empty" }, `Not traded yet: the offering's reference price is ${usd(q.last)}.`)
          : h(
              "dl",
              { class: "figures" },
              h("div", {}, h("dt", {}, "Last"), h("dd", { id: "quote-last" }, usd(q.last))),
              h(
                "div",
                {},
                h("dt", {}, "Change"),
                h("dd", { class: changeClass(q.change) }, `${usd(q.change)} (${pct(q.changePercent)})`),
              ),
              h("div", {}, h("dt", {}, "Open"), h("dd", {}, usd(q.open))),
              h("div", {}, h("dt", {}, "High"), h("dd", {}, usd(q.high))),
              h("div", {}, h("dt", {}, "Low"), h("dd", {}, usd(q.low))),
              h("div", {}, h("dt", {}, "Previous close"), h("dd", {}, usd(q.prevClose))),
              h("div", {}, h("dt", {}, "Volume"), h("dd", {}, dec(q.volume))),
            ),
        h("p", { class: "note" }, `Settled trades, as of ${dateTimeOf(q.timestamp)}.`),
      );
    } catch (err) {
      if (seq === routeSeq) replace(quoteEl, h("h3", { id: "quote-h" }, "Quote"), errorBox(err));
    }
  };
  const loadBook = async () => {
    try {
      const b = await publicGet<Book>(`/assets/${encodeURIComponent(id)}/book?depth=10`);
      if (seq !== routeSeq) return;
      const row = (side: "bid" | "ask") => (l: { price: number; size: number }) =>
        h("tr", { class: side, "data-price": dec(l.price) }, h("td", {}, dec(l.price)), h("td", {}, dec(l.size)));
      replace(
        bookEl,
        h("h3", { id: "book-h" }, "Order book"),
        b.bids.length + b.asks.length === 0
          ? h("p", { class: "empty" }, "Nobody is buying or selling right now.")
          : h(
              "table",
              { "aria-label": `${a.symbol} order book` },
              h(
                "thead",
                {},
                h("tr", {}, h("th", { scope: "col" }, "Price (USD)"), h("th", { scope: "col" }, "Quantity")),
              ),
              h("tbody", { class: "asks" }, b.asks.slice().reverse().map(row("ask"))),
              h("tbody", { class: "bids" }, b.bids.map(row("bid"))),
            ),
      );
    } catch (err) {
      if (seq === routeSeq) replace(bookEl, h("h3", { id: "book-h" }, "Order book"), errorBox(err));
    }
  };
  await Promise.all([loadQuote(), loadBook()]);
  // spec 8's recommended polling: quote 5 s, book 3 s (5 s here: one tab stays far inside the public limit)
  every(5_000, () => void loadQuote());
  every(5_000, () => void loadBook());
  orderEl.addEventListener("traded", () => void Promise.all([loadQuote(), loadBook()]));
}

function chartSection(a: AssetDetail): HTMLElement {
  const rangeSel = h("select", { id: "range" }) as HTMLSelectElement;
  for (const [r] of CHART_RANGES) rangeSel.append(h("option", { value: r, selected: r === "1d" }, r));
  const intervalSel = h("select", { id: "interval" }) as HTMLSelectElement;
  const host = h("div", { class: "chart", id: "chart" });
  const note = h("p", {
    class: "chart-note",
    id: "chart-note",
    "aria-live": "polite",
  });
  const fillIntervals = () => {
    const ivs = CHART_RANGES.find(([r]) => r === rangeSel.value)![1];
    intervalSel.replaceChildren(...ivs.map((i, n) => h("option", { value: i, selected: n === 0 }, i)));
  };
  fillIntervals();
  const section = h(
    "section",
    { class: "panel chart-panel", "aria-labelledby": "chart-h" },
    h(
      "div",
      { class: "panel-head" },
      h("h3", { id: "chart-h" }, "Chart"),
      h("label", { for: "range" }, "Range"),
      rangeSel,
      h("label", { for: "interval" }, "Interval"),
      intervalSel,
    ),
    host,
    note,
  );
  const seq = routeSeq;
  let series: ReturnType<IChartApi["addSeries"]> | null = null;
  const load = async () => {
    note.textContent = "Loading the chart…";
    try {
      const r = await publicGet<{ data: Candle[] }>(
        `/assets/${encodeURIComponent(a.id)}/chart?range=${rangeSel.value}&interval=${intervalSel.value}`,
      );
      if (seq !== routeSeq) return;
      if (!chart) {
        chart = createChart(host, {
          autoSize: true,
          layout: { background: { color: "#ffffff" }, textColor: "#1f2933" },
          timeScale: { timeVisible: true },
        });
        series = chart.addSeries(CandlestickSeries, {
          upColor: "#0a7d36",
          downColor: "#b3261e",
          wickUpColor: "#0a7d36",
          wickDownColor: "#b3261e",
          borderVisible: false,
        });
      }
      series!.setData(
        r.data.map((c) => ({
          time: Math.floor(c.time / 1000) as UTCTimestamp,
          open: c.open,
          high: c.high,
          low: c.low,
          close: c.close,
        })),
      );
      chart.timeScale().fitContent();
      note.textContent =
        r.data.length === 0
          ? `No settled trade in this range (${rangeSel.value}).`
          : `${r.data.length} candles of ${intervalSel.value}, range ${rangeSel.value}.`;
    } catch (err) {
      if (seq === routeSeq) note.textContent = `The chart is unavailable: ${explain(err)}`;
    }
  };
  rangeSel.addEventListener("change", () => (fillIntervals(), void load()));
  intervalSel.addEventListener("change", () => void load());
  queueMicrotask(() => void load());
  every(60_000, () => void load());
  return section;
}

function orderSection(a: AssetDetail): HTMLElement {
  const section = h(
    "section",
    {
      class: "panel order-form",
      id: "order-form",
      "aria-labelledby": "order-h",
    },
    h("h3", { id: "order-h" }, "Buy or sell"),
  );
  if (!a.tradeable) {
    section.append(h("p", { class: "empty" }, "This asset is listed but cannot be traded yet."));
    return section;
  }
  if (!currentSession()) {
    section.append(
      h(
        "p",
        {},
        h("a", { href: `#/login?next=${encodeURIComponent(`/asset/${a.id}`)}` }, "Log in"),
        " to buy or sell.",
      ),
    );
    return section;
  }
  const draft: OrderDraft = {
    side: "BUY",
    orderType: "market",
    quantity: "",
    limitPrice: "",
  };
  const typeSel = h(
    "select",
    { id: "order-type", name: "orderType" },
    h("option", { value: "market", selected: true }, "Market"),
    h("option", { value: "limit" }, "Limit"),
  ) as HTMLSelectElement;
  const qty = h("input", {
    id: "quantity",
    name: "quantity",
    inputmode: "decimal",
    autocomplete: "off",
  }) as HTMLInputElement;
  const price = h("input", {
    id: "limit-price",
    name: "limitPrice",
    inputmode: "decimal",
    autocomplete: "off",
  }) as HTMLInputElement;
  const fType = field(
    "Order type",
    typeSel,
    "market: now at the best prices on the book; limit: at your price or better",
  );
  const fQty = field(`Quantity (${a.symbol})`, qty, "a decimal, on the asset's lot size");
  const fPrice = field("Limit price (USD)", price, "a decimal, on the asset's tick size");
  fPrice.wrap.hidden = true;
  const result = h("p", {
    class: "result",
    id: "order-result",
    role: "status",
    "aria-live": "polite",
  });
  const submit = h("button", { type: "submit", class: "primary", id: "place-order" }, "Buy") as HTMLButtonElement;
  const sides = (["BUY", "SELL"] as const).map((s) =>
    h(
      "button",
      {
        type: "button",
        class: `side ${s.toLowerCase()}`,
        "data-side": s,
        "aria-pressed": String(draft.side === s),
        onclick: () => {
          draft.side = s;
          for (const b of sides) b.setAttribute("aria-pressed", String(b.dataset.side === s));
          submit.textContent = s === "BUY" ? "Buy" : "Sell";
        },
      },
      s === "BUY" ? "Buy" : "Sell",
    ),
  );
  typeSel.addEventListener("change", () => {
    draft.orderType = typeSel.value as "market" | "limit";
    fPrice.wrap.hidden = draft.orderType !== "limit";
  });
  const preIpo = a.type === "pre-ipo";
  const form = h(
    "form",
    { novalidate: true, "aria-describedby": "order-result" },
    h("div", { class: "sides", role: "group", "aria-label": "Side" }, sides),
    fType.wrap,
    fQty.wrap,
    fPrice.wrap,
    preIpo ? h("p", { class: "note" }, "A pre-IPO order: it is sent as such (isPreIPO).") : null,
    a.accreditationType ? h("p", { class: "note" }, `${accreditationLabel(a.accreditationType)}.`) : null,
    submit,
    result,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    fQty.error.textContent = "";
    fPrice.error.textContent = "";
    result.textContent = "";
    result.dataset.kind = "";
    delete result.dataset.orderId;
    delete result.dataset.code;
    draft.quantity = qty.value;
    draft.limitPrice = price.value;
    const built = orderBody(a.id, preIpo, draft);
    if (!built.ok) {
      if (built.errors.quantity) fQty.error.textContent = built.errors.quantity;
      if (built.errors.limitPrice) fPrice.error.textContent = built.errors.limitPrice;
      result.dataset.kind = "error";
      result.textContent = "Nothing was sent: correct the fields above.";
      (built.errors.quantity ? qty : price).focus();
      return;
    }
    submit.disabled = true;
    result.textContent = "Placing the order…";
    try {
      const o = (await call<{ data: Order }>("POST", "/orders", built.body)).data;
      result.dataset.kind = "ok";
      result.dataset.orderId = o.orderId;
      result.dataset.status = o.status;
      const filled = o.filledQuantity
        ? ` Filled ${dec(o.filledQuantity)} at an average of ${usd(o.averagePrice ?? null)}.`
        : "";
      result.textContent = `${o.side === "BUY" ? "Buy" : "Sell"} order ${o.orderId}: ${o.status.toLowerCase()}.${filled}${
        o.status === "PENDING" ? " It rests on the book until it fills or you cancel it (Portfolio)." : ""
      }`;
      section.dispatchEvent(new Event("traded"));
    } catch (err) {
      result.dataset.kind = "error";
      result.dataset.code = (err as { code?: string }).code ?? "";
      result.textContent = explain(err);
    } finally {
      submit.disabled = false;
    }
  });
  section.append(form);
  return section;
}

// ---------------------------------------------------------------- portfolio

async function portfolioPage(): Promise<void> {
  if (!requireLogin()) return;
  const seq = routeSeq;
  const holdingsEl = h(
    "section",
    { class: "panel", "aria-labelledby": "holdings-h", id: "holdings" },
    h("h3", { id: "holdings-h" }, "Holdings"),
    loading("your holdings"),
  );
  const ordersEl = h(
    "section",
    { class: "panel", "aria-labelledby": "orders-h", id: "open-orders" },
    h("h3", { id: "orders-h" }, "Open orders"),
    loading("your orders"),
  );
  page("Portfolio", holdingsEl, ordersEl);
  const load = async () => {
    try {
      const [p, xp] = await Promise.all([
        call<{ data: Holding[] }>("GET", "/portfolio"),
        call<{ data: LotHolding[] }>("GET", "/exchange-portfolio"),
      ]);
      if (seq !== routeSeq) return;
      replace(holdingsEl, h("h3", { id: "holdings-h" }, "Holdings"), holdingsView(p.data, xp.data));
    } catch (err) {
      if (seq === routeSeq) replace(holdingsEl, h("h3", { id: "holdings-h" }, "Holdings"), errorBox(err));
    }
  };
  const loadOrders = async () => {
    try {
      const r = await call<{ data: Order[] }>("GET", "/orders?status=PENDING");
      if (seq !== routeSeq) return;
      replace(
        ordersEl,
        h("h3", { id: "orders-h" }, "Open orders"),
        r.data.length === 0
          ? h("p", { class: "empty" }, "No open order.")
          : scroller(
              "Open orders",
              h(
                "table",
                {},
                h(
                  "thead",
                  {},
                  h(
                    "tr",
                    {},
                    ["Asset", "Side", "Quantity", "Limit (USD)", "Placed", "Action"].map((t) =>
                      h("th", { scope: "col" }, t),
                    ),
                  ),
                ),
                h(
                  "tbody",
                  {},
                  r.data.map((o) =>
                    h(
                      "tr",
                      { "data-order-id": o.orderId },
                      h("td", {}, o.assetId),
                      h("td", {}, o.side === "BUY" ? "Buy" : "Sell"),
                      h("td", {}, dec(o.quantity)),
                      h("td", {}, o.limitPrice === undefined ? "market" : usd(o.limitPrice)),
                      h("td", {}, dateTimeOf(o.createdAt)),
                      h(
                        "td",
                        {},
                        h(
                          "button",
                          {
                            type: "button",
                            "aria-label": `Cancel the ${o.side === "BUY" ? "buy" : "sell"} order of ${dec(o.quantity)} ${o.assetId}`,
                            onclick: async (ev: Event) => {
                              const b = ev.currentTarget as HTMLButtonElement;
                              b.disabled = true;
                              try {
                                await call("DELETE", `/orders/${encodeURIComponent(o.orderId)}`);
                              } catch (err) {
                                alertIn(ordersEl, err);
                              }
                              await Promise.all([loadOrders(), load()]);
                            },
                          },
                          "Cancel",
                        ),
                      ),
                    ),
                  ),
                ),
              ),
            ),
      );
    } catch (err) {
      if (seq === routeSeq) replace(ordersEl, h("h3", { id: "orders-h" }, "Open orders"), errorBox(err));
    }
  };
  await Promise.all([load(), loadOrders()]);
  every(15_000, () => void Promise.all([load(), loadOrders()]));
}

function alertIn(el: HTMLElement, err: unknown): void {
  el.querySelector(".error")?.remove();
  el.append(errorBox(err));
}

function holdingsView(holdings: Holding[], withLots: LotHolding[]): Node {
  if (holdings.length === 0)
    return h(
      "p",
      { class: "empty" },
      "You hold no asset yet. ",
      h("a", { href: "#/assets" }, "Browse the assets"),
      " to buy one.",
    );
  return h(
    "div",
    {},
    scroller(
      "Holdings",
      h(
        "table",
        { class: "holdings" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Asset", "Quantity", "Average cost", "Price", "Market value", "Unrealized P&L"].map((t) =>
              h("th", { scope: "col" }, t),
            ),
          ),
        ),
        h(
          "tbody",
          {},
          holdings.map((x) =>
            h(
              "tr",
              { "data-asset-id": x.assetId },
              h(
                "td",
                {},
                h("a", { href: `#/asset/${encodeURIComponent(x.assetId)}` }, x.symbol),
                " ",
                h("span", { class: "name" }, x.name),
              ),
              h("td", { class: "quantity" }, dec(x.quantity)),
              h("td", {}, usd(x.averageCost)),
              h("td", {}, usd(x.currentPrice)),
              h("td", {}, usd(x.marketValue)),
              h(
                "td",
                { class: changeClass(x.unrealizedPnl) },
                x.unrealizedPnl === null ? "—" : `${usd(x.unrealizedPnl)} (${pct(x.unrealizedPnlPercent)})`,
              ),
            ),
          ),
        ),
      ),
    ),
    h("h3", { id: "lots-h" }, "Lots"),
    h(
      "p",
      { class: "note" },
      "Each buy is a lot; sells take the oldest lots first. A restricted lot can only be sold to buyers an exemption covers until its restriction ends.",
    ),
    scroller(
      "Lots",
      h(
        "table",
        { class: "lots", "aria-labelledby": "lots-h" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Asset", "Quantity", "Acquired", "Restricted until", "Restricted", "Offering"].map((t) =>
              h("th", { scope: "col" }, t),
            ),
          ),
        ),
        h(
          "tbody",
          {},
          withLots.flatMap((x) =>
            x.lots.map((l) =>
              h(
                "tr",
                { "data-asset-id": x.assetId },
                h("td", {}, x.symbol),
                h("td", {}, dec(l.quantity)),
                h("td", {}, dateOf(l.acquisitionDate)),
                h("td", {}, l.restrictionEndDate === l.acquisitionDate ? "no hold" : dateOf(l.restrictionEndDate)),
                h("td", {}, l.isRestricted ? h("strong", {}, "yes") : "no"),
                h("td", {}, l.offeringType, l.regime ? ` (${regimeLabel(l.regime)})` : ""),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

// ---------------------------------------------------------------- transactions

async function transactionsPage(params: URLSearchParams): Promise<void> {
  if (!requireLogin()) return;
  const seq = routeSeq;
  const type = ["deposit", "withdrawal", "trade"].includes(params.get("type") ?? "") ? params.get("type")! : "all";
  const sel = h(
    "select",
    { id: "tx-type" },
    ...[
      ["all", "All"],
      ["trade", "Trades"],
      ["deposit", "Deposits"],
      ["withdrawal", "Withdrawals"],
    ].map(([v, l]) => h("option", { value: v, selected: v === type }, l)),
  ) as HTMLSelectElement;
  sel.addEventListener(
    "change",
    () => (location.hash = sel.value === "all" ? "#/transactions" : `#/transactions?type=${sel.value}`),
  );
  const list = h("div", { id: "transactions", "aria-live": "polite" }, loading("your transactions"));
  page(
    "Transactions",
    h("div", { class: "filters" }, h("div", { class: "field" }, h("label", { for: "tx-type" }, "Show"), sel)),
    list,
  );
  try {
    const r = await call<{ data: Transaction[] }>("GET", `/transactions?type=${type}`);
    if (seq !== routeSeq) return;
    replace(
      list,
      r.data.length === 0
        ? h("p", { class: "empty" }, "No transaction yet.")
        : scroller(
            "Transactions",
            h(
              "table",
              {},
              h(
                "thead",
                {},
                h(
                  "tr",
                  {},
                  ["Date", "Type", "Asset", "Side", "Quantity", "Price", "Total", "Fee", "Status"].map((t) =>
                    h("th", { scope: "col" }, t),
                  ),
                ),
              ),
              h(
                "tbody",
                {},
                r.data.map((t) =>
                  h(
                    "tr",
                    { "data-id": t.id, "data-type": t.type },
                    h("td", {}, dateTimeOf(t.timestamp)),
                    h(
                      "td",
                      {},
                      t.type === "trade"
                        ? "Trade"
                        : `${t.type === "deposit" ? "Deposit" : "Withdrawal"}${t.method ? ` (${methodLabel(t.method)})` : ""}`,
                    ),
                    h("td", {}, t.assetId),
                    h("td", {}, t.side),
                    h("td", {}, dec(t.quantity)),
                    h("td", {}, t.type === "trade" ? usd(t.price) : "—"),
                    h("td", {}, usd(t.total)),
                    h("td", {}, usd(t.fee)),
                    h("td", {}, t.status),
                  ),
                ),
              ),
            ),
          ),
    );
  } catch (err) {
    if (seq === routeSeq) replace(list, errorBox(err));
  }
}

// ---------------------------------------------------------------- account and funding

async function accountPage(): Promise<void> {
  if (!requireLogin()) return;
  const seq = routeSeq;
  const info = h(
    "section",
    { class: "panel", id: "account", "aria-labelledby": "account-h" },
    h("h3", { id: "account-h" }, "Your account"),
    loading("your account"),
  );
  const funding = fundingSection(() => void load());
  page("Account", info, funding, config.mode === "sandbox" ? accreditationSection(() => void load()) : null);
  async function load() {
    try {
      const a = (await call<{ data: Account }>("GET", "/account")).data;
      if (seq !== routeSeq) return;
      replace(
        info,
        h("h3", { id: "account-h" }, "Your account"),
        h(
          "dl",
          { class: "figures" },
          h("div", {}, h("dt", {}, "Cash"), h("dd", { id: "cash" }, usd(a.cashBalance))),
          h("div", {}, h("dt", {}, "Buying power"), h("dd", { id: "buying-power" }, usd(a.buyingPower))),
          h("div", {}, h("dt", {}, "Phone"), h("dd", {}, a.phone)),
          h("div", {}, h("dt", {}, "Identity check (KYC)"), h("dd", {}, a.kycStatus.replace(/_/g, " "))),
          h(
            "div",
            {},
            h("dt", {}, "Accreditation"),
            h(
              "dd",
              {},
              `${a.accreditationStatus.replace(/_/g, " ")}${a.accreditationType && a.accreditationType !== "none" ? ` (${a.accreditationType})` : ""}`,
            ),
          ),
          h("div", {}, h("dt", {}, "Settlement address"), h("dd", {}, h("code", {}, a.settlementAddress))),
        ),
        h(
          "p",
          { class: "note" },
          "Buying power is your cash less what your open buy orders hold. Balances are read from the chain.",
        ),
      );
    } catch (err) {
      if (seq === routeSeq) replace(info, h("h3", { id: "account-h" }, "Your account"), errorBox(err));
    }
  }
  await load();
}

/** Sandbox only: the accreditation a real investor would obtain (self-certification, a third party's check). */
function accreditationSection(after: () => void): HTMLElement {
  const result = h("p", { class: "result", id: "accreditation-result", role: "status", "aria-live": "polite" });
  const action = (id: string, label: string, path: string, body: Record<string, unknown>) =>
    h(
      "button",
      {
        type: "button",
        id,
        onclick: async (ev: Event) => {
          const b = ev.currentTarget as HTMLButtonElement;
          b.disabled = true;
          result.dataset.kind = "";
          result.textContent = "";
          try {
            const a = (await call<{ data: Account }>("POST", path, body)).data;
            result.dataset.kind = "ok";
            result.textContent = `Accreditation is now ${a.accreditationStatus.replace(/_/g, " ")}${a.accreditationType && a.accreditationType !== "none" ? ` (${a.accreditationType})` : ""}.`;
            after();
          } catch (err) {
            result.dataset.kind = "error";
            result.textContent = explain(err);
          } finally {
            b.disabled = false;
          }
        },
      },
      label,
    );
  return h(
    "section",
    { class: "panel", id: "sandbox-accreditation", "aria-labelledby": "sandbox-acc-h" },
    h("h3", { id: "sandbox-acc-h" }, "Investor status (sandbox)"),
    h(
      "p",
      { class: "note" },
      "Rule 506(b) assets need you to certify that you are an accredited investor; Rule 506(c) assets need a third party to verify it. The sandbox simulates both.",
    ),
    h(
      "div",
      { class: "buttons" },
      action("self-certify", "Certify that I am accredited (506(b))", "/sandbox/accreditation/506b", {}),
      action("verify-506c", "Simulate a verified check (506(c))", "/sandbox/accreditation/506c", {
        outcome: "verified",
      }),
      action("reject-506c", "Simulate a failed check", "/sandbox/accreditation/506c", { outcome: "rejected" }),
    ),
    result,
  );
}

const METHODS: [string, string, string][] = [
  ["instant", "Instant bank link", "at once; $10 minimum, $10,000 a day"],
  ["ach", "ACH transfer", "3 business days; $10 minimum, $250,000 a day"],
  ["wire", "Wire transfer", "the same business day; $1,000 minimum"],
];

function fundingSection(after: () => void): HTMLElement {
  const section = h(
    "section",
    { class: "panel", id: "funding", "aria-labelledby": "funding-h" },
    h("h3", { id: "funding-h" }, "Add or withdraw funds"),
  );
  const dir = h(
    "select",
    { id: "fund-direction" },
    h("option", { value: "deposits" }, "Deposit (add funds)"),
    h("option", { value: "withdrawals" }, "Withdraw"),
  ) as HTMLSelectElement;
  const method = h(
    "select",
    { id: "fund-method" },
    ...METHODS.map(([v, l, note]) => h("option", { value: v }, `${l} (${note})`)),
  ) as HTMLSelectElement;
  const amount = h("input", {
    id: "fund-amount",
    inputmode: "decimal",
    autocomplete: "off",
  }) as HTMLInputElement;
  const fAmount = field("Amount (USD)", amount, "dollars and cents, for example 250 or 100.50");
  const result = h("p", {
    class: "result",
    id: "fund-result",
    role: "status",
    "aria-live": "polite",
  });
  const submit = h("button", { type: "submit", class: "primary", id: "fund-submit" }, "Send") as HTMLButtonElement;
  const form = h(
    "form",
    { novalidate: true },
    field("Direction", dir).wrap,
    field("Method", method).wrap,
    fAmount.wrap,
    submit,
    result,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    fAmount.error.textContent = "";
    result.textContent = "";
    result.dataset.kind = "";
    const a = checkAmount(amount.value, "amount", { maxFraction: 2 });
    if (!a.ok) {
      fAmount.error.textContent = a.error;
      result.dataset.kind = "error";
      result.textContent = "Nothing was sent: correct the amount.";
      return void amount.focus();
    }
    submit.disabled = true;
    try {
      const t = (
        await call<{ data: Transaction }>("POST", `/${dir.value}`, {
          method: method.value,
          amount: a.value,
        })
      ).data;
      result.dataset.kind = "ok";
      result.textContent = `${t.type === "deposit" ? "Deposit" : "Withdrawal"} of ${usd(t.quantity)} by ${methodLabel(t.method)}: ${t.status}${
        t.status === "completed" ? "." : t.completesAt ? `, completes around ${dateTimeOf(t.completesAt)}.` : "."
      }`;
      amount.value = "";
      after();
    } catch (err) {
      result.dataset.kind = "error";
      result.textContent = explain(err);
    } finally {
      submit.disabled = false;
    }
  });
  section.append(
    form,
    h(
      "p",
      { class: "note" },
      "In the sandbox the bank is simulated; every transfer is recorded on chain. See Transactions for their status.",
    ),
  );
  return section;
}

// ---------------------------------------------------------------- router

/** Renders the page of the current hash; main's data-route names it once its first data has loaded. */
async function route(): Promise<void> {
  leavePage();
  const seq = ++routeSeq;
  delete main.dataset.route;
  const hash = location.hash.replace(/^#/, "") || (currentSession() ? "/assets" : "/login");
  const [path, qs = ""] = hash.split("?");
  renderHeader(path);
  await render(path, new URLSearchParams(qs));
  if (seq === routeSeq) main.dataset.route = hash;
}

async function render(path: string, params: URLSearchParams): Promise<void> {
  if (path === "/login") return loginPage(params);
  if (path === "/assets") return assetsPage(params);
  const asset = /^\/asset\/([^/]+)$/.exec(path);
  if (asset) return assetPage(decodeURIComponent(asset[1]));
  if (path === "/portfolio") return portfolioPage();
  if (path === "/transactions") return transactionsPage(params);
  if (path === "/account") return accountPage();
  page("Page not found", h("p", {}, "There is no such page. ", h("a", { href: "#/assets" }, "Go to the assets"), "."));
}

async function boot(): Promise<void> {
  loadSession();
  setOnExpired(() => {
    if (!location.hash.startsWith("#/login"))
      location.hash = `#/login?next=${encodeURIComponent(location.hash.slice(1))}`;
  });
  try {
    config = (await (await fetch("/config.json")).json()) as WebConfig;
  } catch {
    /* production defaults: no sandbox hint */
  }
  try {
    rails = (await publicGet<{ rails: Rail[] }>("/navigation")).rails;
  } catch {
    rails = [];
  }
  window.addEventListener("hashchange", () => void route());
  await route();
}

void boot();
