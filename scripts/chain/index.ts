export {
  startChain,
  type ChainRestored,
  type ChainStatus,
  type RunningChain,
  type SnapshotPolicy,
  type StartChainOptions,
} from "./start-chain";
export { CHAIN_NODE_KINDS, type ChainNodeKind } from "./node-process";
export { SnapshotCorruptError } from "./snapshot";
export { ChainStartError } from "./node-process";
export { ChainReplayDivergedError } from "./replay";
export { JournalCorruptError } from "./journal";
export { createRpcClient, RpcCallError, type RpcClient } from "./rpc-client";
export { startChainInWorker } from "./start-chain-worker";
export { connectExternalChain, rpcCall, redactUrl } from "./external-chain";
