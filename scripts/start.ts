// `npm start` (`npm start -- --reset` wipes the data dir first): the whole stack on embedded defaults.
// Ctrl-C or SIGTERM stops every component and chain before exiting.
// This process serves (REST, WebSocket, gRPC, bridge API): it never holds the deployer's (admin) key. Its
// config names the deployer by address; DEPLOYER_PRIVATE_KEY is taken out of its environment at once and
// passed on only to the short-lived provisioning children (scripts/stack/provision.ts), then dropped.
import pino from "pino";
import { ConfigError, DeployerSecret, loadConfig } from "../config";
import { startHealthServer, startStack } from "./stack";
import { formatBanner } from "./stack/banner";

async function main(): Promise<void> {
  const reset = process.argv.slice(2).includes("--reset");
  const config = loadConfig();
  const deployerSecret = DeployerSecret.takeFrom(process.env);
  const logger = pino({ level: config.logLevel });
  const stack = await startStack({ config, reset, onComponentError: "continue", logger, deployerSecret });
  const health = await startHealthServer({ host: config.host, port: config.ports.health, stack }).catch(async (e) => {
    await stack.stop();
    throw e;
  });
  console.log(formatBanner(stack, health.url));

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting now (chain nodes exit with this process)");
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, "stopping");
    void (async () => {
      await health.close();
      await stack.stop();
      logger.info("stopped");
      process.exit(0);
    })();
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError) console.error(e.message);
  else console.error(e);
  process.exit(1);
});
