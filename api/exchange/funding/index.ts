// Custody and funding for the exchange API (issue #14), built from the deployment: what the exchange API's
// stack component calls. `custody` satisfies the exchange API's AccountCustody (ensureAccount, balances);
// `router` is mounted at /v1 behind both tokens; start() runs the loop that completes due transfers (and
// finishes any a crash left open), stop() ends it.
import type { Router } from "express";
import type { Logger } from "pino";
import type { Address, Hex } from "viem";
import type { Db } from "../../../db";
import { systemClock, type Clock } from "../../../runtime/clock";
import { createSecretBox } from "../../auth/secret-box";
import { createCustodyChain } from "../custody/chain";
import { createCustody, type Custody, type CustodyTokens } from "../custody/custody";
import { createFunding, type Funding } from "./funding";
import { createFundingRouter, type FundingRouterDeps } from "./router";

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
  tradeTransactions?: FundingRouterDeps["tradeTransactions"];
}

export function createCustodyAndFunding(o: CustodyAndFundingOptions): {
  custody: Custody;
  funding: Funding;
  router: Router;
  start(intervalMs?: number): void;
  stop(): Promise<void>;
} {
  const chain = createCustodyChain({ chainId: o.chainId, rpcUrl: o.rpcUrl, fundingKey: o.fundingKey });
  let funding: Funding | undefined;
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
    accountNow: (accountId) => funding?.now(accountId) ?? (o.clock ?? systemClock).now(),
  });
  funding = createFunding({ db: o.db, custody, clock: o.clock, logger: o.logger });
  const router = createFundingRouter({ funding, mode: o.mode, tradeTransactions: o.tradeTransactions });
  return { custody, funding, router, start: (ms) => funding.start(ms), stop: () => funding.stop() };
}
