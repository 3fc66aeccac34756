// The deployer's key (the contracts' admin) never enters the serving process's config or environment:
// the launcher takes it out of its environment and hands it to the provisioning child only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { ConfigError, HARDHAT_DEV_PRIVATE_KEYS, loadConfig } from "./index";
import { DeployerSecret, loadDeployerKey } from "./deployer-secret";

const KEY9 = HARDHAT_DEV_PRIVATE_KEYS[9];
const serialise = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x));

test("the config holds the deployer's address and never its private key (default or set)", () => {
  for (const env of [{}, { DEPLOYER_PRIVATE_KEY: KEY9 }]) {
    const c = loadConfig(env);
    const key = env.DEPLOYER_PRIVATE_KEY ?? HARDHAT_DEV_PRIVATE_KEYS[0];
    assert.equal(c.keys.deployer.address, loadDeployerKey(env).address);
    assert.equal("privateKey" in c.keys.deployer, false);
    assert.equal(
      serialise(c).toLowerCase().includes(key.slice(2).toLowerCase()),
      false,
      "no copy of the key anywhere in the config",
    );
  }
  // still validated where it is read, so a typo fails at start rather than in the provisioning child
  assert.throws(
    () => loadConfig({ DEPLOYER_PRIVATE_KEY: "0x12" }),
    (e: unknown) => e instanceof ConfigError && /DEPLOYER_PRIVATE_KEY/.test(e.message),
  );
});

test("loadDeployerKey (the provisioning child): the variable, else Hardhat dev #0; empty is unset; bad input refused", () => {
  assert.equal(loadDeployerKey({ DEPLOYER_PRIVATE_KEY: KEY9 }).privateKey, KEY9);
  assert.equal(loadDeployerKey({}).privateKey, HARDHAT_DEV_PRIVATE_KEYS[0]);
  assert.equal(loadDeployerKey({ DEPLOYER_PRIVATE_KEY: "" }).privateKey, HARDHAT_DEV_PRIVATE_KEYS[0]);
  assert.throws(() => loadDeployerKey({ DEPLOYER_PRIVATE_KEY: KEY9.slice(0, -1) }), ConfigError); // 63 hex digits
  assert.throws(() => loadDeployerKey({ DEPLOYER_PRIVATE_KEY: `${KEY9}0` }), ConfigError); // 65 hex digits
});

test("DeployerSecret.takeFrom removes the key from the environment it was in; it reaches only a child's env, until disposed", () => {
  const env: NodeJS.ProcessEnv = { DEPLOYER_PRIVATE_KEY: KEY9, OTHER: "x" };
  const secret = DeployerSecret.takeFrom(env);
  assert.deepEqual(env, { OTHER: "x" }, "gone from the serving process's environment");
  assert.deepEqual(secret.childEnv(), { DEPLOYER_PRIVATE_KEY: KEY9 });
  assert.equal(serialise({ secret }).includes(KEY9.slice(2)), false, "never serialised");
  assert.equal(inspect(secret).includes(KEY9.slice(2)), false, "never logged");
  assert.equal(secret.disposed, false);
  secret.dispose();
  assert.equal(secret.disposed, true);
  assert.throws(() => secret.childEnv(), /disposed/);
  secret.dispose(); // twice is once

  // not set (the sandbox's dev key): the child derives it itself; an empty variable is removed too
  const unset: NodeJS.ProcessEnv = { DEPLOYER_PRIVATE_KEY: "" };
  assert.deepEqual(DeployerSecret.takeFrom(unset).childEnv(), {});
  assert.equal("DEPLOYER_PRIVATE_KEY" in unset, false);
  assert.deepEqual(DeployerSecret.none().childEnv(), {});
});

test("production refuses to start without DEX_WALLET_AUTH_HOSTS; the sandbox accepts any Host", () => {
  const prod = { EXCHANGE_MODE: "production", API_KEY_ENCRYPTION_KEY: "ab".repeat(32) };
  const refused = (e: unknown) => e instanceof ConfigError && /DEX_WALLET_AUTH_HOSTS/.test(e.message);
  assert.throws(() => loadConfig(prod), refused);
  assert.throws(() => loadConfig({ ...prod, DEX_WALLET_AUTH_HOSTS: " , ," }), refused, "only separators: no host");
  assert.deepEqual(loadConfig({ ...prod, DEX_WALLET_AUTH_HOSTS: "Api.Example.com" }).dexApi.walletAuthHosts, [
    "api.example.com",
  ]);
  assert.deepEqual(loadConfig({}).dexApi.walletAuthHosts, []);
  assert.equal(loadConfig({ DEX_WALLET_AUTH_HOSTS: "" }).mode, "sandbox");
});
