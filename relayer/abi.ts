// ABIs the relayer and the bridge API use: the bridge contracts' full ABIs (functions and every custom
// error, so reverts decode by name) from the Hardhat build, and the event signatures as fixed items.
import fs from "node:fs";
import path from "node:path";
import { parseAbiItem, type Abi } from "viem";

const ROOT = path.resolve(__dirname, "..");

export const BRIDGE_DEPOSITED = parseAbiItem(
  "event BridgeDeposited(uint64 indexed nonce, address indexed token, address indexed sender, address recipient, uint256 amount, uint256 dstChainId, address dstContract)",
);
export const BRIDGE_BURNED = parseAbiItem(
  "event BridgeBurned(uint64 indexed nonce, address indexed wrappedToken, address indexed sender, address homeToken, address recipient, uint256 amount, uint256 dstChainId, address dstContract)",
);
export const BRIDGE_MINTED = parseAbiItem(
  "event BridgeMinted(uint64 indexed depositNonce, address indexed homeToken, address indexed recipient, address wrappedToken, uint256 amount, uint64 keyEpoch)",
);
export const BRIDGE_RELEASE_QUEUED = parseAbiItem(
  "event BridgeReleaseQueued(uint64 indexed burnNonce, address indexed token, address indexed recipient, uint256 amount, uint64 readyAt, uint64 keyEpoch)",
);
export const BRIDGE_RELEASE_EXECUTED = parseAbiItem(
  "event BridgeReleaseExecuted(uint64 indexed burnNonce, address indexed token, address indexed recipient, uint256 amount)",
);

/** Release status on the vault (`getRelease`). */
export const ReleaseStatus = { None: 0, Queued: 1, Disputed: 2, Executed: 3 } as const;

export interface BridgeAbis {
  vault: Abi;
  minter: Abi;
  erc20: Abi;
}

const cache = new Map<string, BridgeAbis>();

/** Loads from `<artifactsDir>/contracts/bridge` (the full-tree build; `artifacts-bridge` also works). */
export function loadBridgeAbis(artifactsDir = path.join(ROOT, "artifacts")): BridgeAbis {
  const hit = cache.get(artifactsDir);
  if (hit) return hit;
  const read = (rel: string) => JSON.parse(fs.readFileSync(path.join(artifactsDir, "contracts/bridge", rel), "utf8")).abi as Abi;
  const abis = {
    vault: read("BridgeVault.sol/BridgeVault.json"),
    minter: read("BridgeMinter.sol/BridgeMinter.json"),
    erc20: read("BridgeWrappedToken.sol/BridgeWrappedToken.json"),
  };
  cache.set(artifactsDir, abis);
  return abis;
}
