// The order form's controls, made once per asset page (live data updates their notes, never the inputs).
import { field, h } from "../../dom";
import type { AssetDetail } from "../api";

export interface OrderParts {
  form: HTMLFormElement;
  sides: HTMLElement;
  typeSel: HTMLSelectElement;
  byGroup: HTMLElement;
  byButtons: HTMLButtonElement[];
  usd: HTMLInputElement;
  qty: HTMLInputElement;
  price: HTMLInputElement;
  fUsd: ReturnType<typeof field>;
  fQty: ReturnType<typeof field>;
  fPrice: ReturnType<typeof field>;
  estimate: HTMLElement;
  buyingPower: HTMLElement;
  eligibility: HTMLElement;
  submit: HTMLButtonElement;
  result: HTMLElement;
}

const decimalInput = (id: string, name: string) =>
  h("input", { id, name, inputmode: "decimal", autocomplete: "off" }) as HTMLInputElement;

function amountKind(a: AssetDetail): { byGroup: HTMLElement; byButtons: HTMLButtonElement[] } {
  const byButtons = [
    h("button", { type: "button", id: "by-usd", "data-by": "usd", "aria-pressed": "true" }, "Dollars"),
    h("button", { type: "button", id: "by-quantity", "data-by": "quantity", "aria-pressed": "false" }, a.symbol),
  ] as HTMLButtonElement[];
  const byGroup = h(
    "div",
    { class: "by", role: "group", "aria-label": "Buy by" },
    h("span", { class: "by-label" }, "Buy by"),
    ...byButtons,
  );
  return { byGroup, byButtons };
}

export function orderParts(a: AssetDetail, eligibility: HTMLElement, fee: HTMLElement | null): OrderParts {
  const typeSel = h(
    "select",
    { id: "order-type", name: "orderType" },
    h("option", { value: "market", selected: true }, "Market"),
    h("option", { value: "limit" }, "Limit"),
  ) as HTMLSelectElement;
  const [usd, qty, price] = [
    decimalInput("amount-usd", "amountUsd"),
    decimalInput("quantity", "quantity"),
    decimalInput("limit-price", "limitPrice"),
  ];
  const fType = field(
    "Order type",
    typeSel,
    "market: now at the best prices on the book; limit: at your price or better",
  );
  const fUsd = field(
    "Amount (USD)",
    usd,
    "dollars and cents; the quantity is what it buys at the book's prices, in whole lots",
  );
  const fQty = field(`Quantity (${a.symbol})`, qty, "a decimal, on the asset's lot size");
  const fPrice = field("Limit price (USD)", price, "a decimal, on the asset's tick size");
  const kind = amountKind(a);
  const sides = h("div", { class: "sides", role: "group", "aria-label": "Side" });
  const estimate = h("p", { id: "order-estimate", class: "estimate", "aria-live": "polite" });
  const buyingPower = h("p", { id: "order-buying-power", class: "note" });
  const submit = h("button", { type: "submit", class: "primary", id: "place-order" }, "Buy") as HTMLButtonElement;
  const result = h("p", { class: "result", id: "order-result", role: "status", "aria-live": "polite" });
  const form = h(
    "form",
    { novalidate: true, "aria-describedby": "order-result" },
    sides,
    fType.wrap,
    kind.byGroup,
    fUsd.wrap,
    fQty.wrap,
    fPrice.wrap,
    estimate,
    buyingPower,
    a.type === "pre-ipo" ? h("p", { class: "note" }, "A pre-IPO order: it is sent as such (isPreIPO).") : null,
    eligibility,
    fee,
    submit,
    result,
  ) as HTMLFormElement;
  return {
    form,
    sides,
    typeSel,
    ...kind,
    usd,
    qty,
    price,
    fUsd,
    fQty,
    fPrice,
    estimate,
    buyingPower,
    eligibility,
    submit,
    result,
  };
}
