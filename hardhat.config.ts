import { type HardhatUserConfig, subtask } from "hardhat/config";
import { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } from "hardhat/builtin-tasks/task-names";
import "@nomicfoundation/hardhat-toolbox";

// These machines reach only the npm registry, so Hardhat must never download a compiler: the solc-js
// build shipped inside the pinned npm package `solc` is the compiler.
const SOLC_VERSION = "0.8.28";

subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD).setAction(async (args: { solcVersion: string }, _hre, runSuper) => {
  if (args.solcVersion !== SOLC_VERSION) return runSuper(args);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require("solc");
  return {
    compilerPath: require.resolve("solc/soljson.js"),
    isSolcJs: true,
    version: SOLC_VERSION,
    longVersion: solc.version(),
  };
});

const area = process.env.HARDHAT_AREA;

const config: HardhatUserConfig = {
  solidity: {
    compilers: [
      { version: SOLC_VERSION, settings: { optimizer: { enabled: true, runs: 1000 }, evmVersion: "cancun" } },
    ],
    // Settlement alone through the IR pipeline: its settle loop is cheaper per trade (docs/decisions/contracts.md).
    overrides: {
      "contracts/exchange/Settlement.sol": {
        version: SOLC_VERSION,
        settings: { optimizer: { enabled: true, runs: 1000 }, evmVersion: "cancun", viaIR: true },
      },
    },
  },
  // HARDHAT_AREA=exchange|bridge compiles and tests one area alone (contracts/<area>,
  // test/contracts/<area>) into its own artifacts; unset, the whole tree is built and tested.
  paths: area
    ? {
        sources: `./contracts/${area}`,
        tests: `./test/contracts/${area}`,
        artifacts: `./artifacts-${area}`,
        cache: `./cache-${area}`,
      }
    : { sources: "./contracts", tests: "./test/contracts", artifacts: "./artifacts", cache: "./cache" },
  networks: {
    // `hardhat node` serves this network; HARDHAT_CHAIN_ID lets the same config run the remote chain.
    hardhat: { chainId: Number(process.env.HARDHAT_CHAIN_ID ?? 31337) },
    home: { url: process.env.HOME_RPC_URL ?? "http://127.0.0.1:8545", chainId: 31337 },
    remote: { url: process.env.REMOTE_RPC_URL ?? "http://127.0.0.1:8546", chainId: 31338 },
  },
  mocha: { timeout: 120_000 },
  typechain: { outDir: area ? `typechain-types-${area}` : "typechain-types", target: "ethers-v6" },
};

export default config;
