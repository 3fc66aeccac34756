// npm run bench:web: for every web app with a book (the DEX trading app and the exchange app), its page weight
// (bytes of the built apps, raw and gzip, per file; and what a cold load of each app took over the wire, as the
// web server compresses it) and its time to the first live book on a cold load (a fresh browser context: no
// cache), local, headless Debian chromium, on a stack with the pipeline, the DEX API, the identity provider, the
// exchange API and the web server; a resting buy order on each app's market makes its book non-empty. Prints the
// median and max of BENCH_WEB_LOADS loads per app (default 7) and the load average. (The bridge portal has no
// book: bench:bridge measures it.)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { type Browser, chromium } from "playwright-core";
import { buildWebApp } from "../../web/build";
import { createTestConfig, defaultComponents, startStack } from "../../scripts/stack";
import type { Hex } from "viem";
import type { MarketsResponse } from "../../sdk";
import { postLimit, refusals } from "../../test/support/web-browser";

const LOADS = Number(process.env.BENCH_WEB_LOADS ?? 7);

function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** A resting buy of `key`'s on `symbol` (the book a cold load shows). */
async function restingOrder(rest: string, key: Hex, symbol: string, price: string, size: string): Promise<void> {
  const info = (await (await fetch(`${rest}/v1/markets`)).json()) as MarketsResponse;
  if (!(await postLimit(rest, info, key, symbol, "buy", price, size)))
    throw new Error(`resting order: ${refusals.last}`);
}

/** What the first cold load took over the wire (compressed as served) against the bodies' own size. */
async function printWire(app: string, responses: import("playwright-core").Response[]): Promise<void> {
  let wire = 0;
  let body = 0;
  let compressed = 0;
  for (const r of responses) {
    const sizes = await r
      .request()
      .sizes()
      .catch(() => null);
    const b = await r.body().catch(() => null);
    if (!sizes || !b) continue;
    wire += sizes.responseBodySize;
    body += b.length;
    if (r.headers()["content-encoding"]) compressed++;
  }
  console.log(
    `${app}: page weight with compression (first cold load, ${responses.length} responses, ${compressed} compressed): ${(wire / 1024).toFixed(1)} KiB over the wire for ${(body / 1024).toFixed(1)} KiB of bodies`,
  );
}

/** Bytes of every file of the build, raw and gzip. */
async function printBuild(): Promise<void> {
  const build = await buildWebApp();
  let raw = 0;
  let gz = 0;
  const rows: string[] = [];
  for (const f of files(build.dir).sort()) {
    const bytes = fs.readFileSync(f);
    const g = zlib.gzipSync(bytes, { level: 9 }).length;
    raw += bytes.length;
    gz += g;
    rows.push(
      `  ${path.relative(build.dir, f).padEnd(36)} ${String(bytes.length).padStart(9)} B  gzip ${String(g).padStart(8)} B`,
    );
  }
  console.log(`web app build ${build.hash} (${build.built ? `built in ${build.ms} ms` : "cached"})`);
  console.log(rows.join("\n"));
  console.log(
    `page weight: ${(raw / 1024).toFixed(1)} KiB raw, ${(gz / 1024).toFixed(1)} KiB gzip (every file of the build)`,
  );
}

interface AppUnderTest {
  name: string;
  url: string;
  /** the book row of the resting order */
  selector: string;
}

/** Cold loads of one app until its book shows the resting order: the first load's wire weight, then the times. */
async function measure(browser: Browser, app: AppUnderTest): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await ctx.newPage();
    const responses: import("playwright-core").Response[] = [];
    page.on("response", (r) => void responses.push(r));
    await page.goto(app.url);
    await page.waitForSelector(app.selector, { timeout: 60_000 });
    times.push(await page.evaluate(() => performance.now()));
    if (i === 0) await printWire(app.name, responses);
    await ctx.close();
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(
    `${app.name}: time to first live book (cold load, local, headless chromium, ${LOADS} loads): median ${median.toFixed(0)} ms, min ${times[0].toFixed(0)} ms, max ${times[times.length - 1].toFixed(0)} ms`,
  );
}

async function main() {
  await printBuild();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-web-"));
  const { config } = await createTestConfig(dataDir);
  const stack = await startStack({
    config,
    components: defaultComponents(["iam", "pipeline", "dex-api", "exchange-api", "web"]),
    onComponentError: "fail",
  });
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox"],
  });
  try {
    const rest = config.urls.dexRest.replace(/\/v1$/, "");
    const key = config.keys.demoTraders[0].privateKey;
    await restingOrder(rest, key, "WETH-USD", "1500", "0.1");
    await restingOrder(rest, key, "AAPL-USD", "150", "1");
    const urls = stack.components.find((c) => c.name === "web")!.handle!.urls!;
    await measure(browser, {
      name: "DEX trading app",
      url: `${urls["trading app"]}#/market/WETH-USD`,
      selector: '#book tbody.bids tr[data-price="1500"]',
    });
    await measure(browser, {
      name: "exchange app",
      url: `${urls["exchange app"]}#/asset/AAPL`,
      selector: '#book tbody.bids tr[data-price="150"]',
    });
    const load = os.loadavg().map((l) => l.toFixed(2));
    console.log(`load average: ${load.join(" ")} (${os.cpus().length} CPUs)`);
  } finally {
    await browser.close();
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
