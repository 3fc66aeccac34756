// Regenerates MpcSimBridgeEventsStub.json from the .sol beside it (solc-js from npm, same version as Hardhat):
//   tsx signer-cluster/testing/compile-stub.ts
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
// eslint-disable-next-line @typescript-eslint/no-require-imports
const solc = require("solc");

const source = readFileSync(join(__dirname, "MpcSimBridgeEventsStub.sol"), "utf8");
// source units are named by their path from the repository root, so the stub's imports of the bridge's interfaces
// (whose events it emits) resolve there
const root = resolve(__dirname, "../..");
const unit = "signer-cluster/testing/MpcSimBridgeEventsStub.sol";
const findImports = (path: string) => ({ contents: readFileSync(resolve(root, path), "utf8") });
const out = JSON.parse(
  solc.compile(
    JSON.stringify({
      language: "Solidity",
      sources: { [unit]: { content: source } },
      settings: {
        optimizer: { enabled: true, runs: 200 },
        evmVersion: "cancun",
        outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
      },
    }),
    { import: findImports },
  ),
);
if (out.errors?.some((e: { severity: string }) => e.severity === "error"))
  throw new Error(JSON.stringify(out.errors, null, 2));
const c = out.contracts[unit].MpcSimBridgeEventsStub;
writeFileSync(
  join(__dirname, "MpcSimBridgeEventsStub.json"),
  `${JSON.stringify({ solc: solc.version(), abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }, null, 2)}\n`,
);
console.log("wrote MpcSimBridgeEventsStub.json");
