// One API process of bench:e2e's scale-out run (BENCH_API_PROCESSES=N, forked by bench/e2e/run.ts through
// test/support/stack-process.ts): the DEX API with the bench's raised limits (bench-dex-api.ts) serving the matcher
// partition named by DEX_PARTITIONS, on the bench's chains (HOME_/REMOTE_CHAIN_RPC_URL) and deployments
// (DEPLOYMENTS_FILE), its own data dir; /health on HEALTH_PORT. What `STACK_COMPONENTS=dex-api npm start` runs,
// with the bench's rate limits. SIGTERM or SIGINT stops it. BENCH_PROFILE=dir (inherited from bench:e2e): a V8
// CPU profile of this process from its start to its stop, written there.
import fs from "node:fs";
import path from "node:path";
import { Session } from "node:inspector/promises";
import pino from "pino";
import { loadConfig } from "../../config";
import { startHealthServer, startStack } from "../../scripts/stack";
import { benchDexApiComponent } from "./bench-dex-api";

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel });
  const stack = await startStack({ config, components: [benchDexApiComponent], onComponentError: "fail", logger });
  const health = await startHealthServer({ host: config.host, port: config.ports.health, stack }).catch(async (e) => {
    await stack.stop();
    throw e;
  });
  const profiler = process.env.BENCH_PROFILE ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post("Profiler.enable");
    await profiler.post("Profiler.start");
  }
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      if (profiler) {
        const { profile } = await profiler.post("Profiler.stop");
        fs.mkdirSync(process.env.BENCH_PROFILE!, { recursive: true });
        fs.writeFileSync(
          path.join(process.env.BENCH_PROFILE!, `bench-e2e-api-${process.pid}.cpuprofile`),
          JSON.stringify(profile),
        );
      }
      await health.close();
      await stack.stop();
      process.exit(0);
    })();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
