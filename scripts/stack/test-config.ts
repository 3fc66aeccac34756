// Configs for tests that start a stack: every listener on its own free port, data in a given directory.
// (Port 0 is not enough: components read their URLs from the config, so the ports must be known first.)
import { chainNodeOf, loadConfig, type Config } from "../../config";
import { freePort } from "../../runtime/ports";

const PORT_VARIABLES = [
  "EXCHANGE_API_PORT",
  "DEX_API_PORT",
  "BRIDGE_API_PORT",
  "IAM_PORT",
  "DEX_WS_PORT",
  "GRPC_PORT",
  "INDEXER_PORT",
  "HEALTH_PORT",
  "WEB_PORT",
  "HOME_CHAIN_PORT",
  "REMOTE_CHAIN_PORT",
] as const;

/** Returns the environment too, for tests that start `npm start` as a child process. */
export async function createTestConfig(
  dataDir: string,
  overrides: Record<string, string> = {},
): Promise<{ config: Config; env: Record<string, string> }> {
  // CHAIN_NODE of the test process (CHAIN_NODE=anvil node --test ...) reaches the stack; overrides win
  // the simulated market is off (a still book) unless a test turns it on (SIMULATOR=on in overrides)
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    CHAIN_NODE: chainNodeOf(),
    SIMULATOR: "off",
  };
  const taken = new Set<number>();
  for (const name of PORT_VARIABLES) {
    let port = await freePort();
    while (taken.has(port)) port = await freePort();
    taken.add(port);
    env[name] = String(port);
  }
  Object.assign(env, overrides);
  return { config: loadConfig(env), env };
}
