export { startChain, type ChainStatus, type RunningChain, type StartChainOptions } from "./start-chain";
export { ChainStartError } from "./node-process";
export { ChainReplayDivergedError } from "./replay";
export { JournalCorruptError } from "./journal";
export { createRpcClient, RpcCallError, type RpcClient } from "./rpc-client";
export { startChainInWorker } from "./start-chain-worker";
