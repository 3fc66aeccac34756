// The JSON-RPC methods a browser app and its wallet need from a chain node, as the servers that forward a
// page's calls allow them: reads, fee and gas estimates, and sending a transaction the wallet signed (never a
// method that would sign with the node's own keys).
export const WALLET_RPC_METHODS = [
  "eth_chainId",
  "net_version",
  "eth_blockNumber",
  "eth_call",
  "eth_estimateGas",
  "eth_gasPrice",
  "eth_maxPriorityFeePerGas",
  "eth_feeHistory",
  "eth_getBalance",
  "eth_getCode",
  "eth_getTransactionCount",
  "eth_getBlockByNumber",
  "eth_getTransactionByHash",
  "eth_getTransactionReceipt",
  "eth_sendRawTransaction",
] as const;
