// Amounts as a person types and reads them (decimals), turned into base units (bigint) exactly: nothing is
// rounded, an amount the token cannot hold is refused with a sentence saying why. Pure: used by the page
// (main.ts) and by its unit test.

export type AmountCheck = { ok: true; baseUnits: bigint } | { ok: false; error: string };

/** `text` in whole tokens ("12.5") -> base units; `balance` (base units) bounds it when known. */
export function parseAmount(text: string, decimals: number, symbol: string, balance?: bigint): AmountCheck {
  const s = text.trim();
  if (s === "") return { ok: false, error: "Enter an amount." };
  if (!/^(\d+\.?\d*|\.\d+)$/.test(s))
    return {
      ok: false,
      error: `"${s.slice(0, 24)}" is not an amount: use digits and at most one decimal point, like 12.5.`,
    };
  const [whole, fraction = ""] = s.split(".");
  if (fraction.length > decimals)
    return {
      ok: false,
      error:
        decimals === 0
          ? `${symbol} has no decimals: enter a whole number.`
          : `${symbol} has ${decimals} decimals: use at most ${decimals} digits after the point.`,
    };
  if (whole.replace(/^0+/, "").length > 60) return { ok: false, error: "That amount is too large." };
  const baseUnits = BigInt((whole || "0") + fraction.padEnd(decimals, "0"));
  if (baseUnits === 0n) return { ok: false, error: "The amount must be more than 0." };
  if (balance !== undefined && baseUnits > balance)
    return { ok: false, error: `That is more than your balance of ${formatAmount(balance, decimals)} ${symbol}.` };
  return { ok: true, baseUnits };
}

/** Base units -> "1,234.5" (grouped whole part, trailing zeros of the fraction dropped). */
export function formatAmount(baseUnits: bigint, decimals: number): string {
  const negative = baseUnits < 0n;
  const abs = negative ? -baseUnits : baseUnits;
  const scale = 10n ** BigInt(decimals);
  const whole = (abs / scale).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const fraction = decimals === 0 ? "" : (abs % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}
