// Custody and funding for the exchange API, built from the deployment: what the exchange service's start
// (api/exchange/service.ts) calls. `custody` satisfies the exchange API's AccountCustody (ensureAccount,
// balances); `clocks` are the accounts' sandbox clocks both stamp with; the funding router (createFundingRouter)
// is mounted at /v1 behind both tokens; start() runs the loop that completes due transfers (and finishes any a
// crash left open), stop() ends it.
import type { Logger } from "pino";
import type { Address, Hex } from "viem";
import type { Db } from "../../../db";
import { systemClock, type Clock } from "../../../runtime/clock";
import { createSecretBox } from "../../auth/secret-box";
import { createCustodyChain } from "../custody/chain";
import { createCustody, type Custody, type CustodyTokens } from "../custody/custody";
import { createFunding, type Funding } from "./funding";
import { createSandboxClocks, type SandboxClocks } from "./sandbox-clock";

export { createCustody, type Custody } from "../custody/custody";
export { createFunding, type Funding } from "./funding";
export { createFundingRouter } from "./router";

export interface CustodyAndFundingOptions {
  db: Db;
  chainId: number;
  rpcUrl: string;
  /** deployments.home.contracts.Settlement */
  settlement: Address;
  /** deployments.home.contracts.SandboxFunding: without it funding answers 503 and nothing is preloaded */
  sandboxFunding: Address | undefined;
  /** deployments.home.tokens (USD is the cash) */
  tokens: CustodyTokens;
  /** config.keys.funding.privateKey */
  fundingKey: Hex | undefined;
  /** 32 bytes hex sealing the accounts' keys (the API key encryption key) */
  encryptionKeyHex: string;
  mode: "sandbox" | "production";
  logger?: Logger;
  clock?: Clock;
}

export function createCustodyAndFunding(o: CustodyAndFundingOptions): {
  custody: Custody;
  funding: Funding;
  clocks: SandboxClocks;
  start(intervalMs?: number): void;
  stop(): Promise<void>;
} {
  const chain = createCustodyChain({ chainId: o.chainId, rpcUrl: o.rpcUrl, fundingKey: o.fundingKey });
  const clocks = createSandboxClocks(o.db, o.clock ?? systemClock);
  const custody = createCustody({
    db: o.db,
    chain,
    settlement: o.settlement,
    funding: o.sandboxFunding,
    tokens: o.tokens,
    secretBox: createSecretBox(o.encryptionKeyHex),
    mode: o.mode,
    logger: o.logger,
    // custody stamps an account's rows on that account's sandbox clock (the sandbox may have advanced it)
    accountNow: (accountId) => clocks.now(accountId),
  });
  const funding = createFunding({ db: o.db, custody, clock: o.clock, clocks, logger: o.logger });
  return { custody, funding, clocks, start: (ms) => funding.start(ms), stop: () => funding.stop() };
}
