// Gas profile of one 100-trade settlePacked batch by Solidity source line (a tool, not a benchmark):
//   HARDHAT_AREA=exchange npx hardhat run bench/gas/profile.ts            (repeat makers)
//   FRESH=1 HARDHAT_AREA=exchange npx hardhat run bench/gas/profile.ts    (fresh accounts)
// Prints gas per trade attributed through the source map; SLOAD/SSTORE/LOG are left out (they are the
// fixed storage cost), the ecrecover precompile is counted as its 100-gas call. QOP=1 splits "?" by opcode;
// FN=1 groups by function instead of line, OPS=1 by opcode.
import hre from "hardhat";
import { batchOf, deployEnv, fund, newAccounts } from "./scenario";
import { buildSettleArgs, encodePackedBatch } from "../../sdk/settle-batch";
/** The name of the last `function` declared before `offset` (FN=1 groups the profile by function). */
function functionAt(text: string, offset: number): string {
  const at = text.lastIndexOf("function ", offset);
  return at < 0 ? "-" : text.slice(at + 9, text.indexOf("(", at));
}

async function main() {
  const env = await deployEnv(hre);
  const trades = 100;
  const fresh = process.env.FRESH === "1";
  const makers = newAccounts(fresh ? trades : 5),
    takers = newAccounts(trades);
  await fund(
    env,
    [...makers, ...takers].map((a) => a.address),
    10n ** 12n,
    10n ** 21n,
  );
  if (!fresh) {
    const w = await batchOf(env, makers, takers, trades);
    const a = buildSettleArgs(w.orders, w.fills);
    await (
      await env.settlement
        .connect(env.operator)
        .settle(await env.settlement.nextBatchId(), a.orders, a.signatures, a.fills, { gasLimit: 16_000_000 })
    ).wait();
  }
  const b = await batchOf(env, makers, takers, trades);
  const args = buildSettleArgs(b.orders, b.fills);
  const tx = await env.settlement
    .connect(env.operator)
    .settlePacked(await env.settlement.nextBatchId(), encodePackedBatch(args), { gasLimit: 16_000_000 });
  const r = await tx.wait();
  const trace = await hre.network.provider.send("debug_traceTransaction", [
    tx.hash,
    { disableStorage: true, disableMemory: true, disableStack: true },
  ]);
  // source map
  const fqn = "contracts/exchange/Settlement.sol:Settlement";
  const bi = await hre.artifacts.getBuildInfo(fqn);
  const out = bi!.output.contracts["contracts/exchange/Settlement.sol"].Settlement.evm.deployedBytecode;
  const code = Buffer.from(out.object, "hex");
  const pcToIdx = new Map<number, number>();
  for (let pc = 0, idx = 0; pc < code.length; idx++) {
    pcToIdx.set(pc, idx);
    const op = code[pc]!;
    pc += op >= 0x60 && op <= 0x7f ? op - 0x5e : 1;
  }
  const entries: { s: number; l: number; f: number }[] = [];
  let prev = { s: 0, l: 0, f: 0 };
  for (const e of out.sourceMap.split(";")) {
    const p = e.split(":");
    const cur = { s: p[0] ? +p[0] : prev.s, l: p[1] ? +p[1] : prev.l, f: p[2] ? +p[2] : prev.f };
    entries.push(cur);
    prev = cur;
  }
  const ids: Record<number, string> = {};
  for (const [src, v] of Object.entries(bi!.output.sources)) ids[(v as any).id] = src;
  const byLine = new Map<string, number>();
  for (const l of trace.structLogs) {
    if (l.depth !== 1) continue;
    const g =
      l.op === "STATICCALL"
        ? 100
        : l.op.startsWith("SLOAD") || l.op.startsWith("SSTORE") || l.op.startsWith("LOG")
          ? 0
          : l.gasCost;
    const e = entries[pcToIdx.get(l.pc)!]!;
    const file = ids[e.f];
    let key = `?${process.env.QOP ? l.op : ""}`;
    if (file) {
      const text = bi!.input.sources[file]!.content;
      const line = text.slice(0, e.s).split("\n").length;
      key = `${file.split("/").pop()}:${process.env.FN ? functionAt(text, e.s) : line}`;
    }
    if (process.env.OPS) key = l.op;
    if (process.env.FNOP) {
      if (!key.endsWith(`:${process.env.FNOP}`)) continue;
      key = l.op;
    }
    byLine.set(key, (byLine.get(key) ?? 0) + g);
  }
  console.log("gasUsed", r.gasUsed.toString());
  for (const [k, g] of [...byLine.entries()].sort((a, b) => b[1] - a[1]).slice(0, 60))
    console.log(k.padEnd(40), (g / trades).toFixed(0).padStart(7));
}
main();
