import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

// The chain nodes run with their own plain-JS config (fast start); any setting the project adds to the
// root config's Hardhat network must be mirrored there, or npm start's chains would differ from the
// chain the contract tests run on. (The root config cannot be imported outside Hardhat, so its
// `hardhat: { ... }` network entry is read as text.)
test("the node config mirrors every setting of the root config's hardhat network", () => {
  const source = fs.readFileSync(path.join(__dirname, "..", "..", "hardhat.config.ts"), "utf8");
  const entry = /\n\s*hardhat:\s*\{([^}]*)\}/.exec(source);
  assert.ok(entry, "hardhat.config.ts has a networks.hardhat entry");
  const rootKeys = [...entry[1].matchAll(/(\w+)\s*:/g)].map((m) => m[1]);
  assert.ok(rootKeys.includes("chainId"));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const node = require("./hardhat-node.config.js") as { networks: { hardhat: Record<string, unknown> } };
  for (const key of rootKeys) {
    assert.ok(
      key in node.networks.hardhat,
      `setting "${key}" of the root hardhat network is missing from hardhat-node.config.js`,
    );
  }
  assert.equal(typeof node.networks.hardhat.chainId, "number");
});
