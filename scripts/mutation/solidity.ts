// A small mutation tester for the Solidity sources (issue 11, "tests that hold every limit").
//
// It copies the repository's sources into a temporary directory (node_modules linked, never a file of the
// checkout touched), then, one mutant at a time: writes a one-line change into the copy, compiles the mutant's
// area (HARDHAT_AREA=exchange|bridge, solc-js, no typechain) and runs that area's Hardhat tests with --bail.
// A failing test (or a time-out) kills the mutant; a mutant that does not compile is not counted.
//
//   npm run test:mutation:sol -- [--sample N] [--seed S] [--files a.sol,b.sol] [--area exchange|bridge]
//                                [--timeout SEC] [--list] [--all] [--json FILE]
//
//   --sample N   test N mutants per area, drawn with the seed (default 20 per area: about 25 min on 2 cores;
//                one mutant takes some 30 s: 20 s of solc-js compile, then the area's tests with --bail)
//   --ids 3,17   test these mutants only (ids as printed by --list; they depend on the files selected)
//   --all        test every mutant of the selected files (long: some 150 per area)
//   --files      only these files (paths under contracts/, or base names), instead of the critical set
//   --list       print the mutants and exit
//
// Mutations: comparison flips (< <=, > >=, == !=), && <-> ||, + 1 <-> - 1, and dropping a `revert`, a
// `require(...)` or a one-line `if (...) revert ...;` statement. Lines inside assembly blocks are not mutated.
// Equivalent mutants (no test can tell them apart from the original) are listed in EQUIVALENT with the reason.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

export type Area = "exchange" | "bridge";

export interface Mutant {
  id: number;
  area: Area;
  /** path under the repository root, e.g. contracts/exchange/Settlement.sol */
  file: string;
  /** 1-based line of the first changed line */
  line: number;
  /** short description, e.g. "`<` -> `<=`" or "drop `if (...) revert ...`" */
  mutation: string;
  /** the file's text with the mutation applied */
  text: string;
}

export type Outcome = "killed" | "survived" | "timeout" | "invalid" | "equivalent";

/** The critical files mutated by default (the settle path, custody rules, the bridge's limits and checks). */
export const CRITICAL_FILES = [
  "contracts/exchange/Settlement.sol",
  "contracts/exchange/libraries/BatchSettlement.sol",
  "contracts/exchange/libraries/FillMath.sol",
  "contracts/exchange/libraries/NonceBitmap.sol",
  "contracts/exchange/libraries/PackedBatch.sol",
  "contracts/exchange/libraries/SignatureValidation.sol",
  "contracts/bridge/BridgeVault.sol",
  "contracts/bridge/BridgeMinter.sol",
  "contracts/bridge/libraries/BridgeTokenBucket.sol",
  "contracts/bridge/libraries/BridgeSignatureCheck.sol",
  "contracts/bridge/libraries/BridgeReleaseRecord.sol",
];

/** Mutants that behave exactly like the original: excluded from the score, each with its reason. Matched by
 *  file, the trimmed original line and the mutation. */
export const EQUIVALENT: { file: string; line: string; mutation: string; why: string }[] = [
  {
    file: "contracts/exchange/libraries/BatchSettlement.sol",
    line: "if (word < NonceBitmap.MARK) word = _checkFloor(ctx, trader, nonce, wordIndex, word);",
    mutation: "`<` -> `<=`",
    why: "a word equal to MARK carries it: the floor read then finds the word named and wholly at or above the minimum (NonceBitmap's invariant), so it neither refuses nor moves the mark; gas only",
  },
  {
    file: "contracts/exchange/libraries/BatchSettlement.sol",
    line: "if (wordIndex <= marked) return word;",
    mutation: "`<=` -> `<`",
    why: "at wordIndex == marked the word is the one the floor names and wholly at or above the minimum, so marking it (all the mutant adds, when it lacks MARK: before a first deposit, or a word 0 a cancel wrote first) keeps the mark's invariant; the floor slot keeps its value; only later gas differs",
  },
  {
    file: "contracts/exchange/libraries/BatchSettlement.sol",
    line: "if (i < n) CommonPath.credit(_addressOf(states), i + 1);",
    mutation: "`<` -> `<=`",
    why: "at i == n the credit from n + 1 runs no iteration",
  },
  {
    file: "contracts/exchange/libraries/BatchSettlement.sol",
    line: "if (quoteAmount == 0) revert ISettlement.SettlementFillAmountZero(k);",
    mutation: "drop `if (...) revert ...`",
    why: "a zero quote amount is also below MIN_FILL_UNITS: the next line reverts (SettlementFillTooSmall) instead; kept for its clearer error",
  },
  {
    file: "contracts/exchange/Settlement.sol",
    line: "uint256 received = balanceAfter > balanceBefore ? balanceAfter - balanceBefore : 0;",
    mutation: "`>` -> `>=`",
    why: "when the balances are equal both branches give 0",
  },
  {
    file: "contracts/exchange/libraries/BatchSettlement.sol",
    line: "for (uint256 i; i < count; ++i) {",
    mutation: "`<` -> `<=`",
    why: "_addFee: slot `count` is still empty (never equal to a fee token); at count == length the original panics on the write just after",
  },
  {
    file: "contracts/bridge/libraries/BridgeTokenBucket.sol",
    line: "if (levelWei >= capacityWei) return capacityWei;",
    mutation: "`>=` -> `>`",
    why: "at level == capacity the refill branch adds a refill and caps it at the capacity: the same value",
  },
  {
    file: "contracts/bridge/libraries/BridgeTokenBucket.sol",
    line: "if (levelWei > capacityWei) levelWei = capacityWei;",
    mutation: "`>` -> `>=`",
    why: "a cap at equality assigns the value the variable already holds",
  },
];

