// The asset page's order form: buy or sell, market or limit, a quantity (and a limit price); every refusal in
// words next to its field or under the button. A placed order fires "traded" on the section.
import { field, h } from "../../dom";
import { call, currentSession, type AssetDetail, type Order } from "../api";
import { accreditationLabel, dec, explain, orderBody, usd, type OrderDraft } from "../model";

interface OrderParts {
  typeSel: HTMLSelectElement;
  qty: HTMLInputElement;
  price: HTMLInputElement;
  fQty: ReturnType<typeof field>;
  fPrice: ReturnType<typeof field>;
  submit: HTMLButtonElement;
  result: HTMLElement;
}

function orderParts(a: AssetDetail): OrderParts {
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
  const fPrice = field("Limit price (USD)", price, "a decimal, on the asset's tick size");
  fPrice.wrap.hidden = true;
  return {
    typeSel,
    qty,
    price,
    fQty: field(`Quantity (${a.symbol})`, qty, "a decimal, on the asset's lot size"),
    fPrice,
    submit: h("button", { type: "submit", class: "primary", id: "place-order" }, "Buy") as HTMLButtonElement,
    result: h("p", { class: "result", id: "order-result", role: "status", "aria-live": "polite" }),
  };
}

function sideButtons(draft: OrderDraft, submit: HTMLButtonElement): HTMLElement[] {
  const sides: HTMLElement[] = (["BUY", "SELL"] as const).map((s) =>
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
  return sides;
}

/** The sentence of a placed order: its status, what filled and at what average. */
function placedText(o: Order): string {
  const filled = o.filledQuantity
    ? ` Filled ${dec(o.filledQuantity)} at an average of ${usd(o.averagePrice ?? null)}.`
    : "";
  return `${o.side === "BUY" ? "Buy" : "Sell"} order ${o.orderId}: ${o.status.toLowerCase()}.${filled}${
    o.status === "PENDING" ? " It rests on the book until it fills or you cancel it (Portfolio)." : ""
  }`;
}

async function submitOrder(a: AssetDetail, p: OrderParts, draft: OrderDraft, section: HTMLElement): Promise<void> {
  const { result } = p;
  p.fQty.error.textContent = "";
  p.fPrice.error.textContent = "";
  result.textContent = "";
  result.dataset.kind = "";
  delete result.dataset.orderId;
  delete result.dataset.code;
  draft.quantity = p.qty.value;
  draft.limitPrice = p.price.value;
  const built = orderBody(a.id, a.type === "pre-ipo", draft);
  if (!built.ok) {
    if (built.errors.quantity) p.fQty.error.textContent = built.errors.quantity;
    if (built.errors.limitPrice) p.fPrice.error.textContent = built.errors.limitPrice;
    result.dataset.kind = "error";
    result.textContent = "Nothing was sent: correct the fields above.";
    (built.errors.quantity ? p.qty : p.price).focus();
    return;
  }
  p.submit.disabled = true;
  result.textContent = "Placing the order…";
  try {
    const o = (await call<{ data: Order }>("POST", "/orders", built.body)).data;
    result.dataset.kind = "ok";
    result.dataset.orderId = o.orderId;
    result.dataset.status = o.status;
    result.textContent = placedText(o);
    section.dispatchEvent(new Event("traded"));
  } catch (err) {
    result.dataset.kind = "error";
    result.dataset.code = (err as { code?: string }).code ?? "";
    result.textContent = explain(err);
  } finally {
    p.submit.disabled = false;
  }
}

/** Why there is no form: the asset cannot be traded, or nobody is logged in. */
function noForm(a: AssetDetail): HTMLElement | null {
  if (!a.tradeable) return h("p", { class: "empty" }, "This asset is listed but cannot be traded yet.");
  if (currentSession()) return null;
  const next = encodeURIComponent(`/asset/${a.id}`);
  return h("p", {}, h("a", { href: `#/login?next=${next}` }, "Log in"), " to buy or sell.");
}

export function orderSection(a: AssetDetail): HTMLElement {
  const section = h(
    "section",
    { class: "panel order-form", id: "order-form", "aria-labelledby": "order-h" },
    h("h3", { id: "order-h" }, "Buy or sell"),
  );
  const none = noForm(a);
  if (none) {
    section.append(none);
    return section;
  }
  const draft: OrderDraft = { side: "BUY", orderType: "market", quantity: "", limitPrice: "" };
  const p = orderParts(a);
  p.typeSel.addEventListener("change", () => {
    draft.orderType = p.typeSel.value as "market" | "limit";
    p.fPrice.wrap.hidden = draft.orderType !== "limit";
  });
  const fType = field(
    "Order type",
    p.typeSel,
    "market: now at the best prices on the book; limit: at your price or better",
  );
  const form = h(
    "form",
    { novalidate: true, "aria-describedby": "order-result" },
    h("div", { class: "sides", role: "group", "aria-label": "Side" }, sideButtons(draft, p.submit)),
    fType.wrap,
    p.fQty.wrap,
    p.fPrice.wrap,
    a.type === "pre-ipo" ? h("p", { class: "note" }, "A pre-IPO order: it is sent as such (isPreIPO).") : null,
    a.accreditationType ? h("p", { class: "note" }, `${accreditationLabel(a.accreditationType)}.`) : null,
    p.submit,
    p.result,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void submitOrder(a, p, draft, section);
  });
  section.append(form);
  return section;
}
