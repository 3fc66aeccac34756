// The pipeline and the DEX service over a fixture's chain (pipeline/testing/fixture.ts), as the pipeline's
// e2e tests start them: the fixture's market and operator, a journal under `dataDir` without fsync.
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config/dev-accounts";
import { createDexService, type DexServiceDeps, type DexState } from "../dex-service";
import type { Pipeline, PipelineOptions } from "../pipeline";
import type { Fixture } from "./fixture";

/** The fixture's tokens by lower-case address, for balances. */
export const fixtureAssets = (f: Fixture) => ({
  [f.weth.toLowerCase()]: { symbol: "WETH", decimals: 18 },
  [f.usd.toLowerCase()]: { symbol: "USD", decimals: 6 },
});

/** startPipeline's options for the fixture's chain, market and operator; `o` adds or overrides. */
export const fixturePipelineOptions = (
  f: Fixture,
  dataDir: string,
  o: Partial<PipelineOptions> = {},
): PipelineOptions => ({
  rpcUrl: f.chain.rpcUrl,
  chainId: f.chainId,
  settlement: f.settlement,
  fromBlock: f.deployBlock,
  markets: [f.market],
  operatorKey: f.operatorKey,
  dataDir,
  fsync: false,
  ...o,
});

/** A DEX service over `pipeline` on the fixture's chain (the agent relayer on dev key 10). */
export const fixtureDexService = (f: Fixture, pipeline: Pipeline, state: DexState, o: Partial<DexServiceDeps> = {}) =>
  createDexService({
    pipeline,
    state,
    chainId: f.chainId,
    settlement: f.settlement,
    rpcUrl: f.chain.rpcUrl,
    submitterKey: HARDHAT_DEV_PRIVATE_KEYS[10],
    assets: fixtureAssets(f),
    ...o,
  });
