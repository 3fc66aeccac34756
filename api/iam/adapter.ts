// oidc-provider's storage adapter over the SQL layer: every model it keeps (Grant, AuthorizationCode,
// RefreshToken, Session, Interaction, ...) is one row of iam_oidc_models, so a restart keeps sessions,
// grants and refresh tokens, and a key rotation (which builds a new Provider) loses nothing. Expiry uses
// the wall clock, as oidc-provider itself does; expired rows are invisible and swept by `sweep`.
import { errors, type Adapter, type AdapterPayload } from "oidc-provider";
import type { Db } from "../../db";

interface ModelRow {
  payload: string;
  consumed_at_ms: string | null;
}

export function createSqlAdapterFactory(db: Db): (name: string) => Adapter {
  return (model: string): Adapter => {
    async function read(where: string, value: string): Promise<AdapterPayload | undefined> {
      const r = (
        await db.query<ModelRow>(
          `SELECT payload, consumed_at_ms FROM iam_oidc_models WHERE model = $1 AND ${where} = $2 AND (expires_at_ms IS NULL OR expires_at_ms > $3) LIMIT 1`,
          [model, value, Date.now()],
        )
      ).rows[0];
      if (!r) return undefined;
      const payload = JSON.parse(r.payload) as AdapterPayload;
      return r.consumed_at_ms === null
        ? payload
        : { ...payload, consumed: Math.floor(Number(r.consumed_at_ms) / 1000) };
    }
    return {
      async upsert(id, payload, expiresIn) {
        await db.query(
          `INSERT INTO iam_oidc_models (model, id, payload, grant_id, user_code, uid, expires_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, user_code = EXCLUDED.user_code,
             uid = EXCLUDED.uid, expires_at_ms = EXCLUDED.expires_at_ms`,
          [
            model,
            id,
            JSON.stringify(payload),
            payload.grantId ?? null,
            payload.userCode ?? null,
            payload.uid ?? null,
            expiresIn ? Date.now() + expiresIn * 1000 : null,
          ],
        );
      },
      find: (id) => read("id", id),
      findByUserCode: (userCode) => read("user_code", userCode),
      findByUid: (uid) => read("uid", uid),
      async consume(id) {
        // single use: only the first consumer's UPDATE finds the row unconsumed; a second one (a concurrent
        // redemption that read the row before the first consumed it) is a reuse, answered as oidc-provider
        // answers a sequential one: the grant is revoked with every token of it, and the request fails.
        const won = await db.query(
          "UPDATE iam_oidc_models SET consumed_at_ms = $3 WHERE model = $1 AND id = $2 AND consumed_at_ms IS NULL",
          [model, id, Date.now()],
        );
        if (won.rowCount === 1) return;
        const row = (
          await db.query<{ grant_id: string | null }>(
            "SELECT grant_id FROM iam_oidc_models WHERE model = $1 AND id = $2",
            [model, id],
          )
        ).rows[0];
        if (row?.grant_id) await revokeGrant(db, row.grant_id);
        throw new errors.InvalidGrant(
          `${model === "RefreshToken" ? "refresh token" : "authorization code"} already used`,
        );
      },
      async destroy(id) {
        await db.query("DELETE FROM iam_oidc_models WHERE model = $1 AND id = $2", [model, id]);
      },
      async revokeByGrantId(grantId) {
        await db.query("DELETE FROM iam_oidc_models WHERE model = $1 AND grant_id = $2", [model, grantId]);
      },
    };
  };
}

/** Every model of a grant (its tokens and codes) and the Grant itself. */
async function revokeGrant(db: Db, grantId: string): Promise<void> {
  await db.query("DELETE FROM iam_oidc_models WHERE grant_id = $1 OR (model = 'Grant' AND id = $1)", [grantId]);
}

/** Deletes expired rows; returns how many. */
export async function sweepExpiredModels(db: Db): Promise<number> {
  return (
    await db.query("DELETE FROM iam_oidc_models WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= $1", [Date.now()])
  ).rowCount;
}
