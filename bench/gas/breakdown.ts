// Per-trade gas breakdown of a settle transaction from its opcode trace (debug_traceTransaction on the
// in-process Hardhat network): storage reads (SLOAD), storage writes (SSTORE), logs (LOG0-4), ecrecover
// (the precompile call with its 3,000 gas), calldata (the intrinsic calldata cost), the access list (EIP-2930:
// 2,400 an address, 1,900 a storage key), the 21,000 base, and everything else (computation: hashing, memory,
// the loops).
import type { HardhatRuntimeEnvironment } from "hardhat/types";

export interface Breakdown {
  total: bigint;
  base: bigint;
  calldata: bigint;
  accessList: bigint;
  sload: bigint;
  sstore: bigint;
  logs: bigint;
  ecrecover: bigint;
  compute: bigint;
}

/** Intrinsic calldata gas (EIP-2028): 4 a zero byte, 16 a non-zero byte. */
export function calldataGas(data: string): bigint {
  let gas = 0n;
  for (let i = 2; i < data.length; i += 2) gas += data.slice(i, i + 2) === "00" ? 4n : 16n;
  return gas;
}

/** Intrinsic access list gas (EIP-2930): 2,400 an address, 1,900 a storage key. */
export function accessListGas(list: { storageKeys: string[] }[]): bigint {
  return list.reduce((gas, entry) => gas + 2_400n + 1_900n * BigInt(entry.storageKeys.length), 0n);
}

export async function breakdownOf(hre: HardhatRuntimeEnvironment, txHash: string): Promise<Breakdown> {
  const tx = await hre.network.provider.send("eth_getTransactionByHash", [txHash]);
  const receipt = await hre.network.provider.send("eth_getTransactionReceipt", [txHash]);
  const trace = await hre.network.provider.send("debug_traceTransaction", [
    txHash,
    { disableStorage: true, disableMemory: true, disableStack: true },
  ]);
  const out: Breakdown = {
    total: BigInt(receipt.gasUsed),
    base: 21_000n,
    calldata: calldataGas(tx.input),
    accessList: accessListGas(tx.accessList ?? []),
    sload: 0n,
    sstore: 0n,
    logs: 0n,
    ecrecover: 0n,
    compute: 0n,
  };
  const logs = trace.structLogs as { op: string; gasCost: number; depth: number }[];
  for (let i = 0; i < logs.length; i++) {
    const l = logs[i]!;
    const cost = BigInt(l.gasCost);
    if (l.op === "SLOAD") out.sload += cost;
    else if (l.op === "SSTORE") out.sstore += cost;
    else if (l.op.startsWith("LOG")) out.logs += cost;
    // a precompile has no frame of its own (the next step is at the same depth): the ecrecover call, whose
    // trace cost is the gas handed to it; it charges its access (100) and the precompile's 3,000
    else if (l.op === "STATICCALL" && logs[i + 1]?.depth === l.depth) out.ecrecover += 3_100n;
  }
  out.compute =
    out.total - out.base - out.calldata - out.accessList - out.sload - out.sstore - out.logs - out.ecrecover;
  return out;
}
