// Mutation testing of the pipeline's settle logic (batcher, settle sender, balance ledger):
// `npx stryker run scripts/mutation/pipeline.stryker.conf.mjs`. The tests are the unit tests of these
// modules (a fake chain for the batcher); the e2e suites that also reach them start real chains.
import { areaConfig } from "./base.mjs";

export default areaConfig({
  area: "pipeline-settle",
  mutate: [
    "pipeline/settle/batch*.ts",
    "pipeline/settle/settle-{sender,socket,classify,gas}.ts",
    "pipeline/match/ledger.ts",
    "!pipeline/**/*.test.ts",
  ],
  testFiles: [
    "pipeline/settle/{batch-confirmations,batch-flights,batcher,settle-sender,settle-classify,poison,settlement}*.test.ts",
    "pipeline/match/ledger.test.ts",
  ],
});
