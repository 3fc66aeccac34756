// Numbers as people read them, shared by the DEX app and the exchange app.

/** Thousands separators on decimal text, the fraction untouched: "1234567.5" -> "1,234,567.5". */
export function group(text: string): string {
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(text);
  if (!m) return text;
  return m[1] + m[2].replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (m[3] ?? "");
}

/** A token amount with its unit: "2,500.5 USD". */
export const amountText = (text: string, unit: string) => `${group(text)} ${unit}`;

/** A long hash or address shortened for display: 0x1234…cdef. */
export const shortHash = (hash: string) => (hash.length > 14 ? `${hash.slice(0, 6)}…${hash.slice(-4)}` : hash);
