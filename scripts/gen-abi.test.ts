// The ABIs in sdk/abi/ are generated from the compiled contracts and committed: regenerated here in memory
// from the artifacts (`npm test` compiles first), they must equal the committed files, and the folder holds
// nothing else. A drift would make a service encode, decode or index against a stale contract interface.
// Fix: `npx hardhat compile && npm run gen:abi`.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../config";
import { GENERATED_ABI_CONTRACTS, artifactCandidates } from "./artifacts";
import { ABI_DIR, renderAbiFiles } from "./gen-abi";

/** A run of this file alone on a fresh clone: compile the whole tree first. */
function ensureArtifacts() {
  if (GENERATED_ABI_CONTRACTS.every((name) => artifactCandidates(name).some((f) => fs.existsSync(f)))) return;
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.HARDHAT_AREA;
  execFileSync(
    process.execPath,
    [path.join(REPO_ROOT, "node_modules", "hardhat", "internal", "cli", "cli.js"), "compile", "--quiet"],
    {
      cwd: REPO_ROOT,
      env,
      stdio: "pipe",
    },
  );
}

test("sdk/abi/ equals the ABIs generated from the compiled contracts", () => {
  ensureArtifacts();
  const expected = renderAbiFiles();
  const committed = fs.readdirSync(ABI_DIR).sort();
  assert.deepEqual(
    committed,
    [...expected.keys()].sort(),
    "sdk/abi/ holds other files than the generated ones: run `npm run gen:abi`",
  );
  for (const [name, text] of expected) {
    const actual = fs.readFileSync(path.join(ABI_DIR, name), "utf8");
    assert.ok(
      actual === text,
      `sdk/abi/${name} differs from the compiled contract: run \`npx hardhat compile && npm run gen:abi\``,
    );
  }
});

test("a contract whose interface changed no longer matches its committed ABI", () => {
  ensureArtifacts();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gen-abi-"));
  try {
    for (const name of GENERATED_ABI_CONTRACTS) {
      const from = artifactCandidates(name).find((f) => fs.existsSync(f))!;
      const artifact = JSON.parse(fs.readFileSync(from, "utf8"));
      // Settlement loses its first event, as if an event were removed from the contract
      if (name === "Settlement")
        artifact.abi.splice(
          artifact.abi.findIndex((i: { type: string }) => i.type === "event"),
          1,
        );
      const to = artifactCandidates(name, dir)[0]!;
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.writeFileSync(to, JSON.stringify(artifact));
    }
    const changed = [...renderAbiFiles(dir)]
      .filter(([name, text]) => fs.readFileSync(path.join(ABI_DIR, name), "utf8") !== text)
      .map(([name]) => name);
    assert.deepEqual(changed, ["Settlement.ts"]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
