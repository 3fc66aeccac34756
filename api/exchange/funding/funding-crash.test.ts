// Exactly once across a crash (issue #14): the funding service runs in a child process on a PGlite data dir
// and a real chain, and is killed (SIGKILL) between a chain call and the write of its outcome: after the
// deposit's credit, after a withdrawal step was signed and stored but before it was sent, and after each
// withdrawal step was sent. A fresh child on the same data dir then finishes the work: every transfer ends
// completed, the account's Settlement balance moved by exactly the transfers' amounts, nothing twice.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Address } from "viem";
import { demoTokenAbi, settlementAbi } from "../../../sdk/abi";
import { startFundingChain } from "../testing/funding-fixture";
import { DEFAULT_SANDBOX_PRELOAD_UNITS, USD_UNIT } from "../custody/custody";

const CHILD = path.join(__dirname, "..", "testing", "funding-crash-child.ts");

interface ChildResult {
  address: Address;
  rows: Array<Record<string, unknown>>;
}

function runChild(
  config: object,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; result: ChildResult | undefined; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, JSON.stringify(config)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += String(d)));
    child.stderr.on("data", (d) => (err += String(d)));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      const line = out.split("\n").find((l) => l.startsWith("RESULT "));
      resolve({ code, signal, result: line ? JSON.parse(line.slice(7)) : undefined, stderr: err });
    });
  });
}

test("killed between each chain call and its record, a restarted funding service completes every transfer exactly once", {
  timeout: 600_000,
}, async (t) => {
  const chain = await startFundingChain();
  const dbDir = fs.mkdtempSync(path.join(os.tmpdir(), "funding-crash-"));
  t.after(async () => {
    await chain.stop();
    fs.rmSync(dbDir, { recursive: true, force: true });
  });
  const base = {
    chain: {
      rpcUrl: chain.rpcUrl,
      chainId: chain.chainId,
      settlement: chain.settlement,
      funding: chain.funding,
      tokens: chain.tokens,
    },
    dbDir,
    encryptionKeyHex: randomBytes(32).toString("hex"),
  };
  const client = chain.fixture.client;
  const reserve = async () =>
    (await client.readContract({
      address: chain.tokens.USD.address,
      abi: demoTokenAbi,
      functionName: "balanceOf",
      args: [chain.funding],
    })) as bigint;

  const cases = [
    { action: "deposit", crashAt: "deposit-credited", amount: 100n, delta: 100n },
    { action: "withdrawal", crashAt: "withdrawal-new-stored", amount: 40n, delta: -40n },
    { action: "withdrawal", crashAt: "withdrawal-new-sent", amount: 30n, delta: -30n },
    { action: "withdrawal", crashAt: "withdrawal-requested-sent", amount: 20n, delta: -20n },
    { action: "withdrawal", crashAt: "withdrawal-executed-sent", amount: 10n, delta: -10n },
  ] as const;
  for (const c of cases) {
    const accountId = randomUUID();
    const reserveBefore = await reserve();
    const killed = await runChild({
      ...base,
      accountId,
      action: c.action,
      method: "instant",
      amountUnits: String(c.amount * USD_UNIT),
      crashAt: c.crashAt,
    });
    assert.equal(
      killed.signal,
      "SIGKILL",
      `${c.crashAt}: the child was killed at its point (${killed.code}, ${killed.stderr.slice(-500)})`,
    );
    const done = await runChild({ ...base, accountId, action: "process" });
    assert.equal(done.code, 0, done.stderr.slice(-2000));
    const { rows, address } = done.result!;
    const transfer = rows.find((r) => r.direction === c.action)!;
    assert.ok(transfer, `${c.crashAt}: the transfer's intent row survived the kill`);
    assert.equal(transfer.status, "completed", `${c.crashAt}: ${JSON.stringify(transfer)}`);
    assert.equal(
      (transfer.tx_hashes as string[]).length,
      c.action === "deposit" ? 1 : 3,
      `${c.crashAt}: each chain step recorded once`,
    );
    assert.equal(transfer.pending_tx_hash, null);
    assert.equal(rows.length, 2, "the preload and the transfer, nothing else");
    // the chain: the account moved by exactly the amount, once
    const cash = (await client.readContract({
      address: chain.settlement,
      abi: settlementAbi,
      functionName: "balanceOf",
      args: [address, chain.tokens.USD.address],
    })) as bigint;
    assert.equal(cash, DEFAULT_SANDBOX_PRELOAD_UNITS + c.delta * USD_UNIT, `${c.crashAt}: Settlement cash moved once`);
    const reserveAfter = await reserve();
    assert.equal(
      reserveBefore - reserveAfter,
      DEFAULT_SANDBOX_PRELOAD_UNITS + (c.action === "deposit" ? c.amount * USD_UNIT : -c.amount * USD_UNIT),
      `${c.crashAt}: the bank paid out the preload and the deposit once, or got the withdrawal back once`,
    );
    // a third run changes nothing
    const again = await runChild({ ...base, accountId, action: "process" });
    assert.equal(again.code, 0);
    assert.equal(await reserve(), reserveAfter);
    t.diagnostic(`${c.crashAt}: completed once after the kill`);
  }
});
