// The stack on external parts only (docs/operations.md "External chains and Postgres"): two plain Anvil nodes it does
// not own (HOME_/REMOTE_CHAIN_RPC_URL), a Postgres server (DATABASE_URL) and a shared deployments file
// (DEPLOYMENTS_FILE). It starts no chain node; it deploys to the external chain and writes the file; a
// pair of wallet-signed orders trades through the DEX API and settles on the external chain; the DEX API's
// rows and the indexer's tables are in that Postgres (read directly); a restart reuses the file and sends
// no deployer transaction. The components with SQL state run on that Postgres, each in its own schema.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { createPublicClient, http, type Address, type PrivateKeyAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { indexerSchemaName } from "../../scripts/stack/components";
import { createTestConfig, defaultComponents, startStack, type RunningStack } from "../../scripts/stack";
import type { PipelineHandle } from "../../scripts/stack/components/pipeline";
import { formatBanner } from "../../scripts/stack/banner";
import type { MarketSpec } from "../../pipeline/service";
import { api, createApiKey, walletHeaders } from "../../api/testing/client";
import { signedOrderPoster } from "../support/signed-orders";
import { startExternalAnvil, startPostgresServer } from "../support/external-parts";
import { loginExchange } from "./exchange-session";
import { settledTradesOf } from "../../sdk/settled-trades";

const pg = createRequire(__filename)("pg") as {
  Client: new (o: {
    connectionString: string;
  }) => {
    connect(): Promise<void>;
    query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
    end(): Promise<void>;
  };
};

