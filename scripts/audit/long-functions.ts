// Lists the functions (declarations, methods, arrow functions and function expressions) of the hand-written,
// non-test TypeScript that span more than LIMIT lines, longest first, with a reason when the line before the
// function carries `// long: <reason>`. `npx tsx scripts/audit/long-functions.ts [--limit 80] [--json]`.
import { Node, Project, SyntaxKind } from "ts-morph";

const LIMIT = Number(process.argv[process.argv.indexOf("--limit") + 1]) || 80;
const SKIP = [
  /\.test\.ts$/,
  /\.bench\.ts$/,
  // test code: the `test/` tree and the `testing/` folders of test doubles beside each service
  /^test\//,
  /(^|\/)testing\//,
  /(^|\/)node_modules\//,
  /(^|\/)generated\//,
  /^sdk\/openapi\//,
  /^sdk\/abi\//,
  /\.d\.ts$/,
];

const project = new Project({ skipAddingFilesFromTsConfig: true });
project.addSourceFilesAtPaths([
  "**/*.ts",
  "!node_modules/**",
  "!**/node_modules/**",
  "!artifacts/**",
  "!typechain-types/**",
  "!.data/**",
]);
const root = `${process.cwd()}/`;
const rows: { file: string; line: number; name: string; lines: number; reason?: string }[] = [];
const kinds = [
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.ArrowFunction,
  SyntaxKind.FunctionExpression,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
];
for (const sf of project.getSourceFiles()) {
  const file = sf.getFilePath().replace(root, "");
  if (SKIP.some((re) => re.test(file))) continue;
  const text = sf.getFullText().split("\n");
  for (const kind of kinds) {
    for (const fn of sf.getDescendantsOfKind(kind)) {
      const lines = fn.getEndLineNumber() - fn.getStartLineNumber() + 1;
      if (lines <= LIMIT) continue;
      const line = fn.getStartLineNumber();
      const named = Node.hasName(fn)
        ? fn.getName()
        : (fn.getParentIfKind(SyntaxKind.VariableDeclaration)?.getName() ?? fn.getParent()?.getKindName() ?? "?");
      const before = text.slice(Math.max(0, line - 4), line).join("\n");
      const reason = /\/\/ long: (.+)/.exec(before)?.[1];
      rows.push({ file, line, name: String(named), lines, reason });
    }
  }
}
rows.sort((a, b) => b.lines - a.lines);
if (process.argv.includes("--json")) console.log(JSON.stringify(rows, null, 2));
else {
  for (const r of rows)
    console.log(
      `${String(r.lines).padStart(5)}  ${r.file}:${r.line}  ${r.name}${r.reason ? `  (long: ${r.reason})` : ""}`,
    );
  console.log(
    `${rows.length} functions over ${LIMIT} lines (${rows.filter((r) => !r.reason).length} without a reason)`,
  );
}
