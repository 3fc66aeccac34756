// #/asset/<id>: the asset's facts, its quote, chart and book (polled), and the order form.
import { h, replace } from "../../dom";
import { publicRead, type AssetDetail, type Book, type Quote } from "../api";
import { accreditationLabel, dateTimeOf, dec, ExchangeError, imagePath, pct, regimeLabel, usd } from "../model";
import { app, fact, categoryLabel, changeClass, errorBox, every, loading, onScreen, page } from "../shell";
import { chartSection } from "./chart";
import { orderSection } from "./order-form";

function factsPanel(a: AssetDetail, staleSince: string | null): HTMLElement {
  const img = imagePath(a.image);
  const el = h(
    "section",
    { class: "panel asset-facts", "aria-label": "About this asset" },
    img ? h("img", { src: img, alt: "", width: 40, height: 40 }) : null,
    h(
      "dl",
      {},
      fact("Category", categoryLabel(a.type)),
      fact("Exchange", a.exchange ?? "—"),
      fact("Offering", a.offeringType),
      fact("Who may buy", accreditationLabel(a.accreditationType), "accreditation"),
      fact("Regime", regimeLabel(a.regime)),
      fact("Tradeable", a.tradeable ? "yes" : "no"),
    ),
  );
  markStale(el, staleSince, "prices of the catalogue");
  return el;
}

const panel = (id: string, cls: string, title: string, what: string) =>
  h(
    "section",
    { class: `panel${cls ? ` ${cls}` : ""}`, id, "aria-labelledby": `${id}-h` },
    h("h3", { id: `${id}-h` }, title),
    loading(what),
  );

function quoteFigures(q: Quote): Node {
  if (q.priceSource === "reference")
    return h("p", { class: "empty" }, `Not traded yet: the offering's reference price is ${usd(q.last)}.`);
  return h(
    "dl",
    { class: "figures" },
    fact("Last", usd(q.last), "quote-last"),
    h(
      "div",
      {},
      h("dt", {}, "Change"),
      h("dd", { class: changeClass(q.change) }, `${usd(q.change)} (${pct(q.changePercent)})`),
    ),
    fact("Open", usd(q.open)),
    fact("High", usd(q.high)),
    fact("Low", usd(q.low)),
    fact("Previous close", usd(q.prevClose)),
    fact("Volume", dec(q.volume)),
  );
}

function bookTable(a: AssetDetail, b: Book): Node {
  if (b.bids.length + b.asks.length === 0) return h("p", { class: "empty" }, "Nobody is buying or selling right now.");
  const row = (side: "bid" | "ask") => (l: { price: number; size: number }) =>
    h("tr", { class: side, "data-price": dec(l.price) }, h("td", {}, dec(l.price)), h("td", {}, dec(l.size)));
  return h(
    "table",
    { "aria-label": `${a.symbol} order book` },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Price (USD)"), h("th", { scope: "col" }, "Quantity"))),
    h("tbody", { class: "asks" }, b.asks.slice().reverse().map(row("ask"))),
    h("tbody", { class: "bids" }, b.bids.map(row("bid"))),
  );
}

/** A failure that leaves the last figures standing (marked stale) rather than an error: the exchange or a
 *  part of it is not answering now. */
const unavailable = (err: unknown) =>
  err instanceof ExchangeError && (err.code === "NETWORK" || err.code === "SERVICE_UNAVAILABLE" || err.status >= 502);

/** Marks a panel's figures as the last known ones (since: when they were last fresh), or live again. */
function markStale(el: HTMLElement, since: string | null, what: string): void {
  el.querySelector(":scope > .stale")?.remove();
  if (since === null) return void delete el.dataset.stale;
  el.dataset.stale = since;
  el.append(
    h(
      "p",
      { class: "stale", role: "status" },
      h("strong", {}, "Stale: "),
      `the last known ${what}, as of ${dateTimeOf(since)}. Market data is not updating right now; this page tries again by itself.`,
    ),
  );
}

interface Polled<T> {
  el: HTMLElement;
  title: string;
  what: string;
  read: () => Promise<{ body: T; staleSince: string | null }>;
  show: (body: T) => Node[];
  onData?: (body: T) => void;
}

/** A panel read again and again while its page is on screen: on a failure of the exchange's parts, the last
 *  figures stay, marked stale; the next good answer clears the mark. */
function polled<T>(seq: number, p: Polled<T>): () => Promise<void> {
  const head = () => h("h3", { id: `${p.el.id}-h` }, p.title);
  let freshAt: string | null = null;
  return async () => {
    try {
      const r = await p.read();
      if (!onScreen(seq)) return;
      replace(p.el, head(), ...p.show(r.body));
      freshAt = r.staleSince ?? new Date().toISOString();
      markStale(p.el, r.staleSince, p.what);
      p.onData?.(r.body);
    } catch (err) {
      if (!onScreen(seq)) return;
      if (freshAt !== null && unavailable(err)) markStale(p.el, freshAt, p.what);
      else replace(p.el, head(), errorBox(err));
    }
  };
}

/** Reads the quote and the book into their panels while the page is on screen. */
function marketPanels(
  a: AssetDetail,
  seq: number,
  quoteEl: HTMLElement,
  bookEl: HTMLElement,
  onBook: (b: Book) => void,
) {
  const id = encodeURIComponent(a.id);
  const loadQuote = polled<Quote>(seq, {
    el: quoteEl,
    title: "Quote",
    what: "quote",
    read: () => publicRead<Quote>(`/assets/${id}/quote`),
    show: (q) => [quoteFigures(q), h("p", { class: "note" }, `Settled trades, as of ${dateTimeOf(q.timestamp)}.`)],
  });
  const loadBook = polled<Book>(seq, {
    el: bookEl,
    title: "Order book",
    what: "book",
    read: () => publicRead<Book>(`/assets/${id}/book?depth=10`),
    show: (b) => [bookTable(a, b)],
    onData: onBook,
  });
  return { loadQuote, loadBook };
}

export async function assetPage(id: string): Promise<void> {
  const seq = app.seq;
  page(id, loading("the asset"));
  let a: AssetDetail;
  let staleSince: string | null;
  try {
    const r = await publicRead<{ data: AssetDetail }>(`/assets/${encodeURIComponent(id)}`);
    a = r.body.data;
    staleSince = r.staleSince;
  } catch (err) {
    if (onScreen(seq)) page(id, errorBox(err), h("p", {}, h("a", { href: "#/assets" }, "Back to the assets")));
    return;
  }
  if (!onScreen(seq)) return;
  const quoteEl = panel("quote", "quote", "Quote", "the quote");
  const bookEl = panel("book", "", "Order book", "the book");
  const order = orderSection(a);
  page(
    `${a.symbol} · ${a.name}`,
    factsPanel(a, staleSince),
    h("div", { class: "asset-grid" }, quoteEl, chartSection(a), bookEl, order.section),
  );
  const { loadQuote, loadBook } = marketPanels(a, seq, quoteEl, bookEl, order.setBook);
  await Promise.all([loadQuote(), loadBook()]);
  // spec 8's recommended polling: quote 5 s, book 3 s (5 s here: one tab stays far inside the public limit)
  every(5_000, () => void loadQuote());
  every(5_000, () => void loadBook());
  order.section.addEventListener("traded", () => void Promise.all([loadQuote(), loadBook()]));
}
