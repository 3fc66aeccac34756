// The SDK's generated files (sdk/openapi/dex-api.ts and exchange-api.ts from the DEX and exchange APIs' OpenAPI documents, sdk/grpc-descriptor.ts
// from proto/trading.proto) are committed: regenerated here in memory they must equal the committed files, so
// a changed route, zod schema or proto field cannot leave the SDK's types stale. Fix: `npm run gen:sdk`.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../config";
import { dexOpenApiDocument, renderSdkFiles } from "./gen-sdk";

test("the SDK's generated files equal what `npm run gen:sdk` writes now", async () => {
  const files = await renderSdkFiles();
  assert.deepEqual([...files.keys()].sort(), [
    "sdk/grpc-descriptor.ts",
    "sdk/openapi/dex-api.ts",
    "sdk/openapi/exchange-api.ts",
  ]);
  for (const [rel, text] of files)
    assert.ok(fs.readFileSync(path.join(REPO_ROOT, rel), "utf8") === text, `${rel} is stale: run npm run gen:sdk`);
});

test("the document the types are generated from is the one the API serves (every route, the same operation ids)", () => {
  const doc = dexOpenApiDocument() as { paths: Record<string, Record<string, { operationId: string }>> };
  const types = fs.readFileSync(path.join(REPO_ROOT, "sdk", "openapi", "dex-api.ts"), "utf8");
  const ops = Object.entries(doc.paths).flatMap(([p, methods]) =>
    Object.entries(methods).map(([m, op]) => ({ p, m, id: op.operationId })),
  );
  assert.ok(ops.length >= 15, String(ops.length));
  for (const { p, id } of ops) {
    assert.ok(types.includes(`"${p}": {`), p);
    assert.ok(types.includes(`    ${id}: {`), id);
  }
});
