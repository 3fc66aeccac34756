// The sandbox clock of each account (docs/decisions/api.md "Sandbox clock per account"): the wall clock plus
// the account's own offset, which only POST /v1/sandbox/funding/advance-clock of that account moves. It
// dates the account's funding transfers, and the investor rules read it for that account's resale holds
// and Reg CF window; a fill is dated on its account's clock as it stood at the fill (`at`), so a lot's
// acquisition, its restriction end and its isRestricted flag all read one clock. Kept in SQL (a restart
// keeps the simulated dates) and cached here after the first load; production never advances it.
import type { Db } from "../../../db";
import type { Clock } from "../../../runtime/clock";

export interface SandboxClocks {
  /** loads the advances once (every method below needs it; `now` and `at` read the cache) */
  load(): Promise<void>;
  /** the account's clock now */
  now(accountId: string): number;
  /** `wallMs` on the account's clock as it stood then */
  at(accountId: string, wallMs: number): number;
  /** moves the account's clock `ms` forward; returns its new now */
  advance(accountId: string, ms: number): Promise<number>;
}

export function createSandboxClocks(db: Db, wall: Pick<Clock, "now">): SandboxClocks {
  /** per account: its advances, oldest first (from_wall_ms ascending, offsets ascending) */
  const advances = new Map<string, { fromWallMs: number; offsetMs: number }[]>();
  let loaded: Promise<void> | undefined;
  const offsetAt = (accountId: string, wallMs: number): number => {
    let offset = 0;
    for (const a of advances.get(accountId) ?? []) if (a.fromWallMs <= wallMs) offset = a.offsetMs;
    return offset;
  };
  return {
    load() {
      loaded ??= (async () => {
        const r = await db.query<{ account_id: string; from_wall_ms: string; offset_ms: string }>(
          "SELECT account_id, from_wall_ms, offset_ms FROM exchange_sandbox_clocks ORDER BY account_id, from_wall_ms",
        );
        for (const row of r.rows) {
          const list = advances.get(row.account_id) ?? [];
          list.push({ fromWallMs: Number(row.from_wall_ms), offsetMs: Number(row.offset_ms) });
          advances.set(row.account_id, list);
        }
      })();
      return loaded;
    },
    now(accountId) {
      const w = wall.now();
      return w + offsetAt(accountId, w);
    },
    at: (accountId, wallMs) => wallMs + offsetAt(accountId, wallMs),
    async advance(accountId, ms) {
      await this.load();
      const w = wall.now();
      // the new offset is the account's largest so far plus `ms`, in one statement (two advances at once add up)
      const r = await db.query<{ offset_ms: string }>(
        `INSERT INTO exchange_sandbox_clocks (account_id, from_wall_ms, offset_ms)
           SELECT $1, $2, COALESCE(MAX(offset_ms), 0) + $3 FROM exchange_sandbox_clocks WHERE account_id = $1
         ON CONFLICT (account_id, from_wall_ms) DO UPDATE SET offset_ms = EXCLUDED.offset_ms RETURNING offset_ms`,
        [accountId, w, ms],
      );
      const offsetMs = Number(r.rows[0].offset_ms);
      const list = (advances.get(accountId) ?? []).filter((a) => a.fromWallMs !== w);
      list.push({ fromWallMs: w, offsetMs });
      advances.set(accountId, list);
      return w + offsetMs;
    },
  };
}
