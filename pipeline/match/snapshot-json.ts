// JSON for the pipeline's journal snapshots: the state holds bigints (amounts, ticks, lots), which JSON
// cannot carry; a bigint travels as {"$n": "<decimal>"} and comes back as the same bigint.
export type JsonSafe = null | boolean | number | string | JsonSafe[] | { [k: string]: JsonSafe };

export function toJsonSafe(v: unknown): JsonSafe {
  if (typeof v === "bigint") return { $n: v.toString() };
  if (v === null || typeof v !== "object") return v === undefined ? null : (v as JsonSafe);
  if (Array.isArray(v)) {
    const arr: JsonSafe[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) arr[i] = toJsonSafe(v[i]);
    return arr;
  }
  // keys, not entries: no [key, value] pair allocated per field (each finished order is written through here)
  const out: { [k: string]: JsonSafe } = {};
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== undefined) out[k] = toJsonSafe(x);
  }
  return out;
}

export function fromJsonSafe<T>(v: JsonSafe): T {
  return revive(v) as T;
}

function revive(v: JsonSafe): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(revive);
  const keys = Object.keys(v);
  if (keys.length === 1 && keys[0] === "$n" && typeof v.$n === "string") return BigInt(v.$n);
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = revive(v[k]);
  return out;
}
