// The indexer's hand-written event ABIs must equal the events the contracts' interfaces declare (names,
// types, indexed flags, order of fields): a drift would make the indexer silently miss events.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { Abi, AbiEvent } from "viem";
import { BridgeMinterAbi } from "./abis/BridgeMinterAbi";
import { BridgeVaultAbi } from "./abis/BridgeVaultAbi";
import { SettlementAbi } from "./abis/SettlementAbi";

const repoRoot = path.resolve(__dirname, "..");

/** The newest compiled artifact of `contracts/<area>/<file>` (whole-tree or per-area build); compiles the area if none. */
function interfaceAbi(area: "exchange" | "bridge", file: string, name: string): Abi {
  const candidates = [
    path.join(repoRoot, "artifacts", "contracts", area, file, `${name}.json`),
    path.join(repoRoot, `artifacts-${area}`, "contracts", area, file, `${name}.json`),
  ];
  let found = candidates.filter(existsSync);
  if (found.length === 0) {
    execFileSync(process.execPath, [path.join(repoRoot, "node_modules", "hardhat", "internal", "cli", "cli.js"), "compile", "--quiet"], {
      cwd: repoRoot,
      env: { ...process.env, HARDHAT_AREA: area },
      stdio: "pipe",
    });
    found = candidates.filter(existsSync);
  }
  const newest = found.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!;
  return JSON.parse(readFileSync(newest, "utf8")).abi as Abi;
}

function eventSignatures(abi: Abi): string[] {
  return abi
    .filter((item): item is AbiEvent => item.type === "event")
    .map((e) => `${e.name}(${e.inputs.map((i) => `${i.type}${i.indexed ? " indexed" : ""} ${i.name}`).join(", ")})`)
    .sort();
}

test("SettlementAbi equals the events of ISettlement", () => {
  const compiled = eventSignatures(interfaceAbi("exchange", "ISettlement.sol", "ISettlement"));
  assert.ok(compiled.length > 0);
  assert.deepEqual(eventSignatures(SettlementAbi), compiled);
});

test("BridgeVaultAbi equals the events of IBridgeVault", () => {
  const compiled = eventSignatures(interfaceAbi("bridge", "interfaces/IBridgeVault.sol", "IBridgeVault"));
  assert.ok(compiled.length > 0);
  assert.deepEqual(eventSignatures(BridgeVaultAbi), compiled);
});

test("BridgeMinterAbi equals the events of IBridgeMinter", () => {
  const compiled = eventSignatures(interfaceAbi("bridge", "interfaces/IBridgeMinter.sol", "IBridgeMinter"));
  assert.ok(compiled.length > 0);
  assert.deepEqual(eventSignatures(BridgeMinterAbi), compiled);
});
