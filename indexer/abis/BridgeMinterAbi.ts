// The remote-chain BridgeMinter's events (IBridgeMinter), written by hand so that the indexer never
// depends on build artifacts; indexer/abis.test.ts checks they equal the compiled interface's events.
import { parseAbi } from "viem";

export const BridgeMinterAbi = parseAbi([
  "event BridgeMinted(uint64 indexed depositNonce, address indexed homeToken, address indexed recipient, address wrappedToken, uint256 amount, uint64 keyEpoch)",
  "event BridgeBurned(uint64 indexed nonce, address indexed wrappedToken, address indexed sender, address homeToken, address recipient, uint256 amount, uint256 dstChainId, address dstContract)",
  "event BridgeWrappedTokenCreated(address indexed homeToken, address indexed wrappedToken, uint8 decimals)",
  "event BridgeMinterPaused(address indexed account)",
  "event BridgeMinterUnpaused(address indexed account)",
  "event BridgeMinterVerifierSet(address indexed verifier)",
  "event BridgeMinterVaultSet(address indexed vault)",
  "event BridgeMinterLimitSet(address indexed homeToken, uint256 dailyLimitWei, uint32 refillPeriodSec)",
]);
