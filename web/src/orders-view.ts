// The account's open orders (each with its cancel button, and "cancel all") and its order history with
// each fill, its fee with a unit and its settlement transaction as a short copyable hash.
import { explain, signedRequest, type ApiOrder } from "./api";
import type { AccountState } from "./account";
import { h, thead } from "./dom";
import { amountText } from "./estimate";
import { shortHash } from "./format";
import type { MarketsInfo } from "./order";
import { dec, say, type Message } from "./state";
import type { ConnectedWallet } from "./wallet";

/** A fill's fee with its unit: the token the order receives (base for a buy, quote for a sell). */
function feeText(info: MarketsInfo | null, o: ApiOrder, fee: string | number): string {
  const m = info?.markets.find((x) => x.symbol === o.symbol);
  const text = typeof fee === "number" ? dec(fee) : fee;
  return m ? amountText(text, o.side === "buy" ? m.base.symbol : m.quote.symbol) : text;
}

/** A transaction hash, short, with the whole hash in its title and a copy button. */
export function hashChip(hash: string): HTMLElement {
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

function fillsCell(info: MarketsInfo | null, o: ApiOrder): HTMLElement {
  const fills = o.fills ?? [];
  return h(
    "td",
    { class: "fills" },
    fills.length === 0
      ? "—"
      : h(
          "ul",
          {},
          fills.map((f) =>
            h(
              "li",
              { "data-settlement": f.settlement },
              `${dec(f.size)} @ ${dec(f.price)} (${f.liquidity}, fee ${feeText(info, o, f.fee)}) · `,
              f.tx_hash ? h("span", { class: "tx" }, "settled in ", hashChip(f.tx_hash)) : "settlement pending",
            ),
          ),
        ),
  );
}

export interface OrdersViewDeps {
  info: MarketsInfo | null;
  wallet: ConnectedWallet;
  account: AccountState;
  /** the cancel result line's text, kept across re-renders */
  message: Message;
  /** after a cancel: the account refresh */
  refresh(): void;
}

/** Open orders and history, with their cancel buttons. */
export function ordersView(d: OrdersViewDeps): Node[] {
  const cancelOut = h(
    "p",
    { class: "result", role: "status", "aria-live": "polite", id: "cancel-result", "data-kind": d.message.kind },
    d.message.text,
  );
  const cancel = async (ids: string[]) => {
    say(cancelOut, d.message, ids.length > 1 ? `Cancelling ${ids.length} orders…` : "Cancelling…");
    const failures: string[] = [];
    for (const id of ids) {
      try {
        await signedRequest(d.wallet, "DELETE", `/v1/orders/${id}`);
      } catch (err) {
        failures.push(`${id.slice(0, 8)}: ${explain(err)}`);
      }
    }
    const done = ids.length > 1 ? `${ids.length} orders cancelled.` : "Order cancelled.";
    say(
      cancelOut,
      d.message,
      failures.length ? `Not cancelled: ${failures.join("; ")}` : done,
      failures.length ? "error" : "ok",
    );
    d.refresh();
  };
  const a = d.account;
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
    orderTable(d.info, a.open, cancel, "open-orders", "No open order."),
    cancelOut,
    h("h3", {}, "Order history"),
    orderTable(d.info, a.history, null, "order-history", "No order yet."),
  ];
}

/** Open orders (with `cancel`) or the history (fills and settlement, `cancel` null). */
function orderTable(
  info: MarketsInfo | null,
  orders: ApiOrder[],
  cancel: ((ids: string[]) => Promise<void>) | null,
  id: string,
  empty: string,
): HTMLElement {
  if (orders.length === 0) return h("p", { class: "empty", id }, empty);
  const columns = ["Market", "Side", "Type", "Price", "Filled / size", "Status"];
  return h(
    "table",
    { id },
    thead([...columns, cancel ? "Action" : "Fills and settlement"]),
    h(
      "tbody",
      {},
      orders.map((o) => orderRow(info, o, cancel)),
    ),
  );
}

function orderRow(
  info: MarketsInfo | null,
  o: ApiOrder,
  cancel: ((ids: string[]) => Promise<void>) | null,
): HTMLElement {
  return h(
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
    cancel
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
      : fillsCell(info, o),
  );
}
