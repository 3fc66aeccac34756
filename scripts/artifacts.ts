// The one reader of Hardhat artifacts: ABI and creation bytecode, for deploy scripts, tests and
// scripts/gen-abi.ts. Services never read artifacts: they import the ABIs generated from them (sdk/abi/).
// Where a contract is looked up: `<artifactsDir>/contracts/<source>/<Name>.json` when a build folder is
// given; otherwise the full-tree build (`artifacts/`, `npx hardhat compile`) first, then the contract's area
// build (`artifacts-exchange/`, `artifacts-bridge/`, `HARDHAT_AREA=<area> npx hardhat compile`).
import fs from "node:fs";
import path from "node:path";
import type { Abi, Hex } from "viem";
import { REPO_ROOT } from "../config";

/** Every contract TypeScript deploys or talks to, by name: its source file under contracts/. */
export const CONTRACT_SOURCES = {
  Settlement: "exchange/Settlement.sol",
  DemoToken: "exchange/tokens/DemoToken.sol",
  SandboxFunding: "exchange/funding/SandboxFunding.sol",
  AssetTokenFactory: "exchange/tokens/AssetTokenFactory.sol",
  AssetToken: "exchange/tokens/AssetToken.sol",
  EligibilityRegistry: "exchange/compliance/EligibilityRegistry.sol",
  BridgeVault: "bridge/BridgeVault.sol",
  BridgeMinter: "bridge/BridgeMinter.sol",
  BridgeWrappedToken: "bridge/BridgeWrappedToken.sol",
  BridgeFrostVerifier: "bridge/verifiers/BridgeFrostVerifier.sol",
  BridgeErc1271Verifier: "bridge/verifiers/BridgeErc1271Verifier.sol",
  BridgeCustodySigner: "bridge/verifiers/BridgeCustodySigner.sol",
  // test contracts, deployed by the e2e tests only (no generated ABI)
  SettlementTestHostileWallet: "exchange/test/SettlementTestHostileWallet.sol",
  BridgeTestToken: "bridge/test/BridgeTestToken.sol",
} as const;
export type ContractName = keyof typeof CONTRACT_SOURCES;

/** The contracts whose ABIs scripts/gen-abi.ts writes to sdk/abi/: every deployable non-test contract. */
export const GENERATED_ABI_CONTRACTS = [
  "Settlement",
  "DemoToken",
  "SandboxFunding",
  "AssetToken",
  "EligibilityRegistry",
  "BridgeVault",
  "BridgeMinter",
  "BridgeWrappedToken",
  "BridgeFrostVerifier",
  "BridgeErc1271Verifier",
  "BridgeCustodySigner",
] as const satisfies readonly ContractName[];

export interface Artifact {
  contractName: string;
  /** e.g. "contracts/exchange/Settlement.sol" */
  sourceName: string;
  abi: Abi;
  bytecode: Hex;
}

/** The files that may hold `name`'s artifact, in the order they are tried. */
export function artifactCandidates(name: ContractName, artifactsDir?: string): string[] {
  const source = CONTRACT_SOURCES[name];
  const rel = path.join("contracts", source, `${name}.json`);
  if (artifactsDir) return [path.join(artifactsDir, rel)];
  const area = source.split("/")[0];
  return [path.join(REPO_ROOT, "artifacts", rel), path.join(REPO_ROOT, `artifacts-${area}`, rel)];
}

/** A contract's compiled artifact (ABI and creation bytecode); throws naming the files it looked for. */
export function loadArtifact(name: ContractName, artifactsDir?: string): Artifact {
  const candidates = artifactCandidates(name, artifactsDir);
  const file = candidates.find((f) => fs.existsSync(f));
  if (!file)
    throw new Error(`artifact of ${name} not found (run \`npx hardhat compile\`); looked in ${candidates.join(", ")}`);
  return readArtifactFile(file);
}

/** An artifact file in Hardhat's format (also the Safe contracts' artifacts shipped on npm). */
export function readArtifactFile(file: string): Artifact {
  const a = JSON.parse(fs.readFileSync(file, "utf8")) as Artifact;
  return { contractName: a.contractName, sourceName: a.sourceName, abi: a.abi, bytecode: a.bytecode };
}
