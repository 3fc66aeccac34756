// The exchange app's rules that need no page: every refusal of the exchange API and the identity provider
// as a sentence for a person (by code and details), the checks a typed amount passes before anything is
// sent, and the display of the API's numbers as decimals (never exponent notation, never a float's noise).
import { numberToDecimalString, parseExactDecimal } from "../../../sdk/decimal";
import { group } from "../format";

export class ExchangeError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** A JSON number of the API as decimal text ("—" when absent). */
export function dec(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—";
  return numberToDecimalString(n) ?? "—";
}

export { group } from "../format";

/** Decimal text rounded half up to `places` ("206.495", 2 -> "206.50"), exact (the number's shortest text). */
function roundText(n: number, places: number): string {
  const x = parseExactDecimal(numberToDecimalString(Math.abs(n))!)!;
  const digits =
    x.scale <= places
      ? x.digits * 10n ** BigInt(places - x.scale)
      : ((x.digits * 10n) / 10n ** BigInt(x.scale - places) + 5n) / 10n;
  const t = digits.toString().padStart(places + 1, "0");
  return `${t.slice(0, -places)}.${t.slice(-places)}`;
}

/** Dollars in cents ("$1,200.50", "$206.49"); an amount under a cent that is not zero keeps its digits ("$0.0001"). */
export function usd(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—";
  const cents = roundText(n, 2);
  const text = /^0\.00$/.test(cents) && n !== 0 ? numberToDecimalString(Math.abs(n))! : cents;
  const [w, f = ""] = text.split(".");
  return `${n < 0 && !/^0\.00$/.test(text) ? "-" : ""}$${group(w)}.${f.padEnd(2, "0")}`;
}

/** A signed percentage with its sign, two decimals: "+1.25%", "-0.50%". */
export function pct(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—";
  const text = roundText(n, 2);
  return `${n > 0 && text !== "0.00" ? "+" : n < 0 && text !== "0.00" ? "-" : ""}${text}%`;
}

export const dateOf = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toISOString().slice(0, 10) : "—";
export const dateTimeOf = (iso: string | null | undefined): string =>
  iso ? `${new Date(iso).toISOString().replace("T", " ").slice(0, 16)} UTC` : "—";

/** E.164 as the identity provider takes it: + and 8 to 15 digits. */
export function checkPhone(text: string): { ok: true; phone: string } | { ok: false; error: string } {
  const phone = text.replace(/[\s().-]/g, "");
  if (!/^\+[1-9]\d{7,14}$/.test(phone))
    return { ok: false, error: "Enter the phone number with its country code, for example +14155550123." };
  return { ok: true, phone };
}

export function checkCode(text: string): { ok: true; code: string } | { ok: false; error: string } {
  const code = text.trim();
  if (!/^\d{6}$/.test(code)) return { ok: false, error: "The code has 6 digits." };
  return { ok: true, code };
}

/** Most digits a typed amount may have after the point (the API rejects finer than the book's grid anyway). */
export const MAX_FRACTION_DIGITS = 18;

/** A positive decimal a person typed ("12.5", "1,000.25"); the text to send, or a sentence why not. */
export function checkAmount(
  text: string,
  what: string,
  opts: { maxFraction?: number; min?: string } = {},
): { ok: true; value: string } | { ok: false; error: string } {
  const t = text.trim().replace(/,/g, "");
  if (t === "") return { ok: false, error: `Enter the ${what}.` };
  const d = parseExactDecimal(t, 40);
  if (d === null || t.startsWith("-") || t.startsWith("+"))
    return { ok: false, error: `The ${what} must be a number such as 12.5 (digits and one point).` };
  if (d.digits <= 0n) return { ok: false, error: `The ${what} must be more than zero.` };
  const maxFraction = opts.maxFraction ?? MAX_FRACTION_DIGITS;
  if (d.scale > maxFraction)
    return { ok: false, error: `The ${what} takes at most ${maxFraction} digits after the point.` };
  if (opts.min !== undefined) {
    const m = parseExactDecimal(opts.min)!;
    const scale = Math.max(m.scale, d.scale);
    if (d.digits * 10n ** BigInt(scale - d.scale) < m.digits * 10n ** BigInt(scale - m.scale))
      return { ok: false, error: `The ${what} must be at least ${opts.min}.` };
  }
  return { ok: true, value: t };
}