const ROOT = join(__dirname, "..", "..");

// ---------------------------------------------------------------- mutant generation (pure)

const COMPARISONS: [RegExp, string, string][] = [
  // the look-arounds keep shifts (<<, >>), arrows (=>) and assignments out
  [/(?<![<>=!])<=(?!=)/g, "<", "`<=` -> `<`"],
  [/(?<![<>=!])>=(?!=)/g, ">", "`>=` -> `>`"],
  [/(?<![<>=!-])<(?![<=])/g, "<=", "`<` -> `<=`"],
  [/(?<![<>=!-])>(?![>=])/g, ">=", "`>` -> `>=`"],
  [/==/g, "!=", "`==` -> `!=`"],
  [/!=/g, "==", "`!=` -> `==`"],
  [/&&/g, "||", "`&&` -> `||`"],
  [/\|\|/g, "&&", "`||` -> `&&`"],
  [/ \+ 1\b/g, " - 1", "`+ 1` -> `- 1`"],
  [/ - 1\b/g, " + 1", "`- 1` -> `+ 1`"],
];

/** The code part of a line (no `//` comment), or "" for a comment or declaration line that is not code. */
function codeOf(line: string): string {
  const t = line.trim();
  if (t.startsWith("//") || t.startsWith("*") || t.startsWith("/*")) return "";
  if (
    /^(pragma|import|error|event|function|modifier|constructor|contract|library|interface|struct|using|mapping)\b/.test(
      t,
    )
  )
    return "";
  if (/^(bytes32|uint\d*|address|bool|int\d*)\s+(public|private|internal|constant|immutable)/.test(t)) return "";
  const i = line.indexOf("//");
  return i >= 0 ? line.slice(0, i) : line;
}

