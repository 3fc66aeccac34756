// Mutation testing of the matching engine core: `npx stryker run scripts/mutation/matcher.stryker.conf.mjs`.
import { areaConfig } from "./base.mjs";

// The property tests compare the engine with the naive reference over random command streams; 100 runs
// per property (250 in the normal suite) keep each mutant's run short. MATCHER_PROPERTY_RUNS overrides.
process.env.MATCHER_PROPERTY_RUNS ??= "100";

export default areaConfig({
  area: "matcher-core",
  // index.ts only re-exports; types.ts is types plus one default constant.
  mutate: ["matcher/core/**/*.ts", "!matcher/core/index.ts", "!matcher/core/**/*.test.ts"],
  // journal.test.ts and crash.test.ts test the journal around the core (and take seconds each): the core's
  // behaviour is held by the files below.
  testFiles: [
    "matcher/core/features.test.ts",
    "matcher/core/spec-3.2.test.ts",
    "matcher/core/properties.test.ts",
    "matcher/core/order-index.test.ts",
    "matcher/core/validate.test.ts",
    "matcher/core/boundaries.test.ts",
    // the resale rule at the match (engine.ts, fok.ts) and an account's open orders (accounts.ts)
    "matcher/core/resale.test.ts",
    "matcher/core/accounts.test.ts",
    // the book side's price window (price-index.ts): its Map-equivalence property
    "matcher/core/price-index.test.ts",
    // where the price window sits and when it re-centres (price-index.ts), a side's empty levels (book.ts)
    "matcher/core/price-index-window.test.ts",
    "matcher/core/book-side.test.ts",
    // a snapshot's own content (snapshot.ts), lookups of colliding ids (order-index.ts)
    "matcher/core/snapshot-content.test.ts",
    "matcher/core/order-index-collisions.test.ts",
    // the reason text of each rejection (engine.ts)
    "matcher/core/reject-reasons.test.ts",
  ],
});
