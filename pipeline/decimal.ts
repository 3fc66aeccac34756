// Exact decimal <-> integer conversion for the API edge. No floats: a number that arrives as a JS number
// is first written with its shortest round-trip decimal form (String(n)) and then parsed as text.
import { numberToDecimalString } from "../sdk/decimal";

const DECIMAL_RE = /^(-)?(\d+)(?:\.(\d+))?$/;

/** Parses "12.345" into 12345n at scale 3. Returns null for text that is not a plain decimal, has more
 *  fractional digits than `scale` (after dropping trailing zeros), or is negative when not allowed. */
export function parseDecimal(text: string | number, scale: number): bigint | null {
  let s = typeof text === "number" ? numberToDecimalString(text) : text.trim();
  if (s === null) return null;
  const m = DECIMAL_RE.exec(s);
  if (!m) return null;
  const [, minus, whole, frac = ""] = m;
  const fracTrimmed = frac.replace(/0+$/, "");
  if (fracTrimmed.length > scale) return null;
  const v = BigInt(whole + fracTrimmed.padEnd(scale, "0"));
  return minus ? -v : v;
}

/** 12345n at scale 3 -> "12.345" (no trailing zeros, no exponent). */
export function formatDecimal(value: bigint, scale: number): string {
  const neg = value < 0n;
  const abs = neg ? -value : value;
  const base = 10n ** BigInt(scale);
  const whole = abs / base;
  const frac = (abs % base).toString().padStart(scale, "0").replace(/0+$/, "");
  return (neg ? "-" : "") + whole.toString() + (frac ? "." + frac : "");
}

/** A decimal as a JS number for JSON outputs the spec types as number (display only, never for math). */
export function decimalToNumber(value: bigint, scale: number): number {
  return Number(formatDecimal(value, scale));
}
