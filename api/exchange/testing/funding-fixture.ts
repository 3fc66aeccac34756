// Test helper (issue #14): a real Hardhat chain with the exchange contracts (pipeline/testing/fixture: demo
// tokens, Settlement) plus SandboxFunding with its reserve and funder, custody and funding over PGlite, and
// the funding router on a small express app whose middleware sets res.locals.principal from the
// `x-test-account` header (the exchange API's authentication stands there in production).
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import pino from "pino";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createDb, type Db } from "../../../db";
import type { Clock } from "../../../runtime/clock";
import { loadArtifact } from "../../../scripts/artifacts";
import { startFixture, type Fixture } from "../../../pipeline/testing/fixture";
import { createErrorHandler } from "../../errors";
import { createSecretBox } from "../../auth/secret-box";
import { createCustodyChain } from "../custody/chain";
import { createCustody, USD_UNIT, type Custody, type CustodyDeps } from "../custody/custody";
import { createFunding, type Funding } from "../funding/funding";
import { createFundingRouter } from "../funding/router";

/** The sandbox bank's reserve in tests: 10,000,000,000 demo USD. */
export const TEST_RESERVE_UNITS = 10_000_000_000n * USD_UNIT;
/** The funding key of the tests: Hardhat dev account #11 (no other role). */
export const TEST_FUNDING_KEY = "0x701b615bbdfb9de65240bc28bd21bbc0d996645a3dd57e7b12bc2bdf6f192c82" as Hex;

export interface FundingChain {
  fixture: Fixture;
  funding: Address;
  rpcUrl: string;
  chainId: number;
  settlement: Address;
  tokens: { USD: { address: Address; decimals: number }; WETH: { address: Address; decimals: number } };
  stop(): Promise<void>;
}

/** The chain with SandboxFunding deployed by the deployer, the reserve minted, FUNDER_ROLE granted. */
export async function startFundingChain(opts: { chainDataDir?: string } = {}): Promise<FundingChain> {
  const fixture = await startFixture({ traders: 1, withdrawalDelaySec: 0, chainDataDir: opts.chainDataDir });
  const art = loadArtifact("SandboxFunding");
  const deployer = fixture.deployer;
  const hash = await fixture.wallet(deployer).deployContract({
    abi: art.abi,
    bytecode: art.bytecode,
    args: [deployer.address, fixture.settlement, fixture.usd],
    account: deployer,
    chain: undefined,
  });
  const receipt = await fixture.client.waitForTransactionReceipt({ hash });
  const funding = receipt.contractAddress!;
  const role = (await fixture.client.readContract({
    address: funding,
    abi: art.abi,
    functionName: "FUNDER_ROLE",
  })) as Hex;
  const w = async (address: Address, abi: typeof art.abi, functionName: string, args: unknown[]) => {
    const h = await fixture
      .wallet(deployer)
      .writeContract({ address, abi, functionName, args, account: deployer, chain: undefined } as never);
    const r = await fixture.client.waitForTransactionReceipt({ hash: h });
    if (r.status !== "success") throw new Error(`${functionName} reverted`);
  };
  await w(funding, art.abi, "grantRole", [role, privateKeyToAccount(TEST_FUNDING_KEY).address]);
  await w(fixture.usd, loadArtifact("DemoToken").abi, "mint", [funding, TEST_RESERVE_UNITS]);
  return {
    fixture,
    funding,
    rpcUrl: fixture.chain.rpcUrl,
    chainId: fixture.chainId,
    settlement: fixture.settlement,
    tokens: { USD: { address: fixture.usd, decimals: 6 }, WETH: { address: fixture.weth, decimals: 18 } },
    stop: () => fixture.stop(),
  };
}

export interface FundingStackOptions {
  chain: Pick<FundingChain, "rpcUrl" | "chainId" | "settlement" | "funding" | "tokens">;
  db?: Db;
  /** PGlite data dir (a crash test's child); default in memory */
  dbDir?: string;
  encryptionKeyHex?: string;
  mode?: "sandbox" | "production";
  clock?: Clock;
  preloadUnits?: bigint;
  afterChainSend?: CustodyDeps["afterChainSend"];
  fundingKey?: Hex | null;
}

export interface FundingStack {
  db: Db;
  custody: Custody;
  funding: Funding;
  url: string;
  /** fetch against the app as `accountId` */
  call(
    accountId: string | null,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startFundingStack(o: FundingStackOptions): Promise<FundingStack> {
  const db = o.db ?? (await createDb({ dataDir: o.dbDir }));
  const logger = pino({ level: "silent" });
  const chain = createCustodyChain({
    chainId: o.chain.chainId,
    rpcUrl: o.chain.rpcUrl,
    fundingKey: o.fundingKey === null ? undefined : (o.fundingKey ?? TEST_FUNDING_KEY),
  });
  const custody = createCustody({
    db,
    chain,
    settlement: o.chain.settlement,
    funding: o.chain.funding,
    tokens: o.chain.tokens,
    secretBox: createSecretBox(o.encryptionKeyHex ?? randomBytes(32).toString("hex")),
    mode: o.mode ?? "sandbox",
    preloadUnits: o.preloadUnits,
    logger,
    afterChainSend: o.afterChainSend,
  });
  const funding = createFunding({ db, custody, clock: o.clock, logger });
  const app = express();
  app.use(express.json({ limit: "16kb" }));
  app.use((req, res, next) => {
    const account = req.header("x-test-account");
    if (account)
      res.locals.principal = {
        userId: `user-${account}`,
        orgId: `org-${account}`,
        accountId: account,
        phone: "+15550000000",
      };
    next();
  });
  app.use("/v1", createFundingRouter({ funding, mode: o.mode ?? "sandbox" }));
  app.use(createErrorHandler(logger));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    db,
    custody,
    funding,
    url,
    async call(accountId, method, path, body, headers = {}) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: {
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
          ...(accountId ? { "x-test-account": accountId } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      return { status: res.status, body: parsed };
    },
    async close() {
      await funding.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
      if (!o.db) await db.close();
    },
  };
}
