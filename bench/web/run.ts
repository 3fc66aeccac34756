// npm run bench:web: the trading app's page weight (bytes of the built app, raw and gzip, per file; what a
// cold load takes over the wire, as the web server compresses it) and its
// time to the first live book on a cold load (a fresh browser context: no cache), local, headless Debian
// chromium, on a stack with the pipeline, the DEX API and the web server; a resting order makes the book
// non-empty. Prints the median and max of BENCH_WEB_LOADS loads (default 7) and the load average.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { chromium } from "playwright-core";
import { buildWebApp } from "../../web/build";
import { createTestConfig, defaultComponents, startStack } from "../../scripts/stack";
import { privateKeyToAccount } from "viem/accounts";
import { parseUnits, type Hex } from "viem";

const LOADS = Number(process.env.BENCH_WEB_LOADS ?? 7);

function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

async function restingOrder(rest: string, key: Hex): Promise<void> {
  const info: any = await (await fetch(`${rest}/v1/markets`)).json();
  const m = info.markets.find((x: { symbol: string }) => x.symbol === "WETH-USD");
  const wallet = privateKeyToAccount(key);
  const order = {
    trader: wallet.address,
    baseToken: m.signed_order.base_token,
    quoteToken: m.signed_order.quote_token,
    side: 0,
    price: parseUnits("1500", m.signed_order.price_exponent),
    amount: parseUnits("0.1", m.signed_order.amount_exponent),
    expiry: BigInt(Math.floor(Date.now() / 1000) + 3600),
    nonce: BigInt(Date.now()),
    flags: 0,
  };
  const signature = await wallet.signTypedData({
    domain: info.eip712.domain,
    types: info.eip712.types,
    primaryType: "Order",
    message: order,
  });
  const body = {
    symbol: "WETH-USD",
    side: "buy",
    type: "limit",
    price: "1500",
    size: "0.1",
    order: Object.fromEntries(
      Object.entries({
        trader: order.trader,
        base_token: order.baseToken,
        quote_token: order.quoteToken,
        side: 0,
        price: order.price.toString(),
        amount: order.amount.toString(),
        expiry: order.expiry.toString(),
        nonce: order.nonce.toString(),
        flags: 0,
      }),
    ),
    signature,
  };
  const r = await fetch(`${rest}/v1/orders`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (r.status !== 201) throw new Error(`resting order: ${r.status} ${await r.text()}`);
}

/** What the first cold load took over the wire (compressed as served) against the bodies' own size. */
async function printWire(responses: import("playwright-core").Response[]): Promise<void> {
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
    `page weight with compression (first cold load, ${responses.length} responses, ${compressed} compressed): ${(wire / 1024).toFixed(1)} KiB over the wire for ${(body / 1024).toFixed(1)} KiB of bodies`,
  );
}

async function main() {
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

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-web-"));
  const { config } = await createTestConfig(dataDir);
  const stack = await startStack({
    config,
    components: defaultComponents(["pipeline", "dex-api", "web"]),
    onComponentError: "fail",
  });
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox"],
  });
  try {
    await restingOrder(config.urls.dexRest.replace(/\/v1$/, ""), config.keys.demoTraders[0].privateKey);
    const url = stack.components.find((c) => c.name === "web")!.handle!.urls!["trading app"];
    const times: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
      const page = await ctx.newPage();
      const responses: import("playwright-core").Response[] = [];
      page.on("response", (r) => void responses.push(r));
      await page.goto(`${url}#/market/WETH-USD`);
      await page.waitForSelector('#book tbody.bids tr[data-price="1500"]', { timeout: 60_000 });
      times.push(await page.evaluate(() => performance.now()));
      if (i === 0) await printWire(responses);
      await ctx.close();
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    console.log(
      `time to first live book (cold load, local, headless chromium, ${LOADS} loads): median ${median.toFixed(0)} ms, min ${times[0].toFixed(0)} ms, max ${times[times.length - 1].toFixed(0)} ms`,
    );
    console.log(
      `load average: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} (${os.cpus().length} CPUs)`,
    );
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
