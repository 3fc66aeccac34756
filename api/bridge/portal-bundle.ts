// The portal's browser module: portal-app/main.ts with viem and mipd bundled by esbuild into one minified
// ES module, in memory, once per process (the first request waits for it, ~1 s; every later one is served
// from memory). No build step, no download: esbuild is an npm package (docs/decisions/bridge.md, "Portal").
import { createHash } from "node:crypto";
import path from "node:path";
import { build } from "esbuild";

export interface PortalBundle {
  code: string;
  etag: string;
  bytes: number;
}

export const PORTAL_APP_DIR = path.join(__dirname, "portal-app");
let cached: Promise<PortalBundle> | undefined;

export async function buildPortalBundle(): Promise<PortalBundle> {
  const out = await build({
    entryPoints: [path.join(PORTAL_APP_DIR, "main.ts")],
    tsconfig: path.join(PORTAL_APP_DIR, "tsconfig.json"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    write: false,
    logLevel: "silent",
  });
  const code = out.outputFiles[0].text;
  return {
    code,
    etag: `"${createHash("sha256").update(code).digest("base64url").slice(0, 22)}"`,
    bytes: Buffer.byteLength(code),
  };
}

/** The bundle, built on first use; a failed build is retried on the next call. */
export function portalBundle(): Promise<PortalBundle> {
  cached ??= buildPortalBundle().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}
