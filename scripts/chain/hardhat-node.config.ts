// The Hardhat config `hardhat node` runs with for the persistent chains of `npm start`: the project's
// own config, plus what a replayable chain needs. Read only by the node child process that
// scripts/chain/node-process.ts spawns; the environment variables below are set by that parent, not
// by users (the config module is the one place users' environment is read).
import path from "node:path";
import type { HardhatUserConfig } from "hardhat/config";
import baseConfig from "../../hardhat.config";

const repoRoot = path.resolve(__dirname, "..", "..");

// The genesis block's timestamp enters its hash and every later block's parent hash, so a chain that
// is rebuilt by replay must start from the same date as the first time.
const genesisTimestampS = Number(process.env.CHAIN_GENESIS_TIMESTAMP_S ?? Math.floor(Date.now() / 1000));

const config: HardhatUserConfig = {
  ...baseConfig,
  paths: { ...baseConfig.paths, root: repoRoot },
  networks: {
    ...baseConfig.networks,
    hardhat: {
      ...baseConfig.networks?.hardhat,
      chainId: Number(process.env.HARDHAT_CHAIN_ID ?? 31337),
      initialDate: new Date(genesisTimestampS * 1000).toISOString(),
      // Blocks are made only by requests (automine), never by a timer: the replay log sees them all.
      mining: { auto: true, interval: 0 },
      // Printing every request to a pipe costs more than serving it.
      loggingEnabled: false,
    },
  },
};

export default config;
