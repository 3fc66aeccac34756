// Measures chain-to-indexer visibility: N deposits one after another on a Hardhat node with the real
// Settlement; for each, the time from the receipt to the new balance in GET /balances/:account.
// Run: npx tsx indexer/bench/visibility.ts [N=30]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startIndexer } from "../run";
import { deployExchange } from "../testing/exchangeFixture";
import { startHardhatNode } from "../testing/hardhatNode";

async function main() {
  const n = Number(process.argv[2] ?? 30);
  const dir = mkdtempSync(path.join(tmpdir(), "indexer-visibility-"));
  const chain = await startHardhatNode();
  let indexer: Awaited<ReturnType<typeof startIndexer>> | undefined;
  try {
    const fx = await deployExchange(chain.rpcUrl);
    const file = path.join(dir, "deployments.json");
    writeFileSync(
      file,
      JSON.stringify({
        home: {
          chainId: 31337,
          rpcUrl: chain.rpcUrl,
          startBlock: fx.startBlock,
          contracts: { Settlement: fx.contracts.settlement },
          tokens: fx.tokens,
        },
      }),
    );
    indexer = await startIndexer({
      deploymentsFile: file,
      port: 0,
      dataDir: path.join(dir, "pglite"),
      schema: "visibility",
    });
    const { maker, admin } = fx.accounts;
    await fx.send(admin, fx.contracts.weth, fx.abis.token, "mint", [maker.address, 10n ** 30n]);
    await fx.send(maker, fx.contracts.weth, fx.abis.token, "approve", [fx.contracts.settlement, 10n ** 30n]);
    const delays: number[] = [];
    let total = 0n;
    for (let i = 1; i <= n; i++) {
      await fx.send(maker, fx.contracts.settlement, fx.abis.settlement, "deposit", [fx.contracts.weth, BigInt(i)]);
      const minedAt = performance.now();
      total += BigInt(i);
      for (;;) {
        const body = (await (await fetch(`${indexer.url}/balances/${maker.address}`)).json()) as {
          balances: { amount: string }[];
        };
        if (body.balances[0] && BigInt(body.balances[0].amount) === total) break;
        await new Promise((r) => setTimeout(r, 2));
      }
      delays.push(performance.now() - minedAt);
    }
    delays.sort((a, b) => a - b);
    const q = (p: number) => delays[Math.min(delays.length - 1, Math.floor(p * delays.length))]!.toFixed(0);
    console.log(
      `chain-to-indexer visibility over ${n} deposits (receipt -> balance in /balances): p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, max ${q(1)} ms, min ${q(0)} ms`,
    );
  } finally {
    await indexer?.stop();
    await chain.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
