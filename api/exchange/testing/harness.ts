// The exchange API over a real socket on a free port, on an in-memory PGlite, accepting tokens of the
// given test issuers; custody is a recording double (its real implementation, api/exchange/custody, is
// exercised by the end-to-end test on a real chain). Test code only.
import { randomBytes } from "node:crypto";
import { createDb, type Db } from "../../../db";
import { createApiLogger } from "../../logger";
import type { AccountCustody } from "../authenticate";
import { exchangeApiConfig, type ExchangeApiConfig, type ExchangeRateLimits } from "../config";
import { startExchangeApi, type RunningExchangeApi, type StartExchangeApiDeps } from "../start";
import type { TestIssuer } from "./test-issuer";

export interface RecordingCustody extends AccountCustody {
  ensured: string[];
  /** cash in base units by account id (default 0) */
  cash: Map<string, bigint>;
}

export function recordingCustody(): RecordingCustody {
  const ensured: string[] = [];
  const cash = new Map<string, bigint>();
  return {
    ensured,
    cash,
    async ensureAccount(id) {
      ensured.push(id);
    },
    async balances(id) {
      const units = cash.get(id) ?? 0n;
      return { address: `0x${id.replace(/-/g, "").padEnd(40, "0")}`, cashUnits: units, availableCashUnits: units };
    },
  };
}

export interface ExchangeHarness {
  url: string;
  api: RunningExchangeApi;
  db: Db;
  custody: RecordingCustody;
  config: ExchangeApiConfig;
  /** identity token of `issuer` for (sub, owner), then its tenant token from the API: both headers */
  login(
    issuer: TestIssuer,
    sub: string,
    owner: string,
    extra?: Record<string, unknown>,
  ): Promise<{ identity: string; tenant: string; headers: Record<string, string> }>;
  close(): Promise<void>;
}

export async function startExchangeHarness(opts: {
  issuers: readonly TestIssuer[];
  mode?: "sandbox" | "production";
  now?: () => number;
  rateLimits?: Partial<ExchangeRateLimits>;
  config?: Partial<ExchangeApiConfig>;
  /** passed to startExchangeApi as they are */
  publicRouters?: StartExchangeApiDeps["publicRouters"];
  authenticatedRouters?: StartExchangeApiDeps["authenticatedRouters"];
  extensions?: StartExchangeApiDeps["extensions"];
}): Promise<ExchangeHarness> {
  const db = await createDb();
  const custody = recordingCustody();
  const config = exchangeApiConfig({
    issuers: opts.issuers.map((i) => i.issuer),
    audience: "exchange-api",
    mode: opts.mode ?? "sandbox",
    ...opts.config,
    rateLimits: { ipPerMinute: 1e6, authenticatedPerMinute: 1e6, ...opts.rateLimits },
  });
  const api = await startExchangeApi({
    config,
    logger: createApiLogger({ level: "silent" }),
    db,
    encryptionKeyHex: randomBytes(32).toString("hex"),
    custody,
    cashDecimals: 6,
    port: 0,
    now: opts.now,
    publicRouters: opts.publicRouters,
    authenticatedRouters: opts.authenticatedRouters,
    extensions: opts.extensions,
  });
  return {
    url: api.url,
    api,
    db,
    custody,
    config,
    async login(issuer, sub, owner, extra = {}) {
      const identity = await issuer.sign({ sub, owner, phone: "+15550000000", ...extra });
      const res = await fetch(`${api.url}/auth/tenant-token`, {
        method: "POST",
        headers: { authorization: `Bearer ${identity}` },
      });
      if (res.status !== 200) throw new Error(`tenant-token answered ${res.status}: ${await res.text()}`);
      const { token } = (await res.json()) as { token: string };
      return {
        identity,
        tenant: token,
        headers: { authorization: `Bearer ${identity}`, "tenant-authorization": token },
      };
    },
    async close() {
      await api.close();
      await db.close();
    },
  };
}
