// sdk/ is a publishable package: its package.json pins the root's exact versions of what it imports, the
// build (`tsc -p sdk/tsconfig.build.json`) writes dist/ with declarations, `npm pack --dry-run` ships the
// built files, the README and package.json only (no sources, no tests), and the built entry exports what
// sdk/index.ts exports, loadable by require and by import.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

const SDK = __dirname;
const ROOT = path.join(SDK, "..");
const pkg = JSON.parse(fs.readFileSync(path.join(SDK, "package.json"), "utf8"));
const rootPkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));

test("package.json: name, exports map and types; every dependency at the root's exact version; every import declared", () => {
  assert.equal(pkg.name, "@onchain-exchange/sdk");
  assert.deepEqual(pkg.exports["."], { types: "./dist/index.d.ts", default: "./dist/index.js" });
  assert.equal(pkg.types, "./dist/index.d.ts");
  for (const [name, version] of Object.entries(pkg.dependencies))
    assert.equal(
      version,
      rootPkg.dependencies[name],
      `${name}: ${version} here, ${rootPkg.dependencies[name]} at the root`,
    );
  // every npm package a shipped module imports is a dependency (a missing one breaks installs elsewhere)
  const imported = new Set<string>();
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && e.name !== "dist" && e.name !== "node_modules") walk(p);
      else if (e.name.endsWith(".ts") && !e.name.endsWith(".test.ts")) {
        const text = fs.readFileSync(p, "utf8");
        const specs = [
          ...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"/gm),
          ...text.matchAll(/import\("([^"]+)"\)/g),
        ].map((m) => m[1]!);
        for (const s of specs.filter((x) => !x.startsWith(".")))
          imported.add(s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : s.split("/")[0]!);
      }
    }
  };
  walk(SDK);
  for (const name of ["viem", "ws", "openapi-fetch", "@grpc/grpc-js", "@noble/hashes"])
    assert.ok(imported.has(name), `the scan missed ${name}`);
  // frost*.ts and settle-batch.ts are the services' shared files, not in the package's entry (@noble/curves)
  imported.delete("@noble/curves");
  for (const name of imported)
    assert.ok(pkg.dependencies[name], `${name} is imported but not a dependency of the package`);
});

test("the build writes dist/, npm pack ships exactly the built files, and the built entry exports sdk/index.ts's names", {
  timeout: 300_000,
}, async () => {
  fs.rmSync(path.join(SDK, "dist"), { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", path.join(SDK, "tsconfig.build.json")],
    { cwd: ROOT, stdio: "pipe" },
  );
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: SDK,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const files: string[] = JSON.parse(out)[0].files.map((f: { path: string }) => f.path);
  for (const f of [
    "package.json",
    "README.md",
    "dist/index.js",
    "dist/index.d.ts",
    "dist/rest.js",
    "dist/openapi/dex-api.d.ts",
    "dist/grpc-descriptor.js",
    "dist/book-feed.d.ts",
  ])
    assert.ok(files.includes(f), `${f} not packed: ${files.join(" ")}`);
  const unexpected = files.filter(
    (f) => !(f === "package.json" || f === "README.md" || /^dist\/.+\.(js|d\.ts)$/.test(f)),
  );
  assert.deepEqual(unexpected, []);
  assert.ok(!files.some((f) => f.includes(".test.")), "a test is packed");

  const source = await import("./index");
  const built = require(path.join(SDK, "dist", "index.js"));
  assert.deepEqual(Object.keys(built).sort(), Object.keys(source).sort());
  const esm = await import(path.join(SDK, "dist", "index.js"));
  assert.equal(typeof esm.createDexClient, "function");
});
