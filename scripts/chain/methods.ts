// Which JSON-RPC methods change a chain's state (Hardhat or Anvil), and so must be journalled and replayed.

const TRANSACTION_METHODS = new Set([
  "eth_sendRawTransaction",
  "eth_sendTransaction",
  "eth_sendUnsignedTransaction",
  "eth_sendRawTransactionSync",
  "eth_sendTransactionSync",
]);

/** evm_*, hardhat_* and anvil_* methods that only read. Every other one is treated as a mutation. */
const READ_ONLY_DEV_METHODS = new Set([
  "hardhat_metadata",
  "hardhat_getAutomine",
  "hardhat_getStackTraceFailuresCount",
  "hardhat_setLoggingEnabled",
  "hardhat_addCompilationResult",
  "anvil_metadata",
  "anvil_nodeInfo",
  "anvil_getAutomine",
  "anvil_getIntervalMining",
  "anvil_dumpState",
  "anvil_setLoggingEnabled",
]);

export function isMutating(method: string): boolean {
  if (TRANSACTION_METHODS.has(method)) return true;
  if (method.startsWith("evm_") || method.startsWith("hardhat_") || method.startsWith("anvil_"))
    return !READ_ONLY_DEV_METHODS.has(method);
  return false;
}

/**
 * A cheap test on the raw body: false means no mutating method can be in it and the bytes may be
 * forwarded without parsing. True only means "parse and look".
 */
const MAYBE_MUTATING = /"method"\s*:\s*"(eth_send(Raw|Unsigned)?Transaction|evm_|hardhat_|anvil_)/;
export function mayContainMutation(rawBody: string): boolean {
  return MAYBE_MUTATING.test(rawBody);
}
