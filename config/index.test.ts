import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { mnemonicToAccount } from "viem/accounts";
import {
  ConfigError,
  DEFAULT_CHAIN_NODE,
  HARDHAT_DEV_MNEMONIC,
  HARDHAT_DEV_PRIVATE_KEYS,
  REPO_ROOT,
  chainNodeOf,
  loadConfig,
} from "./index";

test("defaults follow DESIGN.md ports and put data under the repo's .data", () => {
  const c = loadConfig({});
  assert.deepEqual(
    [
      c.ports.exchangeApi,
      c.ports.dexRest,
      c.ports.bridgeApi,
      c.ports.identity,
      c.ports.dexWs,
      c.ports.grpc,
      c.ports.indexer,
    ],
    [3000, 3001, 3002, 3003, 8080, 50051, 42069],
  );
  assert.equal(c.chains.home.chainId, 31337);
  assert.equal(c.chains.home.rpcUrl, "http://127.0.0.1:8545");
  assert.equal(c.chains.remote.chainId, 31338);
  assert.equal(c.chains.remote.rpcUrl, "http://127.0.0.1:8546");
  assert.equal(c.urls.exchangeApi, "http://127.0.0.1:3000/v1");
  assert.equal(c.dataDir, path.join(REPO_ROOT, ".data"));
  assert.equal(c.database.url, undefined);
  assert.equal(c.deploymentsFile, path.join(REPO_ROOT, ".data", "deployments.json"));
});

test("every port, the data dir and the database are overridable", () => {
  const c = loadConfig({
    HOME_CHAIN_PORT: "18545",
    INDEXER_PORT: "0",
    DATA_DIR: "/tmp/x",
    DATABASE_URL: "postgres://u:p@h:5432/db",
  });
  assert.equal(c.chains.home.port, 18545);
  assert.equal(c.chains.home.rpcUrl, "http://127.0.0.1:18545");
  assert.equal(c.ports.indexer, 0);
  assert.equal(c.dataDir, "/tmp/x");
  assert.equal(c.database.url, "postgres://u:p@h:5432/db");
});

test("the default keys are Hardhat's dev accounts, derived from its public mnemonic", () => {
  HARDHAT_DEV_PRIVATE_KEYS.forEach((key, i) => {
    const derived = mnemonicToAccount(HARDHAT_DEV_MNEMONIC, { addressIndex: i });
    const fromKey = loadConfig({ OPERATOR_PRIVATE_KEY: key }).keys.operator.address;
    assert.equal(fromKey, derived.address, `dev key #${i}`);
  });
  const c = loadConfig({});
  // every role: deployer, operator, feeRecipient, relayer, agentRelayer, funding, compliance, demoTraders, integrator
  const roles = Object.values(c.keys).flat();
  assert.equal(new Set(roles.map((k) => k.address)).size, roles.length, "each role its own account");
});

test("bad input is rejected with every problem named", () => {
  assert.throws(
    () => loadConfig({ HOME_CHAIN_PORT: "70000", OPERATOR_PRIVATE_KEY: "0x12", LOG_LEVEL: "loud" }),
    (e: unknown) =>
      e instanceof ConfigError &&
      /HOME_CHAIN_PORT/.test(e.message) &&
      /OPERATOR_PRIVATE_KEY/.test(e.message) &&
      /LOG_LEVEL/.test(e.message),
  );
  assert.throws(() => loadConfig({ REMOTE_CHAIN_ID: "31337" }), ConfigError);
});

test("the config is frozen", () => {
  const c = loadConfig({});
  assert.throws(() => {
    (c.ports as { health: number }).health = 1;
  }, TypeError);
  assert.ok(Object.isFrozen(c.keys.demoTraders));
});

test("STACK_COMPONENTS selects the default components", () => {
  assert.deepEqual(loadConfig({}).stackComponents, ["all"]);
  assert.deepEqual(loadConfig({ STACK_COMPONENTS: "none" }).stackComponents, ["none"]);
  assert.deepEqual(loadConfig({ STACK_COMPONENTS: "indexer, api" }).stackComponents, ["indexer", "api"]);
});

