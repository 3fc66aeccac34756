// Mutation testing of API authentication: `npx stryker run scripts/mutation/auth.stryker.conf.mjs`.
// The tests are the direct unit tests beside the code (api/auth/*.test.ts): the REST suites that also
// reach it (api/dex/security.test.ts and others) start a database and a server per file and take 10-20 s,
// too slow to run for each of hundreds of mutants.
import { areaConfig } from "./base.mjs";

export default areaConfig({
  area: "api-auth",
  mutate: ["api/auth/**/*.ts", "!api/auth/**/*.test.ts"],
  testFiles: ["api/auth/*.test.ts"],
});
