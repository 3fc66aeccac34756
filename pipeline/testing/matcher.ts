// A journaled matcher service on one test market, with no chain: the set-up the matcher's, the intake's and
// the settle stage's unit tests and the restart bench share (a settlement address, a market, its digest).
import { join } from "node:path";
import type { Address } from "viem";
import { MatcherService, type MatcherServiceDeps } from "../match/matcher-service";
import { createOrderDigester, getDomainSeparator } from "../../runtime/order-digest";
import { getSettlementDomain } from "../order";
import type { MarketSpec } from "../markets";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { PlaceSignedInput } from "../intake/intake";
import { signedInput, type OrderSpec } from "./orders";
import { DexState } from "../dex-service";
import { openDexHistory } from "../dex-history";

export const TEST_CHAIN_ID = 31337;
/** the first contract a fresh Hardhat node deploys: only the signing domain reads it here */
export const TEST_SETTLEMENT = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as Address;
export const TEST_MARKET: MarketSpec = {
  symbol: "WETH-USD",
  baseToken: "0x00000000000000000000000000000000000000e1",
  quoteToken: "0x00000000000000000000000000000000000000d1",
  baseDecimals: 18,
  quoteDecimals: 6,
  tickSize: 10_000n,
  lotSize: 10n ** 14n,
  minLots: 1n,
  maxLots: 10n ** 9n,
};
export const testDigest = createOrderDigester(getDomainSeparator(getSettlementDomain(TEST_CHAIN_ID, TEST_SETTLEMENT)));

/** A matcher service on TEST_MARKET journaling under `journalDir` (fees 10/20 bps, no fsync); `o` overrides. */
export function testMatcher(o: Partial<MatcherServiceDeps> & { journalDir: string }): MatcherService {
  return new MatcherService({
    markets: [TEST_MARKET],
    digest: testDigest,
    fees: { makerFeeBps: 10n, takerFeeBps: 20n },
    expiryMarginMs: 10_000,
    fsync: false,
    ...o,
  });
}

/** A matcher service journaling under `dir`/matcher with the stack's DexState beside it (in its snapshots),
 *  finished orders going to the LMDB history under `dir`/history; not opened yet (subscribe first). */
export async function historyMatcher(dir: string, o: Partial<MatcherServiceDeps> = {}) {
  const history = await openDexHistory(join(dir, "history"));
  const state = new DexState({ history });
  const svc = testMatcher({ journalDir: join(dir, "matcher"), snapshotParts: { dex: state }, ...o });
  svc.subscribe(state.onServiceEvent);
  return { svc, state, history };
}

/** `w`'s own signed order on TEST_MARKET (the wallet signs for itself). */
export const testInput = (w: PrivateKeyAccount, spec: OrderSpec): Promise<PlaceSignedInput> =>
  signedInput(w, w.address, TEST_CHAIN_ID, TEST_SETTLEMENT, TEST_MARKET, spec);

/** The settlement-rejection cast: fresh wallets, a seller and a poisoner holding base, a buyer holding
 *  quote; `fund` gives them their deposits in a service (again after a restart: deposits come from the chain). */
export function poisonCast() {
  const traders = [0, 1, 2].map(() => privateKeyToAccount(generatePrivateKey()));
  const [seller, poisoner, buyer] = traders;
  const fund = (s: MatcherService) => {
    for (const t of [seller, poisoner]) s.deposited(t.address, TEST_MARKET.baseToken, 10n ** 20n);
    s.deposited(buyer.address, TEST_MARKET.quoteToken, 10n ** 12n);
  };
  return { traders, seller, poisoner, buyer, fund };
}
