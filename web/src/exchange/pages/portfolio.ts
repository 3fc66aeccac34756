// #/portfolio: holdings (the chain's balances, priced), their lots with restriction dates, and the open orders
// with a cancel button; reloaded every 15 s.
import { h, replace } from "../../dom";
import { call, type Holding, type LotHolding, type Order } from "../api";
import { dateOf, dateTimeOf, dec, pct, regimeLabel, usd } from "../model";
import {
  alertIn,
  app,
  changeClass,
  errorBox,
  every,
  headRow,
  loading,
  onScreen,
  page,
  requireLogin,
  scroller,
} from "../shell";

const holdingsHead = () => h("h3", { id: "holdings-h" }, "Holdings");
const ordersHead = () => h("h3", { id: "orders-h" }, "Open orders");

export async function portfolioPage(): Promise<void> {
  if (!requireLogin()) return;
  const seq = app.seq;
  const holdingsEl = h(
    "section",
    { class: "panel", "aria-labelledby": "holdings-h", id: "holdings" },
    holdingsHead(),
    loading("your holdings"),
  );
  const ordersEl = h(
    "section",
    { class: "panel", "aria-labelledby": "orders-h", id: "open-orders" },
    ordersHead(),
    loading("your orders"),
  );
  page("Portfolio", holdingsEl, ordersEl);
  const load = async () => {
    try {
      const [p, xp] = await Promise.all([
        call<{ data: Holding[] }>("GET", "/portfolio"),
        call<{ data: LotHolding[] }>("GET", "/exchange-portfolio"),
      ]);
      if (onScreen(seq)) replace(holdingsEl, holdingsHead(), holdingsView(p.data, xp.data));
    } catch (err) {
      if (onScreen(seq)) replace(holdingsEl, holdingsHead(), errorBox(err));
    }
  };
  const reload = () => Promise.all([loadOrders(), load()]);
  const loadOrders = async () => {
    try {
      const r = await call<{ data: Order[] }>("GET", "/orders?status=PENDING");
      if (onScreen(seq)) replace(ordersEl, ordersHead(), ordersView(r.data, ordersEl, reload));
    } catch (err) {
      if (onScreen(seq)) replace(ordersEl, ordersHead(), errorBox(err));
    }
  };
  await Promise.all([load(), loadOrders()]);
  every(15_000, () => void Promise.all([load(), loadOrders()]));
}

function ordersView(orders: Order[], ordersEl: HTMLElement, reload: () => Promise<unknown>): Node {
  if (orders.length === 0) return h("p", { class: "empty" }, "No open order.");
  const cancel = (o: Order) => async (ev: Event) => {
    const b = ev.currentTarget as HTMLButtonElement;
    b.disabled = true;
    try {
      await call("DELETE", `/orders/${encodeURIComponent(o.orderId)}`);
    } catch (err) {
      alertIn(ordersEl, err);
    }
    await reload();
  };
  const row = (o: Order) =>
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
            onclick: cancel(o),
          },
          "Cancel",
        ),
      ),
    );
  return scroller(
    "Open orders",
    h(
      "table",
      {},
      headRow(["Asset", "Side", "Quantity", "Limit (USD)", "Placed", "Action"]),
      h("tbody", {}, orders.map(row)),
    ),
  );
}

function holdingRow(x: Holding): HTMLElement {
  return h(
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
  );
}

function lotsTable(withLots: LotHolding[]): HTMLElement {
  const rows = withLots.flatMap((x) =>
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
  );
  return h(
    "table",
    { class: "lots", "aria-labelledby": "lots-h" },
    headRow(["Asset", "Quantity", "Acquired", "Restricted until", "Restricted", "Offering"]),
    h("tbody", {}, rows),
  );
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
        headRow(["Asset", "Quantity", "Average cost", "Price", "Market value", "Unrealized P&L"]),
        h("tbody", {}, holdings.map(holdingRow)),
      ),
    ),
    h("h3", { id: "lots-h" }, "Lots"),
    h(
      "p",
      { class: "note" },
      "Each buy is a lot; sells take the oldest lots first. A restricted lot can only be sold to buyers an exemption covers until its restriction ends.",
    ),
    h(
      "p",
      { class: "note", id: "portfolio-fee-note" },
      "Quantities are what you received: a buy pays its fee in the asset it buys, so you hold slightly less than the quantity you bought; a sell pays it in dollars. Each trade's fee is on the ",
      h("a", { href: "#/transactions?type=trade" }, "Transactions"),
      " page.",
    ),
    scroller("Lots", lotsTable(withLots)),
  );
}
