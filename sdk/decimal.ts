// Exact decimal text <-> integers, for the edges that accept and show prices, sizes and amounts: the one
// parser (parseDecimal reads it at a fixed scale; the API bounds its length) and the one formatter (no
// floats: a JS number is first written as its shortest decimal text).

/** The shortest decimal text of a finite JS number, expanding exponent notation ("1e-7" -> "0.0000001");
 *  null for NaN and infinities. Callers bound the length of what they accept. */
export function numberToDecimalString(n: number): string | null {
  if (!Number.isFinite(n)) return null;
  const s = String(n);
  const e = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!e) return s;
  const [, sign, w, f = "", expText] = e;
  const exp = Number(expText);
  const digits = w + f;
  const point = w.length + exp;
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + "0".repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

const DECIMAL_RE = /^(-)?(\d+)(?:\.(\d+))?$/;

/** A decimal's exact value: digits / 10^scale (trailing fractional zeros dropped). */
export interface ExactDecimal {
  digits: bigint;
  scale: number;
}

/** The one decimal parser: "12.50" -> {digits: 125n, scale: 1} (numbers via their shortest decimal text).
 *  Null for NaN, infinities, text longer than `maxLength` and anything that is not a plain decimal. */
export function parseExactDecimal(input: string | number, maxLength = Infinity): ExactDecimal | null {
  const text = typeof input === "number" ? numberToDecimalString(input) : input.trim();
  if (text === null || text.length > maxLength) return null;
  const m = DECIMAL_RE.exec(text);
  if (!m) return null;
  const [, minus, whole, frac = ""] = m;
  const fracTrimmed = frac.replace(/0+$/, "");
  const digits = BigInt(whole + fracTrimmed);
  return { digits: minus ? -digits : digits, scale: fracTrimmed.length };
}

/** Parses "12.345" into 12345n at scale 3 (numbers via their shortest decimal text). Returns null for text
 *  that is not a plain decimal or has more fractional digits than `scale` (after dropping trailing zeros). */
export function parseDecimal(text: string | number, scale: number): bigint | null {
  const d = parseExactDecimal(text);
  if (d === null || d.scale > scale) return null;
  return d.digits * 10n ** BigInt(scale - d.scale);
}

/** The one decimal formatter: 12345n at scale 3 -> "12.345" (no trailing zeros, no exponent; a scale of 0
 *  or below multiplies by 10^-scale). */
export function formatDecimal(value: bigint, scale: number): string {
  const neg = value < 0n;
  const abs = neg ? -value : value;
  if (scale <= 0) return (neg ? "-" : "") + (abs * 10n ** BigInt(-scale)).toString();
  const base = 10n ** BigInt(scale);
  const frac = (abs % base).toString().padStart(scale, "0").replace(/0+$/, "");
  return (neg ? "-" : "") + (abs / base).toString() + (frac ? `.${frac}` : "");
}
