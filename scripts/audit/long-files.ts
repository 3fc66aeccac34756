// Lists the hand-written source files (tests and generated code left out, as long-functions.ts does) of more
// than LIMIT lines, longest first, with the reason a file gives in a `Long file: <reason>` comment among its
// first lines (after a licence header and pragma in Solidity). `npx tsx scripts/audit/long-files.ts [--limit 500]`.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const LIMIT = Number(process.argv[process.argv.indexOf("--limit") + 1]) || 500;
const SOURCE = /\.(ts|tsx|mjs|cjs|js|sol|css|html)$/;
const SKIP = [
  /\.test\.ts$/,
  /\.bench\.ts$/,
  /\.d\.ts$/,
  /^test\//,
  /(^|\/)testing\//,
  /(^|\/)generated\//,
  /^sdk\/(openapi|abi|grpc-descriptor)/,
  /^typechain/,
];
const files = execFileSync("git", ["ls-files"], { encoding: "utf8" })
  .split("\n")
  .filter((f) => SOURCE.test(f) && !SKIP.some((re) => re.test(f)));
const rows = files
  .map((file) => {
    const text = readFileSync(file, "utf8").split("\n");
    const reason = /Long file: (.+)/.exec(text.slice(0, 8).join("\n"))?.[1];
    return { file, lines: text.length - (text.at(-1) === "" ? 1 : 0), reason };
  })
  .filter((r) => r.lines > LIMIT)
  .sort((a, b) => b.lines - a.lines);
for (const r of rows)
  console.log(`${String(r.lines).padStart(5)}  ${r.file}${r.reason ? `  (Long file: ${r.reason})` : ""}`);
console.log(`${rows.length} files over ${LIMIT} lines (${rows.filter((r) => !r.reason).length} without a reason)`);
