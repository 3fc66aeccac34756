// Where the gas of the bridge's measured transactions goes (a tool, not a benchmark):
//   HARDHAT_AREA=bridge npx hardhat run bench/bridge/profile.ts
// Runs bench/bridge/gas.ts's scenario, traces each measured transaction (debug_traceTransaction) and splits its
// gasUsed into: intrinsic 21,000, calldata, SLOAD/SSTORE (by slot, cold or warm), calls to contracts (account
// access + call overhead, callee's own work counted in its own rows), precompiles, logs and the remaining
// computation; the SSTORE refund is shown as a negative row. Rows add up to gasUsed.
import hre from "hardhat";
import { measureBridgeGas } from "./gas";

interface StructLog {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  stack?: string[];
}

const PRECOMPILES: Record<string, string> = { "0x1": "ecrecover precompile", "0x2": "sha256 precompile" };

async function profile(label: string, txHash: string) {
  const provider = hre.network.provider;
  const tx: any = await provider.send("eth_getTransactionByHash", [txHash]);
  const receipt: any = await provider.send("eth_getTransactionReceipt", [txHash]);
  const trace: any = await provider.send("debug_traceTransaction", [
    txHash,
    { disableStorage: true, disableMemory: true },
  ]);
  const logs: StructLog[] = trace.structLogs;
  const data = Buffer.from(tx.input.slice(2), "hex");
  const zero = data.filter((b) => b === 0).length;
  const rows = new Map<string, number>();
  const add = (k: string, g: number) => rows.set(k, (rows.get(k) ?? 0) + g);
  add("intrinsic", 21_000);
  add(`calldata (${data.length - zero} nonzero x16, ${zero} zero x4)`, (data.length - zero) * 16 + zero * 4);
  // exclusive cost of op i: gas drop to the next op at the same depth minus what deeper ops spent in between
  const exclusive = new Array<number>(logs.length).fill(0);
  for (let i = logs.length - 1; i >= 0; i--) {
    const d = logs[i]!.depth;
    let j = i + 1,
      inner = 0;
    while (j < logs.length && logs[j]!.depth > d) inner += exclusive[j++]!;
    exclusive[i] = j < logs.length && logs[j]!.depth === d ? logs[i]!.gas - logs[j]!.gas - inner : logs[i]!.gasCost;
  }
  logs.forEach((l, i) => {
    const g = exclusive[i]!;
    const top = (n: number) => l.stack?.[l.stack.length - 1 - n];
    if (l.op === "SLOAD") add(`SLOAD ${g >= 2100 ? "cold" : "warm"} d${l.depth}`, g);
    else if (l.op === "SSTORE") add(`SSTORE d${l.depth} (${g})`, g);
    else if (l.op.startsWith("LOG")) add(`${l.op} d${l.depth}`, g);
    else if (["CALL", "STATICCALL", "DELEGATECALL"].includes(l.op)) {
      const raw = top(1) ?? "0";
      const to = `0x${BigInt(raw.startsWith("0x") ? raw : `0x${raw}`).toString(16)}`;
      add(PRECOMPILES[to] ?? `${l.op} to contract d${l.depth} (access + overhead)`, g);
    } else add(`other computation d${l.depth}`, g);
  });
  const total = [...rows.values()].reduce((a, b) => a + b, 0);
  add("SSTORE refund", Number(BigInt(receipt.gasUsed)) - total);
  console.log(`\n${label}: gasUsed ${BigInt(receipt.gasUsed)}`);
  for (const [k, g] of [...rows.entries()].sort((a, b) => b[1] - a[1]))
    console.log(`  ${k.padEnd(52)} ${String(g).padStart(7)}`);
}

measureBridgeGas(hre, (label, hash) =>
  ["mintFreshRecipient", "mintRepeatRecipient", "queueReleaseWithHsm"].includes(label)
    ? profile(label, hash)
    : undefined,
).catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
