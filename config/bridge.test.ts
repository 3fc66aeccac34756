// Bridge confirmations per chain: BRIDGE_CONFIRMATIONS_<chainId>, 0 only for the local instant-finality
// chains, DEFAULT_BRIDGE_CONFIRMATIONS for every other chain unless configured.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  bridgeConfirmationsFor,
  DEFAULT_BRIDGE_CONFIRMATIONS,
  defaultBridgeConfirmations,
  parseBridgeConfirmations,
} from "./bridge";
import { ConfigError, loadConfig } from "./index";

test("defaults: 0 on the local chains 31337/31338 only, at least 12 on any other chain", () => {
  assert.equal(defaultBridgeConfirmations(31337), 0);
  assert.equal(defaultBridgeConfirmations(31338), 0);
  assert.ok(DEFAULT_BRIDGE_CONFIRMATIONS >= 12);
  for (const chainId of [1, 10, 137, 8453, 42161, 11155111, 31336, 31339])
    assert.equal(defaultBridgeConfirmations(chainId), DEFAULT_BRIDGE_CONFIRMATIONS, String(chainId));
});

test("a configured value wins over the default, for its chain only (0 included)", () => {
  const configured = { 1: 0, 31337: 5 };
  assert.equal(bridgeConfirmationsFor(configured, 1), 0);
  assert.equal(bridgeConfirmationsFor(configured, 31337), 5);
  assert.equal(bridgeConfirmationsFor(configured, 31338), 0);
  assert.equal(bridgeConfirmationsFor(configured, 10), DEFAULT_BRIDGE_CONFIRMATIONS);
  assert.equal(bridgeConfirmationsFor(undefined, 10), DEFAULT_BRIDGE_CONFIRMATIONS);
});

test("BRIDGE_CONFIRMATIONS_<chainId> parsing: whole blocks 0..100000, anything else refused by name", () => {
  assert.deepEqual(
    parseBridgeConfirmations({
      BRIDGE_CONFIRMATIONS_1: "12",
      BRIDGE_CONFIRMATIONS_31337: "0",
      BRIDGE_CONFIRMATIONS_10: "100000",
      OTHER: "x",
      BRIDGE_CONFIRMATIONS_5: "",
    }),
    { 1: 12, 31337: 0, 10: 100_000 },
  );
  for (const [name, value] of [
    ["BRIDGE_CONFIRMATIONS_1", "100001"],
    ["BRIDGE_CONFIRMATIONS_1", "-1"],
    ["BRIDGE_CONFIRMATIONS_1", "1.5"],
    ["BRIDGE_CONFIRMATIONS_1", "twelve"],
    ["BRIDGE_CONFIRMATIONS_0", "3"],
  ])
    assert.throws(() => parseBridgeConfirmations({ [name]: value }), new RegExp(name), `${name}=${value}`);
});

test("loadConfig carries the configured confirmations and refuses a bad one with ConfigError", () => {
  assert.deepEqual(loadConfig({ BRIDGE_CONFIRMATIONS_1: "64", BRIDGE_CONFIRMATIONS_31338: "3" }).bridge.confirmations, {
    1: 64,
    31338: 3,
  });
  assert.deepEqual(loadConfig({}).bridge.confirmations, {});
  assert.throws(
    () => loadConfig({ BRIDGE_CONFIRMATIONS_1: "lots" }),
    (e: unknown) => e instanceof ConfigError && /BRIDGE_CONFIRMATIONS_1/.test(e.message),
  );
});
