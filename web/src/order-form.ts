// The order panel: side, type and the fields its type needs; the default worst price of a type without a
// limit price follows the book; every refusal shows next to its field and nothing is sent; the wallet signs
// the EIP-712 Order the page shows, then the order is posted.
import { numberToDecimalString } from "../../sdk/decimal";
import { explain, placeOrder, signedRequest, type ApiOrder } from "./api";
import { h, replace } from "./dom";
import { DEFAULT_SLIPPAGE_BPS, groupDigits, worstPrice } from "./estimate";
import { buildOrder, freshNonce, withSignature, type BuiltOrder, type MarketInfo, type MarketsInfo } from "./order";
import { buildOrderFields, estimateText, previewText, readOrderFields, type OrderFields } from "./order-fields";
import { dec, type AppState } from "./state";
import type { ConnectedWallet } from "./wallet";

export class OrderFormPanel {
  private side: "buy" | "sell" = "buy";
  private f: OrderFields | null = null;
  private formEl: HTMLFormElement | null = null;
  private sideButtons: HTMLButtonElement[] = [];
  private shownType = "";

  constructor(
    private readonly state: AppState,
    private readonly section: HTMLElement,
    /** after an order is placed: the account refresh */
    private readonly onPlaced: () => void,
  ) {}

  render(): void {
    const m = this.state.market;
    const info = this.state.info;
    this.f = null;
    if (!m || !info) return replace(this.section);
    const f = buildOrderFields(m);
    this.f = f;
    this.shownType = "";
    // the worst price follows the book (best opposite price + the default slippage) until the user types one
    f.protection.addEventListener(
      "input",
      () => (f.protection.dataset.typed = f.protection.value.trim() === "" ? "" : "1"),
    );
    this.sideButtons = (["buy", "sell"] as const).map(
      (s) =>
        h(
          "button",
          {
            type: "button",
            class: `side ${s}`,
            "aria-pressed": String(this.side === s),
            onclick: () => this.setSide(s),
          },
          s === "buy" ? "Buy" : "Sell",
        ) as HTMLButtonElement,
    );
    const k = f.byKey;
    const formEl = h(
      "form",
      { novalidate: true, "aria-describedby": "order-result" },
      h("div", { class: "sides", role: "group", "aria-label": "Side" }, this.sideButtons),
      k.type.wrap,
      f.tif.wrap,
      k.price.wrap,
      k.triggerPrice.wrap,
      k.protectionPrice.wrap,
      k.size.wrap,
      h(
        "div",
        { class: "field checkbox", id: "hidden-field" },
        f.hidden,
        h("label", { for: "hidden" }, "Hidden (rests off the displayed book)"),
      ),
      k.icebergVisibleSize.wrap,
      k.expiresAt.wrap,
      f.estimateLine,
      f.submit,
      h("details", {}, h("summary", {}, "What the wallet signs"), f.preview),
      f.result,
    );
    this.formEl = formEl;
    formEl.addEventListener("input", () => this.update());
    formEl.addEventListener("change", () => this.update());
    formEl.addEventListener("submit", (ev) => {
      ev.preventDefault();
      void this.submit(info, m, f);
    });
    replace(this.section, h("h2", { id: "order-h" }, "Place an order"), formEl);
    this.update();
  }

  /** Live data: the default worst price follows the book without clearing the refusals on the form. */
  live(): void {
    const f = this.f;
    const m = this.state.market;
    if (!f || !m) return;
    if (m.order_types.find((t) => t.type === f.typeSel.value)?.price !== false || f.protection.dataset.typed === "1")
      return;
    this.update(this.formEl?.querySelector(".field-error:not(:empty)") !== null);
  }

  /** A price clicked in the book: the limit price, or the worst price of a type without one. */
  fillPrice(p: string): void {
    const f = this.f;
    const m = this.state.market;
    if (!f || !m) return;
    const rule = m.order_types.find((t) => t.type === f.typeSel.value)!;
    const target = rule.price ? f.price : f.protection;
    target.value = p;
    if (!rule.price) f.protection.dataset.typed = "1";
    this.update();
  }

  private setSide(s: "buy" | "sell"): void {
    this.side = s;
    this.update();
    this.sideButtons.forEach((b, i) => b.setAttribute("aria-pressed", String(["buy", "sell"][i] === s)));
  }

