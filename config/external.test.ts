// HOME_/REMOTE_CHAIN_RPC_URL, their WS URLs and DEPLOYMENTS_FILE through loadConfig: each rule at its edge.
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { ConfigError, loadConfig, REPO_ROOT } from "./index";
import { wsUrlOf } from "./external";

const base = { DATA_DIR: "/tmp/ext-config-test" };

test("no URL: both chains local, proxy URLs from the ports, the deployments file in the data dir", () => {
  const c = loadConfig({ ...base, HOME_CHAIN_PORT: "18545" });
  assert.equal(c.chains.home.external, false);
  assert.equal(c.chains.remote.external, false);
  assert.equal(c.chains.home.rpcUrl, "http://127.0.0.1:18545");
  assert.equal(c.deploymentsFile, path.join("/tmp/ext-config-test", "deployments.json"));
  assert.equal(c.deploymentsFileShared, false);
  // an empty variable is "not set"
  assert.equal(loadConfig({ ...base, HOME_CHAIN_RPC_URL: "", DEPLOYMENTS_FILE: "" }).chains.home.external, false);
});

test("HOME_CHAIN_RPC_URL: that chain external, its WebSocket URL derived, the other chain still local", () => {
  const c = loadConfig({ ...base, HOME_CHAIN_RPC_URL: "http://10.0.0.5:8545/" });
  assert.equal(c.chains.home.external, true);
  assert.equal(c.chains.home.rpcUrl, "http://10.0.0.5:8545");
  assert.equal(c.chains.home.wsUrl, "ws://10.0.0.5:8545");
  assert.equal(c.chains.remote.external, false);
  const s = loadConfig({
    ...base,
    REMOTE_CHAIN_RPC_URL: "https://rpc.example.org/v2/key",
    REMOTE_CHAIN_WS_URL: "wss://ws.example.org/v2/key",
  });
  assert.equal(s.chains.remote.rpcUrl, "https://rpc.example.org/v2/key");
  assert.equal(s.chains.remote.wsUrl, "wss://ws.example.org/v2/key");
  assert.equal(wsUrlOf("https://rpc.example.org/v2/key"), "wss://rpc.example.org/v2/key");
});

test("bad chain URLs are config errors naming the variable", () => {
  const bad: Record<string, string>[] = [
    { HOME_CHAIN_RPC_URL: "not a url" },
    { HOME_CHAIN_RPC_URL: "127.0.0.1:8545" },
    { HOME_CHAIN_RPC_URL: "ftp://10.0.0.5:8545" },
    { HOME_CHAIN_RPC_URL: "ws://10.0.0.5:8545" },
    { REMOTE_CHAIN_RPC_URL: "http//x" },
    { HOME_CHAIN_RPC_URL: "http://a:1", HOME_CHAIN_WS_URL: "http://a:1" },
    // a WebSocket URL alone: the stack would still start a node for that chain
    { REMOTE_CHAIN_WS_URL: "ws://a:1" },
    // credentials in the URL (fetch refuses them)
    { HOME_CHAIN_RPC_URL: "http://user:pw@a:1" },
    // one node for both chains
    { HOME_CHAIN_RPC_URL: "http://a:1", REMOTE_CHAIN_RPC_URL: "http://a:1/" },
  ];
  for (const env of bad) {
    assert.throws(
      () => loadConfig({ ...base, ...env }),
      (e: unknown) => e instanceof ConfigError && /CHAIN_(RPC|WS)_URL/.test((e as Error).message),
      JSON.stringify(env),
    );
  }
});

test("DEPLOYMENTS_FILE: resolved against the repository root, marked shared", () => {
  const rel = loadConfig({ ...base, DEPLOYMENTS_FILE: "shared/deployments.json" });
  assert.equal(rel.deploymentsFile, path.join(REPO_ROOT, "shared", "deployments.json"));
  assert.equal(rel.deploymentsFileShared, true);
  assert.equal(loadConfig({ ...base, DEPLOYMENTS_FILE: "/srv/x.json" }).deploymentsFile, "/srv/x.json");
});

test("DATABASE_URL: a postgres:// or postgresql:// URL; anything else is a config error naming it", () => {
  assert.equal(
    loadConfig({ ...base, DATABASE_URL: "postgres://u:p@db.internal:5432/exchange" }).database.url,
    "postgres://u:p@db.internal:5432/exchange",
  );
  assert.equal(
    loadConfig({ ...base, DATABASE_URL: "postgresql://db.internal/exchange?sslmode=require" }).database.url,
    "postgresql://db.internal/exchange?sslmode=require",
  );
  for (const bad of ["mysql://u:p@h/db", "http://h:5432/db", "db.internal:5432", "postgres"]) {
    assert.throws(
      () => loadConfig({ ...base, DATABASE_URL: bad }),
      (e: unknown) => e instanceof ConfigError && /DATABASE_URL/.test((e as Error).message),
      bad,
    );
  }
});
