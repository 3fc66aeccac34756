// Mutation testing of the identity provider's own logic (#26): `npx stryker run scripts/mutation/iam.stryker.conf.mjs`.
// Mutates the one-time codes (limits, lockout, single use) and the SQL adapter of oidc-provider's models
// (single use of codes and refresh tokens, expiry, revocation); their direct tests run each mutant on an
// in-memory PGlite. The HTTP suites (api/iam/*-flow, password-grant, bad-input) start an IAM server per file.
import { areaConfig } from "./base.mjs";

export default areaConfig({
  area: "api-iam",
  mutate: ["api/iam/{otp,adapter}.ts"],
  testFiles: ["api/iam/otp.test.ts", "api/iam/adapter.test.ts"],
  timeoutMS: 10_000,
});
