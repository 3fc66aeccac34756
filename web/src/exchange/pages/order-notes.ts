// What the order form says before Buy: who may buy the asset and whether this account may (with the way to the
// accreditation step), the fee and what it is paid in, and a dollar amount's estimate (quantity, cost, what
// is held, what is received after the fee) against buying power.
import { meetsAccreditation } from "../../../../sdk/accreditation";
import { formatDecimal } from "../../../../sdk/decimal";
import { h, replace } from "../../dom";
import type { Account, AssetDetail } from "../api";
import type { DollarBuy } from "../dollars";
import { accreditationLabel, dec, usd } from "../model";

/** Basis points as a percentage with at most 2 decimals: 5 -> "0.05 %". */
export const bpsText = (bps: number) => `${formatDecimal(BigInt(bps), 2)} %`;

const ACCREDITATION_STEP = "#/account?step=accreditation";

/** Who may buy, and whether this account may, shown before Buy (the exchange still decides on each order). */
export function eligibilityNote(a: AssetDetail, account: Account | null): HTMLElement {
  const el = h("p", { id: "eligibility", class: "eligibility note" }, `${accreditationLabel(a.accreditationType)}.`);
  if (!account || a.accreditationType === null) return el;
  const ok = meetsAccreditation(a.accreditationType, account);
  el.dataset.eligible = String(ok);
  if (ok) {
    el.append(" Your account qualifies.");
    return el;
  }
  replace(
    el,
    h("strong", {}, "You cannot buy this asset yet: "),
    a.accreditationType === "506c"
      ? "it needs a third party to verify that you are an accredited investor (Rule 506(c)). "
      : "it needs you to certify that you are an accredited investor (Rule 506(b)). ",
    h("a", { href: ACCREDITATION_STEP, id: "accreditation-link" }, "Get accredited"),
    ".",
  );
  el.dataset.eligible = "false";
  return el;
}

/** The fee, in words: its rates and what each side pays it in. */
export function feeNote(a: AssetDetail): HTMLElement | null {
  const t = a.trading;
  if (!t) return null;
  const leaves = formatDecimal(10_000n - BigInt(t.takerFeeBps), 4);
  return h(
    "p",
    { id: "fee-note", class: "note" },
    `Fee: ${bpsText(t.takerFeeBps)} of what you receive (${bpsText(t.makerFeeBps)} when your limit order rests and another order fills it). `,
    `A buy pays it in ${a.symbol}: buying 1 ${a.symbol} at market leaves you ${leaves} ${a.symbol}. A sell pays it in dollars.`,
  );
}

/** The sentence for a dollar amount the form cannot turn into an order. */
export function dollarRefusal(a: AssetDetail, r: Extract<DollarBuy, { ok: false }>, account: Account | null): string {
  if (r.reason === "no_asks")
    return `Nobody is selling ${a.symbol} right now, so a market buy has nothing to fill. Place a limit order instead.`;
  if (r.reason === "below_one_lot")
    return `The amount is below the cost of one lot: the smallest buy is ${a.trading?.lotSize ?? "one lot"} ${a.symbol}, ${usd(Number(r.oneLotCost))} at the best price now.`;
  return `Not enough buying power: you have ${usd(account?.buyingPower)}. The amount, and what the buy holds until it fills (its quantity at the highest price it takes), must be within it. Lower the amount or add funds on the Account page.`;
}

/** The estimate of a dollar buy, in words. */
export function estimateText(a: AssetDetail, r: Extract<DollarBuy, { ok: true }>): string {
  const fee = a.trading ? ` after the ${bpsText(a.trading.takerFeeBps)} fee in ${a.symbol}` : "";
  return `About ${dec(Number(r.quantity))} ${a.symbol} for an estimated ${usd(Number(r.cost))} (up to ${usd(Number(r.hold))} held until it fills); you receive about ${dec(Number(r.receive))} ${a.symbol}${fee}.${
    r.bookExhausted ? " That is everything offered on the book now." : ""
  }`;
}
