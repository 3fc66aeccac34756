// The asset page's order form: buy or sell, market or limit; a market buy by dollar amount (the default) or by
// quantity, with the estimate, buying power, who may buy and the fee shown before Buy; every refusal in words
// next to its field or under the button. A placed order fires "traded" on the section.
import { h, replace } from "../../dom";
import { call, currentSession, publicGet, type Account, type AssetDetail, type Book, type Order } from "../api";
import { dollarBuy, type DollarBuy } from "../dollars";
import { checkAmount, dec, explain, orderBody, usd, type OrderDraft } from "../model";
import { dollarRefusal, eligibilityNote, estimateText, feeNote } from "./order-notes";
import { orderParts, type OrderParts } from "./order-parts";

interface FormState {
  a: AssetDetail;
  draft: OrderDraft;
  by: "usd" | "quantity";
  book: Book | null;
  account: Account | null;
}

export interface OrderForm {
  section: HTMLElement;
  /** the live book the page polls: a dollar amount's estimate follows it */
  setBook(b: Book): void;
}

const dollarsMode = (st: FormState) =>
  st.a.trading !== null && st.draft.side === "BUY" && st.draft.orderType === "market" && st.by === "usd";

/** A dollar amount as an order now (null when the amount is not yet a valid one). */
function dollarsNow(st: FormState, text: string): DollarBuy | null {
  const amount = checkAmount(text, "amount", { maxFraction: 2 });
  if (!amount.ok || !st.book || !st.a.trading) return null;
  const t = st.a.trading;
  return dollarBuy(amount.value, st.book.asks, t.lotSize, st.account?.buyingPower ?? null, t.takerFeeBps);
}

function refreshEstimate(p: OrderParts, st: FormState): void {
  const r = dollarsMode(st) ? dollarsNow(st, p.usd.value) : null;
  p.estimate.textContent = r === null ? "" : r.ok ? estimateText(st.a, r) : dollarRefusal(st.a, r, st.account);
  p.estimate.dataset.kind = r === null ? "" : r.ok ? "ok" : "error";
  p.estimate.dataset.quantity = r?.ok ? r.quantity : "";
}

/** Shows the fields of the side, type and amount kind chosen. */
function layout(p: OrderParts, st: FormState): void {
  const buyAtMarket = st.a.trading !== null && st.draft.side === "BUY" && st.draft.orderType === "market";
  p.byGroup.hidden = !buyAtMarket;
  for (const b of p.byButtons) b.setAttribute("aria-pressed", String(b.dataset.by === st.by));
  p.fUsd.wrap.hidden = !dollarsMode(st);
  p.fQty.wrap.hidden = dollarsMode(st);
  p.fPrice.wrap.hidden = st.draft.orderType !== "limit";
  p.submit.textContent = st.draft.side === "BUY" ? "Buy" : "Sell";
  refreshEstimate(p, st);
}

