// The funding service as a child process for the crash test (issue #14): on a PGlite data dir and a real
// chain, it makes one transfer for an account (or only processes what is open) and kills itself with
// SIGKILL at the named point between a chain call and the write of its outcome. Its last stdout line is
// `RESULT <json>` when it was not killed.
import type { Address } from "viem";
import { startFundingStack } from "./funding-fixture";

interface ChildConfig {
  chain: {
    rpcUrl: string;
    chainId: number;
    settlement: Address;
    funding: Address;
    tokens: { USD: { address: Address; decimals: number }; WETH: { address: Address; decimals: number } };
  };
  dbDir: string;
  encryptionKeyHex: string;
  accountId: string;
  action: "deposit" | "withdrawal" | "process";
  method?: "ach" | "wire" | "instant";
  amountUnits?: string;
  /** a step name given to afterChainSend: "deposit-credited", "withdrawal-new-stored", "withdrawal-new-sent", ... */
  crashAt?: string;
}

async function main(): Promise<void> {
  const cfg = JSON.parse(process.argv[2]) as ChildConfig;
  let armed = false;
  const stack = await startFundingStack({
    chain: cfg.chain,
    dbDir: cfg.dbDir,
    encryptionKeyHex: cfg.encryptionKeyHex,
    afterChainSend: (step) => {
      if (armed && step === cfg.crashAt) process.kill(process.pid, "SIGKILL");
    },
  });
  await stack.custody.ensureAccount(cfg.accountId);
  armed = true;
  if (cfg.action === "process") {
    await stack.funding.processDue();
  } else {
    await stack.funding.create(cfg.accountId, cfg.action, cfg.method ?? "instant", BigInt(cfg.amountUnits ?? "0"));
  }
  const rows = await stack.db.query(
    "SELECT id, direction, status, chain_step, tx_hashes, pending_tx_hash FROM exchange_funding_transfers WHERE account_id = $1 ORDER BY created_ms",
    [cfg.accountId],
  );
  const address = await stack.custody.addressOf(cfg.accountId);
  await stack.close();
  process.stdout.write(`RESULT ${JSON.stringify({ address, rows: rows.rows })}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`funding crash child failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
