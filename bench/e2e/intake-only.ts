// tsx bench/e2e/intake-only.ts — the matcher service alone (intake + journal with fsync + engine + ledger),
// no chain: the ceiling the pipeline's order acceptance has on this machine.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config/dev-accounts";
import { getDomainSeparator, getSettlementDomain } from "../../sdk/eip712";
import { MatcherService } from "../../pipeline/match/matcher-service";
import { DEFAULT_MARKET_GRIDS, type MarketSpec } from "../../pipeline/markets";
import { createOrderDigester } from "../../runtime/order-digest";
import type { PlaceSignedInput } from "../../pipeline/intake/intake";
import { pairOrderInput } from "./in-process";

async function main(): Promise<void> {
  const N = Number(process.env.BENCH_ORDERS ?? 20000);
  const INFLIGHT = Number(process.env.BENCH_INFLIGHT ?? 64);
  const dir = mkdtempSync(join(tmpdir(), "intake-only-"));
  const market: MarketSpec = {
    symbol: "WETH-USD",
    baseToken: "0x00000000000000000000000000000000000000e1" as Address,
    quoteToken: "0x00000000000000000000000000000000000000a1" as Address,
    ...DEFAULT_MARKET_GRIDS["WETH-USD"],
  };
  const domain = getSettlementDomain(31337, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
  const digest = createOrderDigester(getDomainSeparator(domain));
  const svc = new MatcherService({
    journalDir: dir,
    markets: [market],
    digest,
    fees: { makerFeeBps: 5n, takerFeeBps: 10n },
    expiryMarginMs: 10_000,
    fsync: process.env.BENCH_FSYNC !== "0",
  });
  await svc.open();
  const keys = [4, 5, 6, 7].map((i) => HARDHAT_DEV_PRIVATE_KEYS[i] as Hex);
  const traders = keys.map((k) => privateKeyToAccount(k));
  for (const t of traders) {
    svc.deposited(t.address, market.baseToken, 10n ** 30n);
    svc.deposited(t.address, market.quoteToken, 10n ** 30n);
  }
  const expiry = BigInt(Math.floor(Date.now() / 1000) + 3600);
  const signers = traders.map((t, j) => ({ address: t.address, privateKey: keys[j] }));
  const inputs: PlaceSignedInput[] = [];
  for (let i = 0; i < N; i++) {
    const at = { i, sizeLots: BigInt(1 + (i % 3)), nonce: BigInt(i), expiry };
    inputs.push(pairOrderInput(market, digest, signers, at));
  }
  let next = 0;
  let ok = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: INFLIGHT }, async () => {
      while (next < inputs.length) {
        const r = await svc.placeSigned(inputs[next++]);
        if (r.status === "accepted") ok++;
      }
    }),
  );
  const s = (performance.now() - t0) / 1000;
  console.log(
    `matcher service alone: ${ok}/${N} orders accepted in ${s.toFixed(2)} s = ${(ok / s).toFixed(0)} orders/s (fsync ${process.env.BENCH_FSYNC !== "0"}, ${INFLIGHT} in flight)`,
  );
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
}
main();
