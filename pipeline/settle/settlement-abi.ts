// Contract ABIs and bytecode, read from the Hardhat artifacts (full build first, then the exchange area).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Abi, Hex } from "viem";

const ROOT = join(__dirname, "..", "..");
const BUILDS = ["artifacts", "artifacts-exchange"];
const cache = new Map<string, { abi: Abi; bytecode: Hex }>();

/** `source` is the path under contracts/, e.g. "exchange/Settlement.sol"; `name` the contract. */
export function loadArtifact(source: string, name: string): { abi: Abi; bytecode: Hex } {
  const k = `${source}:${name}`;
  const hit = cache.get(k);
  if (hit) return hit;
  for (const b of BUILDS) {
    const p = join(ROOT, b, "contracts", source, `${name}.json`);
    if (existsSync(p)) {
      const j = JSON.parse(readFileSync(p, "utf8"));
      const a = { abi: j.abi as Abi, bytecode: j.bytecode as Hex };
      cache.set(k, a);
      return a;
    }
  }
  throw new Error(`artifact ${source}:${name} not found: run \`npx hardhat compile\``);
}

export function settlementAbi(): Abi {
  return loadArtifact("exchange/Settlement.sol", "Settlement").abi;
}
