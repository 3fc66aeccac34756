// The bridge contracts' ABIs as the relayer, the bridge API and the signer cluster use them, all views of the
// generated sdk/abi/ (`npm run gen:abi`): the full ABIs (functions and every custom error, so reverts decode by
// name) and the events they follow, typed.
import { getAbiItem, type Abi } from "viem";
import { bridgeMinterAbi, bridgeVaultAbi, bridgeWrappedTokenAbi } from "./abi";

export const BRIDGE_DEPOSITED = getAbiItem({ abi: bridgeVaultAbi, name: "BridgeDeposited" });
export const BRIDGE_BURNED = getAbiItem({ abi: bridgeMinterAbi, name: "BridgeBurned" });
export const BRIDGE_MINTED = getAbiItem({ abi: bridgeMinterAbi, name: "BridgeMinted" });
export const BRIDGE_RELEASE_QUEUED = getAbiItem({ abi: bridgeVaultAbi, name: "BridgeReleaseQueued" });
export const BRIDGE_RELEASE_EXECUTED = getAbiItem({ abi: bridgeVaultAbi, name: "BridgeReleaseExecuted" });

/** Release status on the vault (`getRelease`). */
export const ReleaseStatus = { None: 0, Queued: 1, Disputed: 2, Executed: 3 } as const;

export interface BridgeAbis {
  vault: Abi;
  minter: Abi;
  erc20: Abi;
}

export const BRIDGE_ABIS: BridgeAbis = { vault: bridgeVaultAbi, minter: bridgeMinterAbi, erc20: bridgeWrappedTokenAbi };
