// #/transactions?type=: deposits, withdrawals and trades, newest first.
import { h, replace } from "../../dom";
import { call, type Transaction } from "../api";
import { dateTimeOf, dec, methodLabel, usd } from "../model";
import { app, errorBox, headRow, loading, onScreen, page, requireLogin, scroller } from "../shell";

const TYPES: [string, string][] = [
  ["all", "All"],
  ["trade", "Trades"],
  ["deposit", "Deposits"],
  ["withdrawal", "Withdrawals"],
];

function typeLabel(t: Transaction): string {
  if (t.type === "trade") return "Trade";
  return `${t.type === "deposit" ? "Deposit" : "Withdrawal"}${t.method ? ` (${methodLabel(t.method)})` : ""}`;
}

/** A trade's fee in what it was paid in (a buy's in the asset, with its value), else in dollars. */
function feeText(t: Transaction): string {
  if (t.type !== "trade" || t.feeAsset === "USD") return usd(t.fee);
  return `${dec(t.feeQuantity)} ${t.feeAsset} (${usd(t.fee)})`;
}

function transactionRow(t: Transaction): HTMLElement {
  return h(
    "tr",
    { "data-id": t.id, "data-type": t.type },
    h("td", {}, dateTimeOf(t.timestamp)),
    h("td", {}, typeLabel(t)),
    h("td", {}, t.assetId),
    h("td", {}, t.side),
    h("td", {}, dec(t.quantity)),
    h("td", {}, t.type === "trade" ? usd(t.price) : "—"),
    h("td", {}, usd(t.total)),
    h("td", { class: "fee" }, feeText(t)),
    h("td", {}, t.status),
  );
}

function transactionsView(rows: Transaction[]): Node {
  if (rows.length === 0) return h("p", { class: "empty" }, "No transaction yet.");
  return scroller(
    "Transactions",
    h(
      "table",
      {},
      headRow(["Date", "Type", "Asset", "Side", "Quantity", "Price", "Total", "Fee", "Status"]),
      h("tbody", {}, rows.map(transactionRow)),
    ),
  );
}

export async function transactionsPage(params: URLSearchParams): Promise<void> {
  if (!requireLogin()) return;
  const seq = app.seq;
  const asked = params.get("type") ?? "";
  const type = ["deposit", "withdrawal", "trade"].includes(asked) ? asked : "all";
  const sel = h(
    "select",
    { id: "tx-type" },
    ...TYPES.map(([v, l]) => h("option", { value: v, selected: v === type }, l)),
  ) as HTMLSelectElement;
  sel.addEventListener("change", () => {
    location.hash = sel.value === "all" ? "#/transactions" : `#/transactions?type=${sel.value}`;
  });
  const list = h("div", { id: "transactions", "aria-live": "polite" }, loading("your transactions"));
  page(
    "Transactions",
    h("div", { class: "filters" }, h("div", { class: "field" }, h("label", { for: "tx-type" }, "Show"), sel)),
    list,
  );
  try {
    const r = await call<{ data: Transaction[] }>("GET", `/transactions?type=${type}`);
    if (onScreen(seq)) replace(list, transactionsView(r.data));
  } catch (err) {
    if (onScreen(seq)) replace(list, errorBox(err));
  }
}
