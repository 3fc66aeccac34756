// The exchange app's rules without a page: each refusal the exchange API and the identity provider send
// becomes a sentence naming what to do (never the bare code); typed amounts at their limits and one past
// them; decimals shown without exponent or float noise.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  checkAmount,
  checkCode,
  checkPhone,
  dec,
  ExchangeError,
  explain,
  imagePath,
  orderBody,
  pct,
  usd,
} from "./model";

const e = (code: string, details: Record<string, unknown> = {}, message = "api message") =>
  explain(new ExchangeError(400, code, message, details));

test("accreditation refusals say who may buy and why this account may not", () => {
  const c = e("ACCREDITATION_REQUIRED", { accreditationType: "506c", accreditationStatus: "none" });
  assert.match(c, /Only accredited investors can buy this asset/);
  assert.match(c, /Rule 506\(c\)/);
  assert.match(c, /third party to verify/);
  const b = e("ACCREDITATION_REQUIRED", { accreditationType: "506b" });
  assert.match(b, /Rule 506\(b\)/);
  assert.match(b, /certify/);
  const cf = e("ACCREDITATION_REQUIRED", {
    reason: "reg_cf_investment_limit",
    limit: 5000,
    used: 4000,
    requested: 1500.25,
    available: 1000,
  });
  assert.match(cf, /Reg CF investment limit/);
  assert.match(cf, /\$5,000\.00/);
  assert.match(cf, /\$1,000\.00 remains/);
  assert.match(cf, /\$1,500\.25/);
});

test("every code the order, funding and login paths send has its own sentence", () => {
  const codes: [string, Record<string, unknown>, RegExp][] = [
    [
      "INSUFFICIENT_BALANCE",
      { required: 250.5, available: 100, asset: "USD" },
      /buying power: this needs \$250\.50 and \$100\.00 is available/,
    ],
    [
      "INSUFFICIENT_BALANCE",
      { required: 5, available: 0.999, asset: "AAPL" },
      /needs 5 AAPL and 0\.999 is free to sell/,
    ],
    [
      "RESALE_RESTRICTED",
      { reason: "ineligible_buyers_on_book", regime: "reg-cf", restrictionEndDate: "2027-11-24T06:00:00.000Z" },
      /Reg CF resale hold \(until 2027-11-24\)/,
    ],
    [
      "RESALE_RESTRICTED",
      { reason: "restricted_lots_on_book", regime: "reg-d" },
      /Reg D resale hold .* cannot buy here/,
    ],
    ["ASSET_NOT_TRADEABLE", {}, /listed but cannot be traded/],
    ["ASSET_NOT_FOUND", {}, /does not exist/],
    ["INVALID_ORDER_TYPE", {}, /not accepted for this asset: api message/],
    ["FORBIDDEN", { reason: "kyc_required", kycStatus: "not_started" }, /KYC\) is not approved \(it is not started\)/],
    ["UNAUTHORIZED", {}, /Log in again/],
    ["UNAUTHORIZED", { header: "x-sandbox-phone-key" }, /does not hold this sandbox phone's key/],
    ["RATE_LIMIT_EXCEEDED", {}, /Wait a few seconds/],
    ["ORDER_NOT_OPEN", { status: "EXECUTED" }, /no longer open \(it is EXECUTED\)/],
    ["AMOUNT_BELOW_MINIMUM", { method: "wire", minimum: 1000 }, /minimum for wire transfers is \$1,000\.00/],
    [
      "FUNDING_LIMIT_EXCEEDED",
      { method: "instant", limit: 10000, used: 9990, remaining: 10 },
      /daily limit of \$10,000\.00 for instant bank link: \$10\.00 remains/,
    ],
    ["SERVICE_UNAVAILABLE", {}, /not available right now/],
    ["INTERNAL_ERROR", {}, /Nothing was changed/],
    ["invalid_grant", {}, /code is wrong or has expired/],
    ["rate_limit_exceeded", {}, /locked/],
    ["NETWORK", {}, /cannot be reached/],
  ];
  for (const [code, details, re] of codes) assert.match(e(code, details), re, code);
  assert.equal(e("SOMETHING_NEW", {}, "a sentence from the API"), "a sentence from the API");
});

