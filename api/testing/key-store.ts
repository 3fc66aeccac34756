// The API key store of a test suite on its own in-memory (PGlite) database, with the cache off: every read
// goes to the database, as another process sharing it would see.
import { createDb, type Db } from "../../db";
import { createApiKeyStore, type ApiKeyStore } from "../auth/api-keys";
import { createSecretBox } from "../auth/secret-box";
import { suiteResource } from "./suite-resource";

/** Opens the database and the store before the suite's tests (handing both to `ready`), closes it after. */
export function suiteKeyStore(ready: (s: { db: Db; store: ApiKeyStore }) => void): void {
  suiteResource(
    async () => {
      const db = await createDb();
      return { db, store: createApiKeyStore({ db, box: createSecretBox("0f".repeat(32)), cacheTtlMs: 0 }) };
    },
    (s) => s.db.close(),
    async (s) => ready(s),
  );
}
