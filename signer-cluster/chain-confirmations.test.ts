// Per-chain confirmations reach a signer process: chainsToEnv -> loadChainsConfig keeps each side's own
// value (or none, then MPC_CONFIRMATIONS applies), and refuses a bad one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chainsToEnv, loadChainsConfig } from "./config";
import type { BridgeChainsConfig } from "./source-events";

const base: BridgeChainsConfig = {
  confirmations: 2,
  home: {
    chainId: 1,
    rpcUrl: "http://127.0.0.1:8545",
    vault: "0x00000000000000000000000000000000000000a1",
    fromBlock: 10n,
    confirmations: 64,
  },
  remote: {
    chainId: 31338,
    rpcUrl: "http://127.0.0.1:8546",
    minter: "0x00000000000000000000000000000000000000b2",
    fromBlock: 3n,
  },
};

test("each side's confirmations survive the trip to a signer process; an unset side stays unset", () => {
  const back = loadChainsConfig(chainsToEnv(base));
  assert.equal(back.confirmations, 2);
  assert.equal(back.home?.confirmations, 64);
  assert.equal(back.remote?.confirmations, undefined);
  const zero = loadChainsConfig(chainsToEnv({ ...base, remote: { ...base.remote!, confirmations: 0 } }));
  assert.equal(zero.remote?.confirmations, 0);
});

test("a per-chain value outside 0..100000 is refused", () => {
  const env = chainsToEnv(base);
  assert.equal(loadChainsConfig({ ...env, MPC_HOME_CONFIRMATIONS: "100000" }).home?.confirmations, 100_000);
  for (const bad of ["-1", "100001", "1.5", "x"])
    assert.throws(() => loadChainsConfig({ ...env, MPC_HOME_CONFIRMATIONS: bad }), /MPC_HOME_CONFIRMATIONS/, bad);
});
