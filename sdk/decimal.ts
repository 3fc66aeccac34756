// Exact decimal text of a JS number, for the edges that accept JSON numbers for prices and sizes.

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
