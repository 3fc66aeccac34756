// #/asset/<id>: the asset's facts, its quote, chart and book (polled), and the order form.
import { h, replace } from "../../dom";
import { publicGet, type AssetDetail, type Book, type Quote } from "../api";
import { accreditationLabel, dateTimeOf, dec, imagePath, pct, regimeLabel, usd } from "../model";
import { app, fact, categoryLabel, changeClass, errorBox, every, loading, onScreen, page } from "../shell";
import { chartSection } from "./chart";
import { orderSection } from "./order-form";

function factsPanel(a: AssetDetail): HTMLElement {
  const img = imagePath(a.image);
  return h(
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

/** Reads the quote and the book into their panels while the page is on screen. */
function marketPanels(a: AssetDetail, seq: number, quoteEl: HTMLElement, bookEl: HTMLElement) {
  const id = encodeURIComponent(a.id);
  const loadQuote = async () => {
    try {
      const q = await publicGet<Quote>(`/assets/${id}/quote`);
      if (!onScreen(seq)) return;
      replace(
        quoteEl,
        h("h3", { id: "quote-h" }, "Quote"),
        quoteFigures(q),
        h("p", { class: "note" }, `Settled trades, as of ${dateTimeOf(q.timestamp)}.`),
      );
    } catch (err) {
      if (onScreen(seq)) replace(quoteEl, h("h3", { id: "quote-h" }, "Quote"), errorBox(err));
    }
  };
  const loadBook = async () => {
    try {
      const b = await publicGet<Book>(`/assets/${id}/book?depth=10`);
      if (!onScreen(seq)) return;
      replace(bookEl, h("h3", { id: "book-h" }, "Order book"), bookTable(a, b));
    } catch (err) {
      if (onScreen(seq)) replace(bookEl, h("h3", { id: "book-h" }, "Order book"), errorBox(err));
    }
  };
  return { loadQuote, loadBook };
}

export async function assetPage(id: string): Promise<void> {
  const seq = app.seq;
  page(id, loading("the asset"));
  let a: AssetDetail;
  try {
    a = (await publicGet<{ data: AssetDetail }>(`/assets/${encodeURIComponent(id)}`)).data;
  } catch (err) {
    if (onScreen(seq)) page(id, errorBox(err), h("p", {}, h("a", { href: "#/assets" }, "Back to the assets")));
    return;
  }
  if (!onScreen(seq)) return;
  const quoteEl = panel("quote", "quote", "Quote", "the quote");
  const bookEl = panel("book", "", "Order book", "the book");
  const orderEl = orderSection(a);
  page(
    `${a.symbol} · ${a.name}`,
    factsPanel(a),
    h("div", { class: "asset-grid" }, quoteEl, chartSection(a), bookEl, orderEl),
  );
  const { loadQuote, loadBook } = marketPanels(a, seq, quoteEl, bookEl);
  await Promise.all([loadQuote(), loadBook()]);
  // spec 8's recommended polling: quote 5 s, book 3 s (5 s here: one tab stays far inside the public limit)
  every(5_000, () => void loadQuote());
  every(5_000, () => void loadBook());
  orderEl.addEventListener("traded", () => void Promise.all([loadQuote(), loadBook()]));
}
