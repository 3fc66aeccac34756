// The comparison with the naive engine must fail where it should: a copy of matcher/core whose
// validatePlace is deliberately wrong (accepts an order spec 3.2 refuses) is run against the naive engine
// over the same random command streams as properties.test.ts. The naive engine checks orders itself, so
// each broken validation shows up as a difference; a naive engine that borrowed the core's validatePlace
// (as it once did) would share the bug and see nothing, which the last test shows.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import type { Command, MarketConfig } from "../core/types";
import type { EngineUnderTest } from "./differential";
import { MARKETS, commandStream } from "./arbitraries";

const CORE = path.join(__dirname, "..", "core");
const RUNS = 100;
const SEED = 12;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "naive-engine-test-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Tree {
  MatchingEngine: new (o: { markets: MarketConfig[] }) => EngineUnderTest;
  assertSameAsNaive(engine: EngineUnderTest, markets: MarketConfig[], cmds: Command[]): void;
}

let trees = 0;
/** A copy of matcher/core, the naive engine and the comparison, with the core's validatePlace wrapped:
 *  `broken` is the body of a function of (cmd, market, nowTs, r), r being the correct answer.
 *  `borrow`: the naive engine's copy calls the (broken) core validatePlace instead of its own. */
async function treeWith(broken: string, borrow = false): Promise<Tree> {
  const dir = path.join(tmp, `tree${++trees}`);
  fs.mkdirSync(path.join(dir, "core"), { recursive: true });
  fs.mkdirSync(path.join(dir, "testing"));
  for (const f of fs.readdirSync(CORE))
    if (f.endsWith(".ts") && !f.endsWith(".test.ts")) fs.copyFileSync(path.join(CORE, f), path.join(dir, "core", f));
  const validate = fs.readFileSync(path.join(CORE, "validate.ts"), "utf8");
  assert.match(validate, /export function validatePlace\(/);
  fs.writeFileSync(
    path.join(dir, "core", "validate.ts"),
    `${validate.replace("export function validatePlace(", "function correctValidatePlace(")}
export function validatePlace(cmd: any, market: any, nowTs: number): any {
  const r = correctValidatePlace(cmd, market, nowTs);
  ${broken}
}
`,
  );
  let naive = fs.readFileSync(path.join(__dirname, "naive-engine.ts"), "utf8");
  if (borrow) {
    assert.match(naive, /naiveValidatePlace\(cmd, m, this\.ts\)/);
    naive = `import { validatePlace as coreValidatePlace } from "../core/validate";\n${naive.replace("naiveValidatePlace(cmd, m, this.ts)", "coreValidatePlace(cmd, m, this.ts)")}`;
  }
  fs.writeFileSync(path.join(dir, "testing", "naive-engine.ts"), naive);
  for (const f of ["differential.ts", "spec-table.ts"])
    fs.copyFileSync(path.join(__dirname, f), path.join(dir, "testing", f));
  const load = (f: string) => import(pathToFileURL(path.join(dir, f)).href);
  return {
    MatchingEngine: (await load("core/engine.ts")).MatchingEngine,
    assertSameAsNaive: (await load("testing/differential.ts")).assertSameAsNaive,
  };
}

function compare(t: Tree): void {
  fc.assert(
    fc.property(commandStream(70), (cmds) =>
      t.assertSameAsNaive(new t.MatchingEngine({ markets: MARKETS }), MARKETS, cmds),
    ),
    { numRuns: RUNS, seed: SEED },
  );
}

/** Bugs a validation could have; each accepts orders spec 3.2 refuses (and the generator makes). */
const BROKEN: Record<string, string> = {
  "accepts sizes above the market's maximum": `return r !== null && r.reason.startsWith("sizeLots above the maximum") ? null : r;`,
  "lets a market order be GTC": `return r !== null && cmd.type === "market" && cmd.timeInForce === "GTC" ? correctValidatePlace({ ...cmd, timeInForce: "IOC" }, market, nowTs) : r;`,
  "lets an order that cannot rest be hidden": `return r !== null && r.reason === "only orders that can rest may be hidden" ? null : r;`,
};

test("the copied core with its own validation agrees with the naive engine (the harness itself is sound)", async () => {
  compare(await treeWith("return r;"));
});

for (const [bug, body] of Object.entries(BROKEN)) {
  test(`a core validatePlace that ${bug} is caught by the comparison`, async () => {
    const t = await treeWith(body);
    // fast-check's error carries the comparison's AssertionError (naming the first differing command)
    assert.throws(
      () => compare(t),
      (e: Error) => e.cause instanceof assert.AssertionError && /^command #\d+/.test(e.cause.message),
    );
  });
}

test("a naive engine borrowing the core's validatePlace would share the bug and see nothing", async () => {
  compare(await treeWith(BROKEN["accepts sizes above the market's maximum"], true));
});

test("the naive engine imports nothing from the core but its types", () => {
  const src = fs.readFileSync(path.join(__dirname, "naive-engine.ts"), "utf8");
  const fromCore = [...src.matchAll(/^import (type )?[^;]*from "\.\.\/core\/([^"]+)"/gm)];
  assert.ok(fromCore.length > 0);
  for (const m of fromCore) assert.deepEqual([m[1], m[2]], ["type ", "types"], m[0]);
});
