// The home-chain BridgeVault's events (IBridgeVault), written by hand so that the indexer never depends on
// build artifacts; indexer/abis.test.ts checks they equal the compiled interface's events.
import { parseAbi } from "viem";

export const BridgeVaultAbi = parseAbi([
  "event BridgeDeposited(uint64 indexed nonce, address indexed token, address indexed sender, address recipient, uint256 amount, uint256 dstChainId, address dstContract)",
  "event BridgeReleaseQueued(uint64 indexed burnNonce, address indexed token, address indexed recipient, uint256 amount, uint64 readyAt, uint64 keyEpoch)",
  "event BridgeReleaseDisputed(uint64 indexed burnNonce, address indexed guardian)",
  "event BridgeReleaseExecuted(uint64 indexed burnNonce, address indexed token, address indexed recipient, uint256 amount)",
  "event BridgeVaultPaused(address indexed account)",
  "event BridgeVaultUnpaused(address indexed account)",
  "event BridgeVaultVerifierSet(address indexed verifier)",
  "event BridgeVaultMinterSet(address indexed minter)",
  "event BridgeVaultHsmSet(address indexed hsm)",
  "event BridgeVaultChallengePeriodSet(uint32 challengePeriodSec)",
  "event BridgeVaultTokenConfigured(address indexed token, bool allowed, uint256 maxDepositWei, uint256 hsmThresholdWei, uint256 dailyLimitWei, uint32 refillPeriodSec)",
]);
