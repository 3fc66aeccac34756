// Mutation testing of the exchange API's rules (#26), three areas, each its own score:
//   MUTATION_AREA=exchange-orders | exchange-compliance | exchange-funding npx stryker run scripts/mutation/exchange.stryker.conf.mjs
// (node scripts/mutation/run.mjs names the area). Each area mutates its decision code, the functions the
// order path, the registry sync and the bank call: the investor rules, resale holds and FIFO lots; the
// registry's lots, regimes and accreditation; the funding methods' limits and the bank calendar. Their
// direct unit tests run for every mutant. The routers and services around them (HTTP, SQL, the chain) are
// reached only by the server and e2e suites, which start a chain or a server per file: too slow per mutant
// (docs/measurements.md records what each area covers).
import { areaConfig } from "./base.mjs";

export const EXCHANGE_AREAS = {
  "exchange-orders": {
    mutate: ["api/exchange/orders/{compliance,resale,ledger}.ts"],
    testFiles: ["api/exchange/orders/rules*.test.ts"],
  },
  "exchange-compliance": {
    // whole files, no line ranges: the registry's enums and values and the sync (client.ts and orders-sync.ts,
    // the viem calls, the SQL and the wiring, are the chain and e2e tests')
    mutate: ["api/exchange/compliance/{regime,registry-values,sync}.ts"],
    testFiles: ["api/exchange/compliance/{sync,registry-values}*.test.ts"],
  },
  "exchange-funding": {
    mutate: ["api/exchange/funding/methods.ts"],
    testFiles: ["api/exchange/funding/methods.test.ts"],
  },
};

const area = process.env.MUTATION_AREA ?? "exchange-orders";
if (!EXCHANGE_AREAS[area]) throw new Error(`MUTATION_AREA: one of ${Object.keys(EXCHANGE_AREAS).join(", ")}`);
export default areaConfig({ area, ...EXCHANGE_AREAS[area] });
