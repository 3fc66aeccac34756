// The provisioning child is the only holder of the deployer's (admin) key: it gets it from its own
// environment (never from the job on its stdin, never inherited from the serving process's environment),
// refuses to sign with a key other than the configured deployer's, and a disposed secret starts nothing.
// The whole-stack half (roles on chain, restart) is test/e2e/admin-key.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import pino from "pino";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { DeployerSecret, HARDHAT_DEV_PRIVATE_KEYS } from "../../config";
import { provisionJobSchema, type ProvisionJob } from "./provision-job";
import { createProvisioner } from "./provisioner";

const KEY9 = HARDHAT_DEV_PRIVATE_KEYS[9] as Hex;
const DEV0 = privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[0]).address;
const logger = pino({ level: "silent" });
// a port nothing listens on: a job that gets past the key check fails on its first RPC call
const chain = (chainId: number) => ({ chainId, rpcUrl: "http://127.0.0.1:9/", wsUrl: "ws://127.0.0.1:9/" });
const job = (expectedDeployer: `0x${string}`): Extract<ProvisionJob, { kind: "exchange" }> => ({
  kind: "exchange",
  expectedDeployer,
  deploymentsFile: "/nonexistent/deployments.json",
  home: chain(31337),
  remote: chain(31338),
  operator: privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[1]).address,
  feeRecipient: privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[2]).address,
  demoTraderKeys: [],
});

test("a job carries no deployer key: the schema has no field for it and drops one slipped in", () => {
  const parsed = provisionJobSchema.parse({ ...job(DEV0), deployerKey: KEY9, DEPLOYER_PRIVATE_KEY: KEY9 });
  assert.equal(JSON.stringify(parsed).includes(KEY9.slice(2)), false);
});

test("the child refuses a key that is not the configured deployer's, before any chain call", {
  timeout: 120_000,
}, async () => {
  const p = createProvisioner({ secret: DeployerSecret.takeFrom({ DEPLOYER_PRIVATE_KEY: KEY9 }), logger });
  await assert.rejects(
    p.run(job(DEV0)),
    (e: Error) =>
      /exit code 1/.test(e.message) &&
      /is not the configured deployer/.test(e.message) &&
      !e.message.includes(KEY9.slice(2)),
  );
  assert.deepEqual(p.runs, ["exchange"]);
});

test("the child signs with the secret's key, not with a DEPLOYER_PRIVATE_KEY left in the serving process's environment", {
  timeout: 120_000,
}, async (t) => {
  process.env.DEPLOYER_PRIVATE_KEY = KEY9;
  t.after(() => delete process.env.DEPLOYER_PRIVATE_KEY);
  // no secret: the child must fall back to the dev key (#0), so the job naming #0 passes the key check and
  // fails only at its first RPC call; had it inherited #9 it would refuse the deployer
  const p = createProvisioner({ secret: DeployerSecret.none(), logger });
  await assert.rejects(
    p.run(job(DEV0)),
    (e: Error) => /exit code 1/.test(e.message) && !/not the configured deployer/.test(e.message),
  );
  // with the secret: #9 is the configured deployer and passes the same check
  const withKey = createProvisioner({ secret: DeployerSecret.takeFrom({ DEPLOYER_PRIVATE_KEY: KEY9 }), logger });
  await assert.rejects(
    withKey.run(job(privateKeyToAccount(KEY9).address)),
    (e: Error) => !/not the configured deployer/.test(e.message),
  );
});

test("a disposed secret starts no provisioning child; a malformed job neither", async () => {
  const secret = DeployerSecret.takeFrom({ DEPLOYER_PRIVATE_KEY: KEY9 });
  secret.dispose();
  const p = createProvisioner({ secret, logger });
  await assert.rejects(p.run(job(DEV0)), /disposed/);
  assert.deepEqual(p.runs, [], "nothing spawned");
  const q = createProvisioner({ secret: DeployerSecret.none(), logger });
  await assert.rejects(q.run({ ...job(DEV0), expectedDeployer: "0x12" as `0x${string}` }));
  assert.deepEqual(q.runs, []);
});

test("jobs asked together run one at a time, in the order asked (one deployer nonce, one deployments file)", {
  timeout: 120_000,
}, async () => {
  const p = createProvisioner({ secret: DeployerSecret.none(), logger });
  // both children fail at their first RPC call (nothing listens): what counts is when each one starts
  const first = p.run(job(DEV0));
  const second = p.run({ ...job(DEV0), demoTraderKeys: [KEY9] });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(p.runs.length, 1, "the second waits for the first child");
  await assert.rejects(first);
  await assert.rejects(second);
  assert.equal(p.runs.length, 2);
});