/** Every mutant of one file's text. */
export function mutantsOf(file: string, area: Area, source: string, firstId = 0): Mutant[] {
  const lines = source.split("\n");
  const out: Mutant[] = [];
  let id = firstId;
  let asmDepth = 0;
  const push = (line: number, mutation: string, newLines: string[]) => {
    out.push({ id: id++, area, file, line: line + 1, mutation, text: newLines.join("\n") });
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // skip assembly blocks (Yul has no such operators, and its braces would confuse the statement finder)
    if (asmDepth > 0 || /\bassembly\b/.test(line)) {
      for (const ch of codeOf(line)) asmDepth += ch === "{" ? 1 : ch === "}" ? -1 : 0;
      if (asmDepth < 0) asmDepth = 0;
      continue;
    }
    const code = codeOf(line);
    if (code.trim() === "") continue;
    for (const [re, to, name] of COMPARISONS) {
      for (const m of code.matchAll(re)) {
        const at = m.index!;
        const mutated = line.slice(0, at) + line.slice(at).replace(m[0], to);
        if (mutated === line) continue;
        const copy = [...lines];
        copy[i] = mutated;
        push(i, name, copy);
      }
    }
    const t = code.trim();
    // statements to drop: `revert ...;`, `require(...);`, `if (...) revert ...;` (possibly over several lines)
    const drop = /^if\s*\(.*\)\s*revert\b/.test(t)
      ? "drop `if (...) revert ...`"
      : /^revert\b/.test(t)
        ? "drop `revert ...`"
        : /^require\s*\(/.test(t)
          ? "drop `require(...)`"
          : null;
    if (drop) {
      let end = i;
      while (end < lines.length - 1 && !codeOf(lines[end]!).trimEnd().endsWith(";")) end++;
      const copy = [...lines];
      for (let k = i; k <= end; k++) copy[k] = "";
      push(i, drop, copy);
    }
  }
  return out;
}

export function areaOf(file: string): Area {
  return file.includes("/bridge/") ? "bridge" : "exchange";
}

export function isEquivalent(m: Mutant, original: string): string | null {
  const line = original.split("\n")[m.line - 1]!.trim();
  const e = EQUIVALENT.find((x) => x.file === m.file && x.line === line && x.mutation === m.mutation);
  return e ? e.why : null;
}

/** Deterministic shuffle (mulberry32), so a seed names a sample. */
export function shuffled<T>(items: T[], seed: number): T[] {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

// ---------------------------------------------------------------- running

interface Options {
  sample: number | null;
  ids: number[] | null;
  seed: number;
  files: string[];
  areas: Area[];
  timeoutSec: number;
  list: boolean;
  json: string | null;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    sample: 20,
    ids: null,
    seed: 1,
    files: CRITICAL_FILES,
    areas: ["exchange", "bridge"],
    timeoutSec: 300,
    list: false,
    json: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--sample") o.sample = Number(next());
    else if (a === "--all") o.sample = null;
    else if (a === "--ids") o.ids = next().split(",").map(Number);
    else if (a === "--seed") o.seed = Number(next());
    else if (a === "--timeout") o.timeoutSec = Number(next());
    else if (a === "--list") o.list = true;
    else if (a === "--json") o.json = next();
    else if (a === "--area") o.areas = [next() as Area];
    else if (a === "--files") {
      const wanted = next()
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      o.files = wanted.map((w) => {
        const hit = [...CRITICAL_FILES, ...wanted].find((f) => f === w || f === `contracts/${w}` || basename(f) === w);
        const path = hit && existsSync(join(ROOT, hit)) ? hit : existsSync(join(ROOT, w)) ? w : `contracts/${w}`;
        if (!existsSync(join(ROOT, path))) throw new Error(`no such file: ${w}`);
        return path;
      });
    } else throw new Error(`unknown option ${a}`);
  }
  if (o.sample !== null && !(o.sample > 0)) throw new Error("--sample needs a positive number");
  return o;
}

/** Copies what the contract tests need into a fresh directory; node_modules is a link. */
function makeSandbox(): string {
  const dir = mkdtempSync(join(tmpdir(), "sol-mutation-"));
  for (const entry of [
    "contracts",
    "test/contracts",
    "sdk",
    "pipeline",
    "scripts",
    "config",
    "signer-cluster",
    "relayer",
    "runtime",
    "hardhat.config.ts",
    "tsconfig.json",
    "package.json",
  ]) {
    const from = join(ROOT, entry);
    if (!existsSync(from)) continue;
    mkdirSync(join(dir, entry, ".."), { recursive: true });
    cpSync(from, join(dir, entry), {
      recursive: true,
      filter: (src) => !/[\\/](\.data|node_modules|\.git)([\\/]|$)/.test(src),
    });
  }
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}

const hardhatCli = join(ROOT, "node_modules", "hardhat", "internal", "cli", "cli.js");
/** the hardhat process running now (killed with its group on SIGINT / SIGTERM) */
let running: ReturnType<typeof spawn> | null = null;

/** Runs hardhat in the sandbox; resolves with the exit code, or "timeout" (the process group is killed). */
function hardhat(dir: string, area: Area, args: string[], timeoutSec: number): Promise<number | "timeout"> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [hardhatCli, ...args], {
      cwd: dir,
      env: { ...process.env, HARDHAT_AREA: area, TS_NODE_TRANSPILE_ONLY: "true" },
      stdio: ["ignore", "ignore", "ignore"],
      detached: true,
    });
    running = child;
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        /* already gone */
      }
      resolve("timeout");
    }, timeoutSec * 1000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    });
  });
}

async function runMutant(dir: string, m: Mutant, original: string, timeoutSec: number): Promise<Outcome> {
  const path = join(dir, m.file);
  writeFileSync(path, m.text);
  try {
    const compiled = await hardhat(dir, m.area, ["compile", "--quiet", "--no-typechain"], timeoutSec);
    if (compiled !== 0) return "invalid";
    const tested = await hardhat(dir, m.area, ["test", "--no-compile", "--bail"], timeoutSec);
    return tested === "timeout" ? "timeout" : tested === 0 ? "survived" : "killed";
  } finally {
    writeFileSync(path, original);
  }
}

type Result = { mutant: Omit<Mutant, "text">; outcome: Outcome; seconds: number; why?: string };

