import type { SqlParam } from "./types";

/** bigint -> decimal text (pg cannot bind bigint; PGlite would bind it as int8 and overflow numeric(78)). */
export function toDriverParams(params: readonly SqlParam[] | undefined): unknown[] {
  if (!params) return [];
  return params.map((p) => (typeof p === "bigint" ? p.toString() : p));
}
