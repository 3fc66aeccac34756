// The white-labelled tenant portal in headless Chromium (playwright-core + Debian's /usr/bin/chromium):
// two hostnames mapped to the same bridge API show two different brandings, load their own chains through
// GET /api/tenant, and an unknown hostname gets the 404 page. Screenshots go to $BRIDGE_PORTAL_SHOTS (or
// the temp dir).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { chromium, type Browser } from "playwright-core";
import { createDb, type Db } from "../../db";
import { custodyTenant, nativeTenant } from "../../api/bridge/seed";
import { startBridgeApi, type RunningBridgeApi } from "../../api/bridge/server";
import { createTenantStore } from "../../api/bridge/tenants";
import { BRIDGE_ABIS } from "../../sdk/bridge-abi";
import { createRelayerStore } from "../../relayer/store";

const CHROMIUM = "/usr/bin/chromium";
const shots = process.env.BRIDGE_PORTAL_SHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), "bridge-portal-"));
let db: Db;
let api: RunningBridgeApi;
let browser: Browser | undefined;
const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as `0x${string}`;

before(async () => {
  db = await createDb();
  const info = (bridge: string, base: number, keyEpoch: number) => ({
    bridge,
    home: { chainId: 31337, vault: addr(base + 1) },
    remote: { chainId: 31338, minter: addr(base + 2) },
    tokens: [{ symbol: "USD", home: addr(base + 3), wrapped: addr(base + 4), decimals: 6 }],
    keyEpoch,
  });
  await createTenantStore(db).seed([nativeTenant(info("native", 0xa00, 1), ["tenant-a.test"]), custodyTenant(info("custody", 0xb00, 2), ["tenant-b.test"])]);
  api = await startBridgeApi({ port: 0, db, logger: pino({ level: "silent" }), abis: BRIDGE_ABIS, bridges: {}, relayedTransfers: createRelayerStore(db) });
  if (fs.existsSync(CHROMIUM))
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--host-resolver-rules=MAP tenant-a.test 127.0.0.1, MAP tenant-b.test 127.0.0.1, MAP nobody.test 127.0.0.1"],
    });
});

after(async () => {
  await browser?.close();
  await api?.stop();
  await db?.close();
});

describe("tenant portal", () => {
  test("two hostnames, two brandings, each with its own chains from the API; unknown hostname 404", { skip: !fs.existsSync(CHROMIUM) && "no /usr/bin/chromium" }, async () => {
    const page = await browser!.newPage({ viewport: { width: 1100, height: 760 } });
    const seen: Record<string, { name: string; header: string; vault: string; mode: string }> = {};
    for (const host of ["tenant-a.test", "tenant-b.test"]) {
      const res = await page.goto(`http://${host}:${api.port}/`);
      assert.equal(res?.status(), 200);
      await page.waitForFunction('document.querySelector("#chains")?.textContent?.includes("vault")');
      seen[host] = {
        name: (await page.textContent("#tenant-name"))!,
        header: await page.$eval("header", (el) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor),
        vault: (await page.textContent("#chains"))!,
        mode: (await page.textContent("#mode"))!,
      };
      await page.screenshot({ path: path.join(shots, `${host}.png`) });
    }
    assert.equal(seen["tenant-a.test"].name, "Aurora Bridge");
    assert.equal(seen["tenant-b.test"].name, "Harbor Custody Bridge");
    assert.equal(seen["tenant-a.test"].header, "rgb(29, 63, 184)");
    assert.equal(seen["tenant-b.test"].header, "rgb(15, 81, 50)");
    assert.match(seen["tenant-a.test"].mode, /native/);
    assert.match(seen["tenant-b.test"].mode, /custody/);
    assert.ok(seen["tenant-a.test"].vault.toLowerCase().includes(addr(0xa01)), "tenant A lists its own vault");
    assert.ok(!seen["tenant-a.test"].vault.toLowerCase().includes(addr(0xb01)), "and not tenant B's");
    assert.ok(seen["tenant-b.test"].vault.toLowerCase().includes(addr(0xb01)));

    // the status view calls the API: an unknown transfer id shows the API's error code
    await page.goto(`http://tenant-a.test:${api.port}/`);
    await page.fill("#status-form [name=id]", "7f0e5b1c-3f6a-4d1e-9c2b-0a1b2c3d4e5f");
    await page.click("#status-form button");
    await page.waitForFunction('document.querySelector("#status")?.textContent?.includes("TRANSFER_NOT_FOUND")');

    const unknown = await page.goto(`http://nobody.test:${api.port}/`);
    assert.equal(unknown?.status(), 404);
    assert.match((await page.textContent("h1"))!, /No bridge here/);
    await page.close();
  });
});
