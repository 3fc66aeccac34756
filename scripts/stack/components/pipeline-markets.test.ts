// A matcher partition's PIPELINE_MARKETS: a symbol that is not deployed stops the pipeline's start before it
// opens anything (no journal, no chain call); the one-market case narrows the markets it runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { loadConfig } from "../../../config";
import type { StackContext } from "../types";
import { pipelineComponent } from "./pipeline";

function ctxWith(env: Record<string, string>): StackContext {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pipeline-markets-"));
  return {
    config: loadConfig({ DATA_DIR: dataDir, ...env }),
    logger: pino({ level: "silent" }),
    deployments: {
      home: {
        chainId: 31337,
        rpcUrl: "http://127.0.0.1:1",
        wsUrl: "ws://127.0.0.1:1",
        startBlock: 0,
        contracts: { Settlement: "0x00000000000000000000000000000000000000c1" },
        tokens: {
          USD: { address: "0x00000000000000000000000000000000000000a1", decimals: 6 },
          WETH: { address: "0x00000000000000000000000000000000000000a2", decimals: 18 },
        },
      },
    },
  } as unknown as StackContext;
}

test("PIPELINE_MARKETS naming a market that is not deployed is refused at start, naming it and the deployed ones", async () => {
  const ctx = ctxWith({ PIPELINE_MARKETS: "WETH-USD,WBTC-USD" });
  await assert.rejects(
    pipelineComponent.start(ctx),
    /PIPELINE_MARKETS names WBTC-USD, not deployed \(deployed: WETH-USD\)/,
  );
  // nothing was opened under the data dir
  assert.deepEqual(fs.readdirSync(ctx.config.dataDir), []);
});