export interface OrderDraft {
  side: "BUY" | "SELL";
  orderType: "market" | "limit";
  quantity: string;
  limitPrice: string;
}

/** The POST /v1/orders body of a draft, or the sentence for each field that is wrong (nothing is sent then). */
export function orderBody(
  assetId: string,
  preIpo: boolean,
  d: OrderDraft,
):
  | { ok: true; body: Record<string, unknown> }
  | { ok: false; errors: Partial<Record<"quantity" | "limitPrice", string>> } {
  const errors: Partial<Record<"quantity" | "limitPrice", string>> = {};
  const q = checkAmount(d.quantity, "quantity");
  if (!q.ok) errors.quantity = q.error;
  let price: string | undefined;
  if (d.orderType === "limit") {
    const p = checkAmount(d.limitPrice, "limit price");
    if (!p.ok) errors.limitPrice = p.error;
    else price = p.value;
  }
  if (!q.ok || Object.keys(errors).length > 0) return { ok: false, errors };
  const body: Record<string, unknown> = { assetId, side: d.side, orderType: d.orderType, quantity: q.value };
  if (price !== undefined) body.limitPrice = price;
  if (preIpo) body.isPreIPO = true;
  return { ok: true, body };
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

const REGIMES: Record<string, string> = {
  "reg-d": "Reg D",
  "reg-cf": "Reg CF",
  "reg-s": "Reg S",
  "reg-a": "Reg A",
  retail: "retail",
};

export function accreditationLabel(t: string | null | undefined): string {
  if (t === "506c") return "Rule 506(c): verified accredited investors only";
  if (t === "506b") return "Rule 506(b): self-certified accredited investors only";
  return "Retail: open to every investor";
}

export function regimeLabel(r: string | null | undefined): string {
  return r ? (REGIMES[r] ?? r) : "—";
}

function explainAccreditation(d: Record<string, unknown>): string {
  if (d.reason === "reg_cf_investment_limit") {
    return `This buy would pass your Reg CF investment limit: as an investor who is not accredited you may invest ${usd(
      num(d.limit),
    )} in Reg CF offerings over 12 months (the SEC's rule, based on your income and net worth), you have used ${usd(num(d.used))}, so ${usd(num(d.available))} remains and this order needs ${usd(
      num(d.requested),
    )}.`;
  }
  if (d.accreditationType === "506c") {
    return "Only accredited investors can buy this asset: it is offered under Rule 506(c), which requires a third party to verify your accreditation. Your account is not verified as an accredited investor, so the order was not placed.";
  }
  if (d.accreditationType === "506b") {
    return "Only accredited investors can buy this asset: it is offered under Rule 506(b), which requires you to certify that you are an accredited investor. Your account has no such certification, so the order was not placed.";
  }
  return "Only accredited investors can buy this asset, so the order was not placed.";
}

function explainBalance(d: Record<string, unknown>): string {
  if (d.asset === "USD" || d.asset === undefined) {
    if (num(d.required) !== undefined)
      return `Not enough buying power: this needs ${usd(num(d.required))} and ${usd(num(d.available))} is available. Add funds on the Account page or lower the quantity.`;
    return "Not enough cash for this. Add funds on the Account page or lower the amount.";
  }
  return `You cannot sell that much: this order needs ${dec(num(d.required))} ${String(d.asset)} and ${dec(num(d.available))} is free to sell (units held by open orders do not count).`;
}

function explainResale(d: Record<string, unknown>): string {
  const regime = regimeLabel(str(d.regime));
  if (d.reason === "ineligible_buyers_on_book") {
    return `Some of the units you would sell are still in their ${regime} resale hold${
      d.restrictionEndDate ? ` (until ${dateOf(str(d.restrictionEndDate))})` : ""
    }: they may only go to buyers an exemption covers, and buyers it does not cover are on the book now. Try again later or sell only units past their hold.`;
  }
  if (d.reason === "restricted_lots_on_book") {
    return `Units offered on this book are still in their ${regime} resale hold and may only go to buyers an exemption covers (for example accredited or non-US investors). Your account is not covered, so you cannot buy here while they are offered.`;
  }
  return "Those units are still in their resale hold and cannot be sold to this buyer yet.";
}

function explainFundingLimit(d: Record<string, unknown>): string {
  const left =
    num(d.remaining) ??
    (num(d.limit) !== undefined && num(d.used) !== undefined ? num(d.limit)! - num(d.used)! : undefined);
  return `That passes the daily limit of ${usd(num(d.limit))} for ${methodLabel(str(d.method))}${left !== undefined ? `: ${usd(left)} remains today` : ""}.`;
}

/** Codes whose sentence needs nothing but the code. */
const FIXED: Record<string, string> = {
  NETWORK: "The exchange cannot be reached. Check your connection and that the exchange is running, then try again.",
  ASSET_NOT_TRADEABLE: "This asset is listed but cannot be traded yet.",
  ASSET_NOT_FOUND: "This asset does not exist (or no longer exists).",
  RATE_LIMIT_EXCEEDED: "Too many requests in a short time. Wait a few seconds and try again.",
  ORDER_NOT_FOUND: "This order does not exist.",
  TRANSACTION_NOT_FOUND: "This transaction does not exist.",
  SERVICE_UNAVAILABLE: "Part of the exchange is not available right now. Try again in a few seconds.",
  INTERNAL_ERROR: "The exchange had a problem with this request. Nothing was changed; try again.",
  // the identity provider's OAuth token endpoint (RFC 6749 error codes)
  invalid_grant: "That code is wrong or has expired. Request a new code and try again.",
  rate_limit_exceeded: "Too many wrong codes: this phone is locked for a while. Try again later.",
};

/** Codes whose sentence reads the error's details (or message). */
const BY_DETAILS: Record<string, (d: Record<string, unknown>, err: ExchangeError) => string> = {
  ACCREDITATION_REQUIRED: explainAccreditation,
  INSUFFICIENT_BALANCE: explainBalance,
  RESALE_RESTRICTED: explainResale,
  FUNDING_LIMIT_EXCEEDED: explainFundingLimit,
  INVALID_ORDER_TYPE: (_d, err) => `This kind of order is not accepted for this asset: ${err.message}.`,
  FORBIDDEN: (d) =>
    d.reason === "kyc_required"
      ? `Your identity verification (KYC) is not approved${d.kycStatus ? ` (it is ${String(d.kycStatus).replace(/_/g, " ")})` : ""}, so you cannot trade yet.`
      : "You are not allowed to do this with your account.",
  UNAUTHORIZED: (d) =>
    d.header === "x-sandbox-phone-key"
      ? "This browser does not hold this sandbox phone's key (another browser requested its first code), so its codes are not shown here. Use another phone number."
      : "Your session has ended. Log in again.",
  ORDER_NOT_OPEN: (d) =>
    `This order is no longer open${d.status ? ` (it is ${String(d.status)})` : ""}, so it cannot be changed or cancelled.`,
  AMOUNT_BELOW_MINIMUM: (d) => `The minimum for ${methodLabel(str(d.method))} is ${usd(num(d.minimum))}.`,
  INVALID_REQUEST: (_d, err) => `The exchange refused the request: ${err.message}.`,
};

/** A refusal in words, by the code and its details (the API's own message only where no sentence fits). */
export function explain(err: unknown): string {
  if (!(err instanceof ExchangeError)) {
    const e = err as { message?: string };
    return e?.message ? `Something went wrong: ${e.message}` : "Something went wrong.";
  }
  if (Object.hasOwn(FIXED, err.code)) return FIXED[err.code];
  if (Object.hasOwn(BY_DETAILS, err.code)) return BY_DETAILS[err.code](err.details, err);
  return err.message || `The request failed (${err.code}).`;
}

export function methodLabel(m: string | undefined): string {
  if (m === "ach") return "ACH transfers";
  if (m === "wire") return "wire transfers";
  if (m === "instant") return "instant bank link";
  return m ?? "this method";
}

/** Chart ranges with their intervals (spec 8: the first is the default). */
export const CHART_RANGES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["1d", ["1m", "5m"]],
  ["5d", ["5m", "15m"]],
  ["1m", ["15m", "1h"]],
  ["3m", ["1h", "1d"]],
  ["6m", ["1h", "1d"]],
  ["1y", ["1d"]],
  ["5y", ["1d"]],
];

/** The image path on this origin (the API names images under its own base URL). */
export function imagePath(image: string | null | undefined): string | null {
  if (!image) return null;
  try {
    const u = new URL(image, "http://x.invalid");
    const i = u.pathname.indexOf("/v1/assets/");
    return i < 0 ? null : `/exchange-api${u.pathname.slice(i)}`;
  } catch {
    return null;
  }
}
