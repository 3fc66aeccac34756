// The scale-out variables: each one's bounds, the secret's minimum at its boundary, DEX_PARTITIONS' grammar.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MIN_PARTITION_SECRET_LENGTH, parseDexPartitions, parsePartitionConfig } from "./partition";
import { loadConfig } from "./index";

const secret = "k".repeat(MIN_PARTITION_SECRET_LENGTH);

test("defaults: one process owns every market, no transport, no routes, no extra operators", () => {
  const c = parsePartitionConfig({});
  assert.deepEqual(c, {
    pipelineMarkets: null,
    listenPort: null,
    index: 0,
    secret: null,
    routes: [],
    extraOperators: [],
    orderLog: null,
  });
  assert.deepEqual(loadConfig({}).partition, c);
});

test("PIPELINE_MARKETS, PARTITION_INDEX at its bounds, EXTRA_OPERATOR_ADDRESSES", () => {
  assert.deepEqual(parsePartitionConfig({ PIPELINE_MARKETS: " WETH-USD, WBTC-USD " }).pipelineMarkets, [
    "WETH-USD",
    "WBTC-USD",
  ]);
  assert.throws(() => parsePartitionConfig({ PIPELINE_MARKETS: "weth" }), /PIPELINE_MARKETS/);
  assert.throws(() => parsePartitionConfig({ PIPELINE_MARKETS: "," }), /PIPELINE_MARKETS/);
  assert.equal(parsePartitionConfig({ PARTITION_INDEX: "31" }).index, 31);
  assert.throws(() => parsePartitionConfig({ PARTITION_INDEX: "32" }), /PARTITION_INDEX/);
  assert.throws(() => parsePartitionConfig({ PARTITION_INDEX: "-1" }), /PARTITION_INDEX/);
  const a = "0x00000000000000000000000000000000000000a1";
  assert.deepEqual(
    parsePartitionConfig({ EXTRA_OPERATOR_ADDRESSES: `${a}, ${a.replace("a1", "b2")}` }).extraOperators,
    [a, a.replace("a1", "b2")],
  );
  assert.throws(() => parsePartitionConfig({ EXTRA_OPERATOR_ADDRESSES: "0x1234" }), /EXTRA_OPERATOR_ADDRESSES/);
});

test("the transport and the routes need the secret, of at least 32 characters (31 refused)", () => {
  assert.throws(() => parsePartitionConfig({ PARTITION_PORT: "7001" }), /PARTITION_SECRET/);
  assert.throws(() => parsePartitionConfig({ DEX_PARTITIONS: "WETH-USD=http://127.0.0.1:7001" }), /PARTITION_SECRET/);
  assert.throws(
    () => parsePartitionConfig({ PARTITION_PORT: "7001", PARTITION_SECRET: secret.slice(1) }),
    /PARTITION_SECRET/,
  );
  assert.equal(parsePartitionConfig({ PARTITION_PORT: "7001", PARTITION_SECRET: secret }).listenPort, 7001);
  assert.throws(() => parsePartitionConfig({ PARTITION_PORT: "65536", PARTITION_SECRET: secret }), /PARTITION_PORT/);
  // through loadConfig: a ConfigError naming the variable
  assert.throws(
    () => loadConfig({ PARTITION_PORT: "7001" }),
    (e: Error) => e.name === "ConfigError" && /PARTITION_SECRET/.test(e.message),
  );
});

test("DEX_PARTITIONS: symbols=URL;..., one owner per market, http(s) only, trailing slash dropped", () => {
  assert.deepEqual(parseDexPartitions("WETH-USD,WBTC-USD=http://127.0.0.1:7001/; AAPL-USD=https://p2.internal:7002"), [
    { symbols: ["WETH-USD", "WBTC-USD"], url: "http://127.0.0.1:7001" },
    { symbols: ["AAPL-USD"], url: "https://p2.internal:7002" },
  ]);
  assert.throws(() => parseDexPartitions("WETH-USD=http://a:1;WETH-USD=http://b:2"), /two partitions/);
  assert.throws(() => parseDexPartitions("WETH-USD=ftp://a:1"), /http/);
  assert.throws(() => parseDexPartitions("http://a:1"), /SYMBOL/);
  assert.throws(() => parseDexPartitions(";"), /no partition/);
  const routes = parsePartitionConfig({
    DEX_PARTITIONS: "WETH-USD=http://127.0.0.1:7001",
    PARTITION_SECRET: secret,
  }).routes;
  assert.equal(routes.length, 1);
});

test("ORDER_LOG_URL: the replicated order log's servers, replicas and lease; a bad URL or lease is refused", () => {
  const c = parsePartitionConfig({
    ORDER_LOG_URL: "nats://10.0.0.7:4222, nats://10.0.0.8:4222",
    ORDER_LOG_LEASE_MS: "500",
  });
  assert.deepEqual(c.orderLog, {
    servers: ["nats://10.0.0.7:4222", "nats://10.0.0.8:4222"],
    replicas: 3,
    leaseMs: 500,
  });
  assert.throws(() => parsePartitionConfig({ ORDER_LOG_URL: "http://10.0.0.7:4222" }), /ORDER_LOG_URL/);
  assert.throws(
    () => parsePartitionConfig({ ORDER_LOG_URL: "nats://a:4222", ORDER_LOG_LEASE_MS: "499" }),
    /ORDER_LOG_LEASE_MS/,
  );
});
