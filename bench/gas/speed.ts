// How long the in-process Hardhat network takes to execute one 100-trade settlePacked batch (a tool):
//   HARDHAT_AREA=exchange npx hardhat run bench/gas/speed.ts
import hre from "hardhat";
import { batchOf, deployEnv, fund, newAccounts } from "./scenario";
import { buildSettleArgs, encodePackedBatch } from "../../sdk/settle-batch";
async function main() {
  const env = await deployEnv(hre);
  const makers = newAccounts(5),
    takers = newAccounts(100);
  await fund(
    env,
    [...makers, ...takers].map((a) => a.address),
    10n ** 14n,
    10n ** 23n,
  );
  const takers2 = newAccounts(200);
  await fund(
    env,
    takers2.map((a) => a.address),
    10n ** 14n,
    10n ** 23n,
  );
  for (const n of [1, 1, 1, 50, 50, 100, 100, 100, 200, 200, 200, 200]) {
    const b = await batchOf(env, makers, n > 100 ? takers2 : takers, n);
    const data = encodePackedBatch(buildSettleArgs(b.orders, b.fills));
    const id = await env.settlement.nextBatchId();
    const t = performance.now();
    const tx = await env.settlement.connect(env.operator).settlePacked(id, data, { gasLimit: 16_000_000 });
    const r = await tx.wait();
    console.log(`${n}-trade batch: ${(performance.now() - t).toFixed(1)} ms, ${r!.gasUsed} gas`);
  }
}
main();