async function poll<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The pids and command lines of this process's direct children (Linux /proc). */
function children(): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== process.pid) continue;
      out.push({ pid: Number(name), cmd: fs.readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ") });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

test("external chains + Postgres + a shared deployments file: no node started, trades settle there, rows in Postgres, a restart deploys nothing", {
  timeout: 420_000,
}, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "external-parts-e2e-"));
  const sharedDir = fs.mkdtempSync(path.join(os.tmpdir(), "external-parts-shared-"));
  const deploymentsFile = path.join(sharedDir, "deployments.json");
  const [postgres, home, remote] = await Promise.all([
    startPostgresServer(),
    startExternalAnvil({ chainId: 31337 }),
    startExternalAnvil({ chainId: 31338 }),
  ]);
  const sql = new pg.Client({ connectionString: postgres.url });
  let stack: RunningStack | undefined;
  try {
    await sql.connect();
    const { config } = await createTestConfig(dataDir, {
      HOME_CHAIN_RPC_URL: home.rpcUrl,
      REMOTE_CHAIN_RPC_URL: remote.rpcUrl,
      DATABASE_URL: postgres.url,
      DEPLOYMENTS_FILE: deploymentsFile,
    });
    assert.equal(config.chains.home.rpcUrl, home.rpcUrl);
    const client = createPublicClient({ transport: http(home.rpcUrl) });
    const nodesBefore = children()
      .filter((c) => /anvil|hardhat/.test(c.cmd))
      .map((c) => c.pid)
      .sort();
    assert.deepEqual(nodesBefore, [home.pid, remote.pid].sort(), "only the two external nodes run before the stack");

    // the components that keep SQL state: the DEX API, the iam, the exchange API, the indexer (the bridge's
    // SQL on a Postgres server: relayer/store.postgres.test.ts; its start alone takes ~25 s)
    stack = await startStack({
      config,
      components: defaultComponents(["pipeline", "iam", "dex-api", "exchange-api", "indexer"]),
      onComponentError: "fail",
    });
    t.diagnostic(`first start: ${JSON.stringify(stack.timingsMs)}`);

    // no chain node, proxy, journal or supervisor of the stack's: the same two node processes, no chains dir
    assert.deepEqual(
      children()
        .filter((c) => /anvil|hardhat/.test(c.cmd))
        .map((c) => c.pid)
        .sort(),
      nodesBefore,
    );
    assert.equal(fs.existsSync(path.join(dataDir, "chains")), false);
    assert.equal(stack.chains.home.external, true);
    assert.equal(stack.chains.remote.external, true);
    assert.equal(stack.chains.home.rpcUrl, home.rpcUrl);
    // deployed to the external chain, the file written where DEPLOYMENTS_FILE says
    assert.equal(stack.deployedNow, true);
    const file = JSON.parse(fs.readFileSync(deploymentsFile, "utf8"));
    const settlement = file.home.contracts.Settlement as Address;
    assert.notEqual(await client.getCode({ address: settlement }), undefined);
    assert.equal(fs.existsSync(`${deploymentsFile}.lock`), false, "the deployments lock is released");
    const health = await stack.health();
    const homeHealth = health.components.find((c) => c.name === "home-chain")!;
    assert.equal(homeHealth.ok, true);
    assert.match(homeHealth.detail ?? "", /^external node, chain 31337, block \d+/);
    assert.equal(homeHealth.urls?.rpc, home.rpcUrl);
    assert.match(
      formatBanner(stack, config.urls.health),
      new RegExp(`home  \\(chain 31337\\)\\s+external node ${home.rpcUrl}\n`),
    );

    const pipe = stack.components.find((c) => c.name === "pipeline")!.handle as PipelineHandle;
    const origin = stack.components.find((c) => c.name === "dex-api")!.handle!.urls!["dex rest"].replace(/\/v1$/, "");
    const m: MarketSpec = pipe.dexService.listMarkets().find((x) => x.symbol === "WETH-USD")!;
    const [A, B, C] = config.keys.demoTraders
      .slice(0, 3)
      .map((k) => privateKeyToAccount(k.privateKey)) as PrivateKeyAccount[];

    // a DEX API row: an API key (read only, no agent approval needed)
    const key = await createApiKey(origin, A, { permissions: ["read"] }, false);
    const keyRows = (await sql.query("SELECT id, owner FROM dex_api.dex_api_keys")).rows;
    assert.deepEqual(
      keyRows.map((r) => ({ id: r.id, owner: String(r.owner).toLowerCase() })),
      [{ id: key.id, owner: A.address.toLowerCase() }],
    );
    assert.equal(
      (
        await sql.query(
          "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'dex_api_keys'",
        )
      ).rows[0]!.n,
      0,
      "nothing in public",
    );

    // two wallet-signed orders cross through the DEX API and settle on the external chain
    const priceTicks = 250_000n;
    const sizeLots = 5_000n;
    const chainId = config.chains.home.chainId;
    const post = signedOrderPoster(origin, m, chainId, settlement);
    const ask = await post(B, { side: "sell", priceTicks, sizeLots, nonce: 1n, clientOrderId: "ext-ask" });
    assert.equal(ask.status, 201, ask.text);
    const bid = await post(C, { side: "buy", priceTicks, sizeLots, nonce: 1n, clientOrderId: "ext-bid" });
    assert.equal(bid.status, 201, bid.text);
    assert.equal(bid.body.status, "filled");
    const orderPath = `/v1/orders/${bid.body.order_id}`;
    const settled = await poll("settlement", async () => {
      const r = await api(origin, "GET", orderPath, { headers: await walletHeaders(C, origin, "GET", orderPath) });
      return r.body?.fills?.[0]?.settlement === "settled" ? r.body : undefined;
    });
    const receipt = await client.getTransactionReceipt({ hash: settled.fills[0].tx_hash });
    assert.equal(receipt.status, "success");
    const logs = await settledTradesOf(client, receipt.logs);
    assert.equal(logs.length, 1);
    assert.equal(logs[0]!.maker, B.address.toLowerCase());

    // the indexer's tables are in that Postgres, in its own schema, with the trade
    const schema = indexerSchemaName(deploymentsFile);
    const trades = await poll("the indexer's trade row", async () => {
      const rows = (await sql.query(`SELECT * FROM "${schema}"."trade"`)).rows;
      return rows.length ? rows : undefined;
    });
    assert.equal(trades.length, 1);
    assert.equal(String(trades[0].maker).toLowerCase(), B.address.toLowerCase());
    assert.equal(String(trades[0].taker).toLowerCase(), C.address.toLowerCase());
    assert.equal(trades[0].pair, "WETH-USD");

    // the other SQL components' rows, each in its own schema of that Postgres
    const count = async (table: string) =>
      Number((await sql.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n);
    assert.ok((await count("iam.iam_signing_keys")) >= 1, "the iam's signing key");
    assert.ok((await count("exchange_api.exchange_signing_keys")) >= 1, "the exchange API's signing key");
    // a user logs in at the iam and opens an exchange account: its rows, one in each schema
    const session = await loginExchange(config.urls.identity, config.urls.exchangeApi, "+15550001717");
    assert.match(session.address, /^0x[0-9a-fA-F]{40}$/);
    assert.equal(await count("iam.iam_users"), 1);
    assert.equal(await count("exchange_api.exchange_accounts"), 1);
    const schemas = (
      await sql.query(
        "SELECT DISTINCT table_schema AS s FROM information_schema.tables WHERE table_name = 'schema_migrations' ORDER BY 1",
      )
    ).rows.map((r) => r.s);
    assert.deepEqual(schemas, ["dex_api", "exchange_api", "iam"]);

    await stack.stop();
    stack = undefined;

    // a restart: the file is reused as it is, nothing deployed (the deployer sends no transaction)
    const deployer = config.keys.deployer.address;
    const sentBefore = await client.getTransactionCount({ address: deployer });
    const fileBefore = fs.readFileSync(deploymentsFile, "utf8");
    stack = await startStack({
      config,
      components: defaultComponents(["pipeline", "dex-api"]),
      onComponentError: "fail",
    });
    t.diagnostic(`restart: ${JSON.stringify(stack.timingsMs)}`);
    assert.equal(stack.deployedNow, false);
    assert.deepEqual(stack.provisioned, []);
    assert.equal(await client.getTransactionCount({ address: deployer }), sentBefore);
    assert.equal(fs.readFileSync(deploymentsFile, "utf8"), fileBefore);
    assert.equal(stack.deployments.home.contracts.Settlement, settlement);
    // the DEX API of the restarted stack reads the key from Postgres
    const origin2 = stack.components.find((c) => c.name === "dex-api")!.handle!.urls!["dex rest"].replace(/\/v1$/, "");
    const listed = await api(origin2, "GET", "/v1/api-keys", {
      headers: await walletHeaders(A, origin2, "GET", "/v1/api-keys"),
    });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      listed.body.api_keys.map((k: { id: string }) => k.id),
      [key.id],
    );
  } finally {
    await stack?.stop().catch(() => undefined);
    await sql.end().catch(() => undefined);
    await Promise.all([postgres.stop(), home.stop(), remote.stop()]);
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(sharedDir, { recursive: true, force: true });
  }
});

