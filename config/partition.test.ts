// The scale-out variables: each one's bounds, DEX_PARTITIONS' grammar and its need of the NATS cluster.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseDexPartitions, parsePartitionConfig } from "./partition";
import { loadConfig } from "./index";

test("defaults: one process owns every market, no routes, no extra operators, the local journal", () => {
  const c = parsePartitionConfig({});
  assert.deepEqual(c, {
    pipelineMarkets: null,
    index: 0,
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

test("DEX_PARTITIONS: symbols=index;..., one owner per market, one entry per partition, index 0-31, needs ORDER_LOG_URL", () => {
  assert.deepEqual(parseDexPartitions("WETH-USD,WBTC-USD=0; AAPL-USD=31"), [
    { symbols: ["WETH-USD", "WBTC-USD"], index: 0 },
    { symbols: ["AAPL-USD"], index: 31 },
  ]);
  assert.throws(() => parseDexPartitions("WETH-USD=0;WETH-USD=1"), /two partitions/);
  assert.throws(() => parseDexPartitions("WETH-USD=0;WBTC-USD=0"), /named twice/);
  assert.throws(() => parseDexPartitions("WETH-USD=32"), /partition index/);
  assert.throws(() => parseDexPartitions("WETH-USD=http://a:1"), /partition index/);
  assert.throws(() => parseDexPartitions("0"), /SYMBOL/);
  assert.throws(() => parseDexPartitions(";"), /no partition/);
  assert.throws(() => parsePartitionConfig({ DEX_PARTITIONS: "WETH-USD=0" }), /ORDER_LOG_URL/);
  // through loadConfig: a ConfigError naming the variable
  assert.throws(
    () => loadConfig({ DEX_PARTITIONS: "WETH-USD=0" }),
    (e: Error) => e.name === "ConfigError" && /ORDER_LOG_URL/.test(e.message),
  );
  const routes = parsePartitionConfig({ DEX_PARTITIONS: "WETH-USD=1", ORDER_LOG_URL: "nats://127.0.0.1:4222" }).routes;
  assert.deepEqual(routes, [{ symbols: ["WETH-USD"], index: 1 }]);
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