/** Per area: the mutants named by id, or all of them, or a seeded sample. */
function chooseMutants(o: Options, all: Mutant[]): Mutant[] {
  const chosen: Mutant[] = [];
  for (const area of o.areas) {
    const ofArea = all.filter((m) => m.area === area);
    if (o.ids) chosen.push(...ofArea.filter((m) => o.ids!.includes(m.id)));
    else if (o.sample === null) chosen.push(...ofArea);
    else
      chosen.push(
        ...shuffled(ofArea, o.seed)
          .slice(0, o.sample)
          .sort((a, b) => a.id - b.id),
      );
  }
  return chosen;
}

/** The score table and the survivors; true when an area scores below 90 %. */
function printScores(areas: Area[], results: Result[]): boolean {
  let failed = false;
  console.log("\narea       killed  survived  timeout  invalid  equivalent  score");
  for (const area of areas) {
    const r = results.filter((x) => x.mutant.area === area);
    const c = (k: Outcome) => r.filter((x) => x.outcome === k).length;
    const detected = c("killed") + c("timeout");
    const counted = detected + c("survived");
    const score = counted === 0 ? 100 : (100 * detected) / counted;
    if (score < 90) failed = true;
    console.log(
      `${area.padEnd(10)} ${String(c("killed")).padStart(6)}  ${String(c("survived")).padStart(8)}  ${String(c("timeout")).padStart(7)}  ${String(c("invalid")).padStart(7)}  ${String(c("equivalent")).padStart(10)}  ${score.toFixed(1)} %`,
    );
  }
  const survivors = results.filter((x) => x.outcome === "survived");
  if (survivors.length > 0) {
    console.log("\nsurviving mutants:");
    for (const s of survivors) console.log(`  #${s.mutant.id} ${s.mutant.file}:${s.mutant.line} ${s.mutant.mutation}`);
  }
  return failed;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const originals = new Map(o.files.map((f) => [f, readFileSync(join(ROOT, f), "utf8")]));
  const all: Mutant[] = [];
  for (const f of o.files)
    if (o.areas.includes(areaOf(f))) all.push(...mutantsOf(f, areaOf(f), originals.get(f)!, all.length));
  const chosen = chooseMutants(o, all);
  const countOf = (a: Area) => all.filter((m) => m.area === a).length;
  const how = o.ids ? "by id" : o.sample === null ? "all" : `sample ${o.sample} per area, seed ${o.seed}`;
  console.log(
    `solidity mutation: ${o.areas.map((a) => `${a} ${countOf(a)} mutants`).join(", ")}; testing ${chosen.length} (${how})`,
  );
  if (o.list) {
    for (const m of chosen) console.log(`  #${m.id} ${m.file}:${m.line} ${m.mutation}`);
    return;
  }
  const dir = makeSandbox();
  // an interrupted run leaves nothing behind: the sandbox goes, and the running hardhat's process group with it
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      if (running?.pid) {
        try {
          process.kill(-running.pid, "SIGKILL");
        } catch {
          /* already gone */
        }
      }
      rmSync(dir, { recursive: true, force: true });
      process.exit(130);
    });
  }
  const results: Result[] = [];
  try {
    // a first build of each area, so that every mutant recompiles only what it changes
    for (const area of o.areas) {
      const code = await hardhat(dir, area, ["compile", "--quiet", "--no-typechain"], 900);
      if (code !== 0) throw new Error(`the unmutated ${area} sources do not compile (${code})`);
      const baseline = await hardhat(dir, area, ["test", "--no-compile", "--bail"], 900);
      if (baseline !== 0) throw new Error(`the ${area} tests fail before any mutation (${baseline}): fix them first`);
    }
    for (const [n, m] of chosen.entries()) {
      const { text: _text, ...meta } = m;
      const why = isEquivalent(m, originals.get(m.file)!);
      const started = Date.now();
      const outcome: Outcome = why ? "equivalent" : await runMutant(dir, m, originals.get(m.file)!, o.timeoutSec);
      const seconds = Math.round((Date.now() - started) / 1000);
      results.push({ mutant: meta, outcome, seconds, ...(why ? { why } : {}) });
      console.log(
        `[${n + 1}/${chosen.length}] ${outcome.padEnd(10)} #${m.id} ${m.file}:${m.line} ${m.mutation} (${seconds} s)`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const failed = printScores(o.areas, results);
  if (o.json) writeFileSync(o.json, JSON.stringify({ seed: o.seed, sample: o.sample, results }, null, 2));
  process.exitCode = failed ? 1 : 0;
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 2;
  });
}
