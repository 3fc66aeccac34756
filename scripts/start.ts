// `npm start` (`npm start -- --reset` wipes the data dir first; `--json` / `--pretty` choose the console's
// format): the whole stack on embedded defaults, each component supervised (restarted when it fails).
// Ctrl-C or SIGTERM drains the surfaces, then stops every component and chain before exiting.
// This process serves (REST, WebSocket, gRPC, bridge API): it never holds the deployer's (admin) key. Its
// config names the deployer by address; DEPLOYER_PRIVATE_KEY is taken out of its environment at once and
// passed on only to the short-lived provisioning children (scripts/stack/provision.ts), then dropped.
import { ConfigError, DeployerSecret, loadConfig } from "../config";
import { beginStack } from "./stack/begin";
import { formatBanner } from "./stack/banner";
import { consoleFormatFlag, createConsoleLogger, stepProgress } from "./stack/console";
import type { Logger } from "pino";
import type { RunningStack } from "./stack/start-stack";

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const reset = argv.includes("--reset");
  const config = loadConfig();
  const deployerSecret = DeployerSecret.takeFrom(process.env);
  // short lines on a terminal, JSON otherwise or with --json (scripts/stack/console.ts)
  const logger = createConsoleLogger({ level: config.logLevel, json: consoleFormatFlag(argv) });
  // the chains (and their snapshot loads) start first, while the rest of the stack's modules load
  const begun = beginStack(config, {
    reset,
    onReset: () => logger.info({ dataDir: config.dataDir }, "reset: wiping the data dir"),
  });
  const { startHealthServer, startStack } = await import("./stack");
  // /health answers from the first moment: 503 naming the start step under way, then the stack's report
  let stack: RunningStack | undefined;
  let step = "chains+compile";
  const health = await startHealthServer({
    host: config.host,
    port: config.ports.health,
    stack: {
      health: async () =>
        stack?.health() ?? {
          status: "degraded",
          components: [{ name: "start", ok: false, detail: `starting: ${step}` }],
        },
    },
  });
  const progress = stepProgress(logger);
  // A stop asked while the stack starts (Ctrl-C during a first start) ends the start after its step under
  // way; the start then stops what it made, as a failed start does. A stop once it runs drains it first.
  const stopDuringStart = new AbortController();
  const starting = startStack({
    config,
    begun,
    // the launcher's own start (npm and tsx before it add about a second)
    startedAtMs: Date.now() - process.uptime() * 1000,
    onComponentError: "continue",
    logger,
    deployerSecret,
    signal: stopDuringStart.signal,
    onPhase(name, event, ms) {
      if (event === "begin") step = name;
      progress(name, event, ms);
    },
  });
  const shutdown = onceStopping(logger, async () => {
    stopDuringStart.abort();
    // the stack drains first (no new connection, every request received answered), then stops
    await (await starting.catch(() => undefined))?.stop();
    await health.close();
  });
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  stack = await starting.catch(async (e: unknown) => {
    if (stopDuringStart.signal.aborted) return undefined; // the shutdown above ends the process
    await health.close();
    throw e;
  });
  if (!stack) return;
  const running = stack;
  // last: nothing routine is logged at info after it, so it stays on screen
  console.log(formatBanner(running, health.url));
}

// One stop, however many signals announce it. `kill -TERM -<pgid>` (systemd, container runtimes) signals
// npm, tsx and this process at once, and npm and tsx forward theirs: the same stop arrives two or three
// times within milliseconds, and a terminal's Ctrl-C reaches the whole group the same way. Repeats are
// ignored; only a Ctrl-C pressed again later (after REPEAT_WINDOW_MS) forces an immediate exit, and a stop
// that hangs ends after STOP_DEADLINE_MS.
const REPEAT_WINDOW_MS = 1_000;
const STOP_DEADLINE_MS = 60_000;

function onceStopping(logger: Logger, stop: () => Promise<void>): (signal: NodeJS.Signals) => void {
  let stoppingSince: number | null = null;
  return (signal) => {
    if (stoppingSince !== null) {
      if (signal === "SIGINT" && performance.now() - stoppingSince > REPEAT_WINDOW_MS) {
        logger.warn({ signal }, "second Ctrl-C: exiting now (chain nodes exit with this process)");
        process.exit(1);
      }
      logger.debug({ signal }, "already stopping");
      return;
    }
    stoppingSince = performance.now();
    logger.info({ signal }, "stopping");
    setTimeout(() => {
      logger.error({ deadlineMs: STOP_DEADLINE_MS }, "stop took too long: exiting");
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    void stop().then(() => {
      logger.info("stopped");
      process.exit(0);
    });
  };
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError) console.error(e.message);
  else console.error(e);
  process.exit(1);
});