test("typed amounts: zero, signs, text, too many digits, minimum at and one cent below", () => {
  assert.deepEqual(checkAmount("12.5", "quantity"), { ok: true, value: "12.5" });
  assert.deepEqual(checkAmount(" 1,000.25 ", "amount"), { ok: true, value: "1000.25" });
  assert.match((checkAmount("", "quantity") as { error: string }).error, /Enter the quantity/);
  assert.match((checkAmount("abc", "quantity") as { error: string }).error, /must be a number such as 12\.5/);
  assert.match((checkAmount("1e3", "quantity") as { error: string }).error, /must be a number/);
  assert.match((checkAmount("-1", "quantity") as { error: string }).error, /must be a number/);
  assert.match((checkAmount("0", "quantity") as { error: string }).error, /more than zero/);
  assert.match((checkAmount("0.000", "quantity") as { error: string }).error, /more than zero/);
  assert.deepEqual(checkAmount("100.25", "amount", { maxFraction: 2 }), { ok: true, value: "100.25" });
  assert.match((checkAmount("100.255", "amount", { maxFraction: 2 }) as { error: string }).error, /at most 2 digits/);
  assert.equal(checkAmount(`0.${"1".repeat(18)}`, "quantity").ok, true);
  assert.equal(checkAmount(`0.${"1".repeat(19)}`, "quantity").ok, false);
  assert.equal(checkAmount("10", "amount", { min: "10" }).ok, true);
  assert.match((checkAmount("9.99", "amount", { min: "10" }) as { error: string }).error, /at least 10/);
});

test("the order body: market without a price, limit with one, pre-IPO flagged; nothing when a field is wrong", () => {
  assert.deepEqual(orderBody("AAPL", false, { side: "BUY", orderType: "market", quantity: "1.5", limitPrice: "999" }), {
    ok: true,
    body: { assetId: "AAPL", side: "BUY", orderType: "market", quantity: "1.5" },
  });
  assert.deepEqual(orderBody("LMNL", true, { side: "BUY", orderType: "limit", quantity: "10", limitPrice: "12.50" }), {
    ok: true,
    body: { assetId: "LMNL", side: "BUY", orderType: "limit", quantity: "10", limitPrice: "12.50", isPreIPO: true },
  });
  const bad = orderBody("AAPL", false, { side: "SELL", orderType: "limit", quantity: "x", limitPrice: "" });
  assert.equal(bad.ok, false);
  assert.deepEqual(Object.keys((bad as { errors: object }).errors).sort(), ["limitPrice", "quantity"]);
});

test("login inputs: E.164 phone and a 6-digit code", () => {
  assert.deepEqual(checkPhone("+1 (415) 555-0123"), { ok: true, phone: "+14155550123" });
  assert.equal(checkPhone("4155550123").ok, false);
  assert.equal(checkPhone("+1234567").ok, false); // 7 digits: one short
  assert.equal(checkPhone("+12345678").ok, true); // 8 digits: the shortest
  assert.equal(checkPhone("+123456789012345").ok, true); // 15 digits: the longest
  assert.equal(checkPhone("+1234567890123456").ok, false);
  assert.deepEqual(checkCode(" 123456 "), { ok: true, code: "123456" });
  assert.equal(checkCode("12345").ok, false);
  assert.equal(checkCode("1234567").ok, false);
});

test("decimals: no exponent, no float noise, dollars with cents, signed percentages; images on this origin", () => {
  assert.equal(dec(1e-7), "0.0000001");
  assert.equal(dec(200.5), "200.5");
  assert.equal(dec(null), "—");
  assert.equal(usd(1234567.5), "$1,234,567.50");
  assert.equal(usd(0.0001), "$0.0001");
  assert.equal(usd(-12), "-$12.00");
  assert.equal(pct(1.25), "+1.25%");
  assert.equal(pct(-0.5), "-0.50%");
  assert.equal(usd(206.493246), "$206.49");
  assert.equal(usd(206.495), "$206.50");
  assert.equal(usd(-0.004), "$0.004".replace("$", "-$"));
  assert.equal(pct(12.34567), "+12.35%");
  assert.equal(pct(0.001), "0.00%");
  assert.equal(imagePath("http://127.0.0.1:3000/v1/assets/AAPL/image"), "/exchange-api/v1/assets/AAPL/image");
  assert.equal(imagePath("javascript:alert(1)"), null);
});