test("CHAIN_NODE: anvil or hardhat, the default when unset or empty; anything else is refused", () => {
  assert.equal(loadConfig({}).chainNode, DEFAULT_CHAIN_NODE);
  assert.equal(loadConfig({ CHAIN_NODE: "" }).chainNode, DEFAULT_CHAIN_NODE);
  assert.equal(loadConfig({ CHAIN_NODE: "anvil" }).chainNode, "anvil");
  assert.equal(loadConfig({ CHAIN_NODE: "hardhat" }).chainNode, "hardhat");
  assert.throws(
    () => loadConfig({ CHAIN_NODE: "geth" }),
    (e: unknown) => e instanceof ConfigError && /CHAIN_NODE/.test(e.message),
  );
  assert.throws(() => loadConfig({ CHAIN_NODE: "Anvil" }), ConfigError);
  assert.equal(chainNodeOf({ CHAIN_NODE: "anvil" }), "anvil");
  assert.equal(chainNodeOf({}), DEFAULT_CHAIN_NODE);
  assert.throws(
    () => chainNodeOf({ CHAIN_NODE: "geth" }),
    (e: unknown) => e instanceof ConfigError && /CHAIN_NODE/.test(e.message),
  );
});

test("the simulated market is never on in production mode (SIMULATOR=on or not); in the sandbox it follows SIMULATOR", () => {
  const production = {
    EXCHANGE_MODE: "production",
    API_KEY_ENCRYPTION_KEY: "11".repeat(32),
    DEX_WALLET_AUTH_HOSTS: "dex.example",
  };
  assert.equal(loadConfig({ ...production, SIMULATOR: "on" }).simulator.enabled, false);
  assert.equal(loadConfig(production).simulator.enabled, false);
  assert.equal(loadConfig({}).simulator.enabled, true);
  assert.equal(loadConfig({ SIMULATOR: "off" }).simulator.enabled, false);
});

test("the flood guards and the simulated market's history are tunable, with bounds", () => {
  const d = loadConfig({});
  assert.deepEqual([d.dexApi.ipPerMinute, d.exchangeApi.ipPerMinute, d.simulator.historyDays], [1200, 1200, 400]);
  const c = loadConfig({ DEX_IP_RATE_LIMIT: "5000", SIMULATOR_HISTORY_DAYS: "1826" });
  assert.deepEqual([c.dexApi.ipPerMinute, c.simulator.historyDays], [5000, 1826]);
  assert.equal(loadConfig({ SIMULATOR_HISTORY_DAYS: "0" }).simulator.historyDays, 0);
  for (const bad of [
    { DEX_IP_RATE_LIMIT: "0" },
    { SIMULATOR_HISTORY_DAYS: "1827" },
    { SIMULATOR_HISTORY_DAYS: "-1" },
    { SIMULATOR_HISTORY_DAYS: "1.5" },
  ]) {
    assert.throws(() => loadConfig(bad), ConfigError, JSON.stringify(bad));
  }
});

test("TRUSTED_PROXIES: the web server's hop, loopback by default; a list of addresses and CIDRs; nonsense refused", () => {
  assert.deepEqual(loadConfig({}).trustedProxies, ["loopback"]);
  assert.deepEqual(loadConfig({ TRUSTED_PROXIES: " 10.0.0.5, 10.1.0.0/16 " }).trustedProxies, [
    "10.0.0.5",
    "10.1.0.0/16",
  ]);
  assert.deepEqual(loadConfig({ TRUSTED_PROXIES: "none" }).trustedProxies, []);
  assert.throws(
    () => loadConfig({ TRUSTED_PROXIES: "web.example" }),
    (e: unknown) => e instanceof ConfigError && /TRUSTED_PROXIES/.test(e.message),
  );
});
