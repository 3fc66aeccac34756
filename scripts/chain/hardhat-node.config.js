// The Hardhat config `hardhat node` runs with for the persistent chains of `npm start`, read only by the
// node child process that node-process.ts spawns (which sets the two variables below; users' settings
// come through config/index.ts). Plain JavaScript and no plugins: the root hardhat.config.ts loads the
// whole toolbox through ts-node, which made every chain start seconds slower, and a node needs none of
// it. Its `networks.hardhat` must stay in step with the root config's (hardhat-node-config.test.ts).
const path = require("node:path");

const chainId = Number(process.env.HARDHAT_CHAIN_ID ?? 31337);
// The genesis block's timestamp enters its hash and every later block's parent hash, so a chain rebuilt
// by replay must start from the same date as the first time.
const genesisTimestampS = Number(process.env.CHAIN_GENESIS_TIMESTAMP_S ?? Math.floor(Date.now() / 1000));

module.exports = {
  paths: { root: path.resolve(__dirname, "..", "..") },
  networks: {
    hardhat: {
      chainId,
      initialDate: new Date(genesisTimestampS * 1000).toISOString(),
      // Blocks are made only by requests (automine), never by a timer: the journal sees them all.
      mining: { auto: true, interval: 0 },
      // Printing every request to a pipe costs more than serving it.
      loggingEnabled: false,
    },
  },
};