test("two stacks starting at once on one fresh external chain and one DEPLOYMENTS_FILE: one deploys, the other waits and reuses it", {
  timeout: 240_000,
}, async () => {
  const dirs = [0, 1, 2].map((i) => fs.mkdtempSync(path.join(os.tmpdir(), `external-parts-twin-${i}-`)));
  const deploymentsFile = path.join(dirs[2], "deployments.json");
  const [home, remote] = await Promise.all([
    startExternalAnvil({ chainId: 31337 }),
    startExternalAnvil({ chainId: 31338 }),
  ]);
  const stacks: RunningStack[] = [];
  try {
    const configs = await Promise.all(
      [0, 1].map(
        async (i) =>
          (
            await createTestConfig(dirs[i], {
              HOME_CHAIN_RPC_URL: home.rpcUrl,
              REMOTE_CHAIN_RPC_URL: remote.rpcUrl,
              DEPLOYMENTS_FILE: deploymentsFile,
            })
          ).config,
      ),
    );
    const client = createPublicClient({ transport: http(home.rpcUrl) });
    const started = await Promise.allSettled(
      configs.map((config) => startStack({ config, components: [], onComponentError: "fail" })),
    );
    for (const s of started) if (s.status === "fulfilled") stacks.push(s.value);
    assert.deepEqual(
      started.map((s) => s.status),
      ["fulfilled", "fulfilled"],
      String(
        started.find((s) => s.status === "rejected") &&
          (started.find((s) => s.status === "rejected") as PromiseRejectedResult).reason,
      ),
    );
    assert.deepEqual(stacks.map((s) => s.deployedNow).sort(), [false, true], "exactly one deployed");
    assert.equal(stacks[0].deployments.home.contracts.Settlement, stacks[1].deployments.home.contracts.Settlement);
    // one exchange deployment on the chain: the Settlement of the file, and the deployer's transactions
    // those of one provisioning run (a second deployment would have doubled them)
    const sent = await client.getTransactionCount({ address: configs[0].keys.deployer.address });
    const file = JSON.parse(fs.readFileSync(deploymentsFile, "utf8"));
    assert.equal(file.home.contracts.Settlement, stacks[0].deployments.home.contracts.Settlement);
    const again = await startStack({ config: configs[0], components: [], onComponentError: "fail" });
    stacks.push(again);
    assert.equal(again.deployedNow, false);
    assert.equal(await client.getTransactionCount({ address: configs[0].keys.deployer.address }), sent);
    assert.equal(fs.existsSync(`${deploymentsFile}.lock`), false);
  } finally {
    for (const s of stacks) await s.stop().catch(() => undefined);
    await Promise.all([home.stop(), remote.stop()]);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
});