  /** Shows the fields the type needs and what the wallet would sign; the built order, or null. */
  private update(showErrors = false): BuiltOrder | null {
    const f = this.f;
    const m = this.state.market;
    const info = this.state.info;
    if (!f || !m || !info) return null;
    const rule = m.order_types.find((t) => t.type === f.typeSel.value)!;
    // a new type starts at its default time in force (the first the market lists)
    const current = f.typeSel.value === this.shownType ? f.tifSel.value : rule.time_in_force[0];
    this.shownType = f.typeSel.value;
    f.tifSel.replaceChildren(...rule.time_in_force.map((t) => h("option", { value: t, selected: t === current }, t)));
    const k = f.byKey;
    k.price.wrap.hidden = !rule.price;
    k.triggerPrice.wrap.hidden = !rule.trigger_price;
    k.protectionPrice.wrap.hidden = rule.price;
    k.expiresAt.wrap.hidden = f.tifSel.value !== "gtd";
    // hidden and iceberg orders rest in the book: not offered for a type or time in force that cannot rest
    const rests = rule.price && !["ioc", "fok"].includes(f.tifSel.value);
    const hiddenField = this.formEl?.querySelector<HTMLElement>("#hidden-field");
    if (hiddenField) hiddenField.hidden = !rests && !f.hidden.checked;
    k.icebergVisibleSize.wrap.hidden = !rests && f.iceberg.value.trim() === "";
    if (!rule.price) this.defaultWorstPrice(m, f);
    for (const x of Object.values(k)) x.error.textContent = "";
    f.estimateLine.textContent = "";
    if (!this.state.wallet) {
      f.preview.textContent = "Connect a wallet to see the order it will sign.";
      return null;
    }
    const built = buildOrder(info, m, readOrderFields(f, this.side), {
      trader: this.state.wallet.address,
      nowMs: Date.now(),
      nonce: freshNonce(Date.now(), Math.random()),
    });
    if (!built.ok) {
      if (showErrors)
        for (const [key, msg] of Object.entries(built.errors)) k[key as keyof typeof k].error.textContent = msg ?? "";
      f.preview.textContent = "Fill in the order to see what the wallet signs.";
      return null;
    }
    f.estimateLine.textContent = estimateText(m, this.side, built.order);
    f.preview.textContent = previewText(info, m, this.side, built.order);
    return built.order;
  }

  private defaultWorstPrice(m: MarketInfo, f: OrderFields): void {
    if (f.protection.dataset.typed === "1") return;
    const side = this.side;
    const ref = this.state.book?.best(side === "buy" ? "ask" : "bid") ?? this.state.lastTrade?.price ?? null;
    const worst = ref === null ? null : worstPrice(side, numberToDecimalString(ref) ?? "", m.tick_size);
    f.protection.value = worst ?? "";
    f.byKey.protectionPrice.hint.textContent = worst
      ? `default: ${DEFAULT_SLIPPAGE_BPS / 100} % beyond the best ${side === "buy" ? "ask" : "bid"} (${groupDigits(numberToDecimalString(ref!) ?? "")}); no fill beyond it`
      : "the book is empty on that side: type the worst price your signature allows";
  }

  /** With a session, the session key's agent signs (no prompt); otherwise the wallet signs the Order shown. */
  private async send(info: MarketsInfo, wallet: ConnectedWallet, o: BuiltOrder, result: HTMLElement) {
    if (wallet.session) {
      result.textContent = "Placing (signed by the session key)…";
      return signedRequest<ApiOrder>(wallet, "POST", "/v1/orders", o.body);
    }
    result.textContent = "Waiting for the wallet's signature…";
    const signature = await wallet.signTypedData({
      domain: info.eip712.domain,
      types: info.eip712.types,
      primaryType: info.eip712.primary_type,
      message: o.message as unknown as Record<string, unknown>,
    });
    result.textContent = "Placing…";
    return placeOrder(withSignature(o, signature));
  }

  private async submit(info: MarketsInfo, m: MarketInfo, f: OrderFields): Promise<void> {
    const { result, submit } = f;
    result.textContent = "";
    result.dataset.kind = "";
    const wallet = this.state.wallet;
    if (!wallet) {
      result.textContent = "Connect a wallet first.";
      result.dataset.kind = "error";
      return;
    }
    const o = this.update(true);
    if (!o) {
      result.textContent = "The order was not sent: correct the fields marked above.";
      result.dataset.kind = "error";
      (
        this.formEl
          ?.querySelector(".field-error:not(:empty)")
          ?.parentElement?.querySelector("input,select") as HTMLElement | null
      )?.focus();
      return;
    }
    submit.disabled = true;
    try {
      const placed = await this.send(info, wallet, o, result);
      const ended = ["cancelled", "rejected", "expired"].includes(placed.status) && placed.filled_size === 0;
      result.textContent = `Order ${placed.order_id.slice(0, 8)} ${placed.status.replace(/_/g, " ")}${placed.status_reason ? ` (${placed.status_reason.replace(/_/g, " ")})` : ""}: ${placed.side} ${dec(placed.size)} ${m.base.symbol}${placed.price !== null ? ` at ${dec(placed.price)}` : ""}${placed.filled_size > 0 ? `, ${dec(placed.filled_size)} filled` : ""}.`;
      result.dataset.kind = ended ? "error" : "ok";
      result.dataset.orderId = placed.order_id;
      this.onPlaced();
    } catch (err) {
      result.textContent = `Not placed: ${explain(err)}`;
      result.dataset.kind = "error";
    } finally {
      submit.disabled = false;
    }
  }
}
