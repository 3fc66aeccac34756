// The order form's controls for one market, each labelled with its hint and error line, and what the form
// shows from a built order: the EIP-712 preview and the estimated cost and fee with their units.
import { field, h } from "./dom";
import { amountText, estimate } from "./estimate";
import type { BuiltOrder, MarketInfo, MarketsInfo, OrderForm } from "./order";

type Field = ReturnType<typeof field>;

export interface OrderFields {
  typeSel: HTMLSelectElement;
  tifSel: HTMLSelectElement;
  price: HTMLInputElement;
  trigger: HTMLInputElement;
  protection: HTMLInputElement;
  size: HTMLInputElement;
  iceberg: HTMLInputElement;
  hidden: HTMLInputElement;
  expires: HTMLInputElement;
  /** the labelled fields by the key buildOrder's errors use */
  byKey: {
    price: Field;
    triggerPrice: Field;
    protectionPrice: Field;
    size: Field;
    icebergVisibleSize: Field;
    expiresAt: Field;
    type: Field;
  };
  tif: Field;
  estimateLine: HTMLElement;
  preview: HTMLElement;
  result: HTMLElement;
  submit: HTMLButtonElement;
}

const input = (name: string, mode = "decimal") =>
  h("input", { name, inputmode: mode, autocomplete: "off" }) as HTMLInputElement;

export function buildOrderFields(m: MarketInfo): OrderFields {
  const typeSel = h("select", { name: "type" }) as HTMLSelectElement;
  // a market order first (its worst price follows the book: a size is all it needs), else a limit order
  const first = m.order_types.some((t) => t.type === "market") ? "market" : "limit";
  for (const t of m.order_types)
    typeSel.append(h("option", { value: t.type, selected: t.type === first }, t.type.replace(/_/g, " ")));
  const tifSel = h("select", { name: "time_in_force" }) as HTMLSelectElement;
  const price = input("price");
  const trigger = input("trigger_price");
  const protection = input("protection_price");
  const size = input("size");
  const iceberg = input("iceberg_visible_size");
  const expires = h("input", { type: "datetime-local", name: "expires_at" }) as HTMLInputElement;
  const q = m.quote.symbol;
  return {
    typeSel,
    tifSel,
    price,
    trigger,
    protection,
    size,
    iceberg,
    hidden: h("input", { type: "checkbox", name: "hidden", id: "hidden" }) as HTMLInputElement,
    expires,
    byKey: {
      price: field(`Limit price (${q})`, price, `rounded to the tick, ${m.tick_size}`),
      triggerPrice: field(`Trigger price (${q})`, trigger, "the order enters the book when the last trade reaches it"),
      protectionPrice: field(`Worst price (${q})`, protection, "the limit your signature allows: no fill beyond it"),
      size: field(`Size (${m.base.symbol})`, size, `rounded down to the lot, ${m.lot_size}; min ${m.min_size}`),
      icebergVisibleSize: field(
        `Iceberg visible size (${m.base.symbol}, optional)`,
        iceberg,
        "only this much shows in the book at a time",
      ),
      expiresAt: field("Expires at (good till date)", expires),
      type: field("Order type", typeSel),
    },
    tif: field("Time in force", tifSel),
    estimateLine: h("p", { class: "estimate", id: "order-estimate" }),
    preview: h("pre", {
      class: "signed-preview",
      id: "signed-preview",
      tabindex: "0",
      "aria-label": "What the wallet signs",
    }),
    result: h("p", { class: "result", role: "status", "aria-live": "polite", id: "order-result" }),
    submit: h("button", { type: "submit", class: "primary", id: "place-order" }, "Sign and place") as HTMLButtonElement,
  };
}

/** The form as typed. */
export function readOrderFields(f: OrderFields, side: "buy" | "sell"): OrderForm {
  return {
    side,
    type: f.typeSel.value,
    timeInForce: f.tifSel.value,
    price: f.price.value,
    triggerPrice: f.trigger.value,
    protectionPrice: f.protection.value,
    size: f.size.value,
    hidden: f.hidden.checked,
    icebergVisibleSize: f.iceberg.value,
    expiresAtMs: f.expires.value ? new Date(f.expires.value).getTime() : null,
  };
}

/** The estimated cost (or proceeds) and fee, with units; "" when the book gives no estimate. */
export function estimateText(m: MarketInfo, side: "buy" | "sell", o: BuiltOrder): string {
  const e = estimate(m, side, o.rounded.signedPrice, o.rounded.size);
  if (!e) return "";
  const bound = o.rounded.price === null ? "at most " : "";
  return `Estimated ${side === "buy" ? "cost" : "proceeds"}: ${bound}${amountText(e.cost, m.quote.symbol)} · fee: ${bound}${amountText(e.fee, e.feeToken)} (taker ${m.fees.taker_bps} bps, taken from what you receive; maker ${m.fees.maker_bps} bps)`;
}

/** What the wallet signs, field by field, and the body sent with it. */
export function previewText(info: MarketsInfo, m: MarketInfo, side: "buy" | "sell", o: BuiltOrder): string {
  const msg = o.message;
  const d = info.eip712.domain;
  return [
    `EIP-712 "${d.name}" v${d.version}, chain ${d.chainId}, contract ${d.verifyingContract}`,
    `Order {`,
    `  trader:     ${msg.trader}`,
    `  baseToken:  ${msg.baseToken} (${m.base.symbol})`,
    `  quoteToken: ${msg.quoteToken} (${m.quote.symbol})`,
    `  side:       ${msg.side} (${side})`,
    `  price:      ${msg.price} (= ${o.rounded.signedPrice} ${m.quote.symbol} per ${m.base.symbol}${o.rounded.price === null ? ", worst price" : ""})`,
    `  amount:     ${msg.amount} (= ${o.rounded.size} ${m.base.symbol})`,
    `  expiry:     ${msg.expiry} (${new Date(Number(msg.expiry) * 1000).toISOString()})`,
    `  nonce:      ${msg.nonce}`,
    `  flags:      ${msg.flags}${msg.flags ? " (post only)" : ""}`,
    `}`,
    `sent with: ${JSON.stringify(o.body)}`,
  ].join("\n");
}