function sideButtons(p: OrderParts, st: FormState): HTMLElement[] {
  const sides: HTMLElement[] = (["BUY", "SELL"] as const).map((s) =>
    h(
      "button",
      {
        type: "button",
        class: `side ${s.toLowerCase()}`,
        "data-side": s,
        "aria-pressed": String(st.draft.side === s),
        onclick: () => {
          st.draft.side = s;
          for (const b of sides) b.setAttribute("aria-pressed", String(b.dataset.side === s));
          layout(p, st);
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

/** The quantity of a dollar amount, or its refusal on the amount's field (null: nothing to send). */
async function quantityOfDollars(p: OrderParts, st: FormState): Promise<string | null> {
  const amount = checkAmount(p.usd.value, "amount", { maxFraction: 2 });
  if (!amount.ok) {
    p.fUsd.error.textContent = amount.error;
    return null;
  }
  st.book ??= await publicGet<Book>(`/assets/${encodeURIComponent(st.a.id)}/book?depth=10`);
  const r = dollarsNow(st, amount.value)!;
  if (r.ok) return r.quantity;
  p.fUsd.error.textContent = dollarRefusal(st.a, r, st.account);
  return null;
}

function clearResult(p: OrderParts): void {
  for (const f of [p.fUsd, p.fQty, p.fPrice]) f.error.textContent = "";
  p.result.textContent = "";
  p.result.dataset.kind = "";
  for (const k of ["orderId", "code", "status"]) delete p.result.dataset[k];
}

function refuse(p: OrderParts, focus: HTMLInputElement): void {
  p.result.dataset.kind = "error";
  p.result.textContent = "Nothing was sent: correct the fields above.";
  focus.focus();
}

/** The order's body from the form, or null after showing why not. */
async function bodyOf(p: OrderParts, st: FormState): Promise<Record<string, unknown> | null> {
  if (dollarsMode(st)) {
    const q = await quantityOfDollars(p, st).catch((err: unknown) => {
      p.fUsd.error.textContent = explain(err);
      return null;
    });
    if (q === null) {
      refuse(p, p.usd);
      return null;
    }
    st.draft.quantity = q;
  } else st.draft.quantity = p.qty.value;
  st.draft.limitPrice = p.price.value;
  const built = orderBody(st.a.id, st.a.type === "pre-ipo", st.draft);
  if (built.ok) return built.body;
  if (built.errors.quantity) p.fQty.error.textContent = built.errors.quantity;
  if (built.errors.limitPrice) p.fPrice.error.textContent = built.errors.limitPrice;
  refuse(p, built.errors.quantity ? p.qty : p.price);
  return null;
}

async function submitOrder(p: OrderParts, st: FormState, section: HTMLElement): Promise<void> {
  clearResult(p);
  const body = await bodyOf(p, st);
  if (!body) return;
  p.submit.disabled = true;
  p.result.textContent = "Placing the order…";
  try {
    const o = (await call<{ data: Order }>("POST", "/orders", body)).data;
    p.result.dataset.kind = "ok";
    p.result.dataset.orderId = o.orderId;
    p.result.dataset.status = o.status;
    p.result.textContent = placedText(o);
    section.dispatchEvent(new Event("traded"));
  } catch (err) {
    p.result.dataset.kind = "error";
    p.result.dataset.code = (err as { code?: string }).code ?? "";
    p.result.textContent = explain(err);
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

/** Reads the account (buying power, accreditation) into the form's notes. */
async function loadAccount(p: OrderParts, st: FormState): Promise<void> {
  try {
    st.account = (await call<{ data: Account }>("GET", "/account")).data;
  } catch {
    return; // the notes stay general; the exchange still checks every order
  }
  p.eligibility.replaceWith((p.eligibility = eligibilityNote(st.a, st.account)));
  replace(p.buyingPower, `Buying power: ${usd(st.account.buyingPower)}`);
  refreshEstimate(p, st);
}

function wire(p: OrderParts, st: FormState, section: HTMLElement): void {
  p.typeSel.addEventListener("change", () => {
    st.draft.orderType = p.typeSel.value as "market" | "limit";
    layout(p, st);
  });
  for (const b of p.byButtons)
    b.addEventListener("click", () => {
      st.by = b.dataset.by as "usd" | "quantity";
      layout(p, st);
    });
  p.usd.addEventListener("input", () => refreshEstimate(p, st));
  p.form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void submitOrder(p, st, section);
  });
  section.addEventListener("traded", () => void loadAccount(p, st));
}

export function orderSection(a: AssetDetail): OrderForm {
  const section = h(
    "section",
    { class: "panel order-form", id: "order-form", "aria-labelledby": "order-h" },
    h("h3", { id: "order-h" }, "Buy or sell"),
  );
  const none = noForm(a);
  if (none) {
    section.append(none);
    return { section, setBook: () => {} };
  }
  const st: FormState = {
    a,
    draft: { side: "BUY", orderType: "market", quantity: "", limitPrice: "" },
    by: "usd",
    book: null,
    account: null,
  };
  const p = orderParts(a, eligibilityNote(a, null), feeNote(a));
  p.sides.append(...sideButtons(p, st));
  wire(p, st, section);
  layout(p, st);
  section.append(p.form);
  void loadAccount(p, st);
  return {
    section,
    setBook: (b) => {
      st.book = b;
      refreshEstimate(p, st);
    },
  };
}
