// Issue #11 "no admin key in any serving process": the stack starts as `npm start` does (the launcher
// takes DEPLOYER_PRIVATE_KEY out of its environment, `startStack` with the pipeline, the DEX API and the
// bridge). Deployment, role grants, demo mints and the bridge's deployment run in short-lived provisioning
// children; the serving process's config and environment hold no deployer key, and no key it holds has
// an admin, guardian or rotation role on Settlement or the bridge contracts, nor owns a guardian Safe.
// A restart re-uses the deployments with no key at all.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseAbi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DeployerSecret, HARDHAT_DEV_PRIVATE_KEYS, loadConfig } from "../../config";
import { createTestConfig, defaultComponents, startStack, type RunningStack } from "../../scripts/stack";
import { createChainClients } from "../../scripts/stack/clients";
import { PROVISION_ENTRY } from "../../scripts/stack/provisioner";

/** The deployer for this test: a funded dev account that no other role uses, so that "the key is nowhere"
 *  cannot pass by accident (dev #0 is a constant in every process's code). */
const DEPLOYER_KEY = HARDHAT_DEV_PRIVATE_KEYS[9] as Hex;
/** The bridge component's custody provider stand-in (dev #8), held by the serving process. */
const CUSTODY_KEY = HARDHAT_DEV_PRIVATE_KEYS[8] as Hex;
const ADMIN_ROLE: Hex = `0x${"00".repeat(32)}`;
const abi = parseAbi([
  "function hasRole(bytes32 role, address account) view returns (bool)",
  "function GUARDIAN_ROLE() view returns (bytes32)",
  "function ROTATION_ROLE() view returns (bytes32)",
  "function getOwners() view returns (address[])",
]);

const containsKey = (text: string) => text.toLowerCase().includes(DEPLOYER_KEY.slice(2).toLowerCase());
const serialise = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x));

/** Processes running the provisioning entry (none may outlive a start). */
function provisioningChildren(): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/cmdline`, "utf8").includes(PROVISION_ENTRY)) out.push(Number(name));
    } catch {
      // ended while we looked
    }
  }
  return out;
}

async function assertNoAdminHeld(stack: RunningStack): Promise<void> {
  const { config, deployments } = stack;
  // Every key the serving process holds: each private key in its config, and the bridge's custody stand-in.
  const held = Object.entries(config.keys).flatMap(([role, v]) =>
    (Array.isArray(v) ? v : [v])
      .filter((k) => "privateKey" in k)
      .map((k, i) => ({ role: `${role}${Array.isArray(v) ? i : ""}`, address: k.address as Address })),
  );
  held.push({ role: "bridge custody stand-in", address: privateKeyToAccount(CUSTODY_KEY).address });
  assert.deepEqual(
    held.map((h) => h.role).slice(0, 4),
    ["operator", "feeRecipient", "relayer", "agentRelayer"],
    "the config's keys, the deployer not among them",
  );
  assert.ok(held.length >= 9);
  const deployer = privateKeyToAccount(DEPLOYER_KEY).address;
  assert.ok(!held.some((h) => h.address === deployer));

  const home = createChainClients(stack.chains.home.chainId, stack.chains.home.rpcUrl).publicClient;
  const remote = createChainClients(stack.chains.remote.chainId, stack.chains.remote.rpcUrl).publicClient;
  type Client = typeof home;
  const hasRole = (client: Client, contract: Address, role: Hex, account: Address) =>
    client.readContract({ address: contract, abi, functionName: "hasRole", args: [role, account] });

  // Settlement: the deployer is the admin (so the check below can fail), no held key is.
  const settlement = deployments.home.contracts.Settlement as Address;
  assert.equal(
    await hasRole(home, settlement, ADMIN_ROLE, deployer),
    true,
    "control: the deployer administers Settlement",
  );
  for (const h of held)
    assert.equal(await hasRole(home, settlement, ADMIN_ROLE, h.address), false, `${h.role} is a Settlement admin`);

  // Bridge: every vault and minter; DEFAULT_ADMIN, GUARDIAN and ROTATION roles.
  const bridge: [Client, string, string][] = [
    [home, "BridgeVault", "BridgeSafe"],
    [home, "CustodyBridgeVault", ""],
    [remote, "BridgeMinter", "BridgeSafe"],
    [remote, "CustodyBridgeMinter", ""],
  ];
  for (const [client, name, safeName] of bridge) {
    const side = client === home ? deployments.home : deployments.remote;
    const contract = side.contracts[name] as Address;
    assert.match(contract ?? "", /^0x[0-9a-fA-F]{40}$/, `${name} deployed`);
    const roles = [
      ADMIN_ROLE,
      await client.readContract({ address: contract, abi, functionName: "GUARDIAN_ROLE" }),
      await client.readContract({ address: contract, abi, functionName: "ROTATION_ROLE" }),
    ];
    for (const role of roles) {
      for (const h of held)
        assert.equal(await hasRole(client, contract, role, h.address), false, `${h.role} holds ${role} on ${name}`);
      assert.equal(await hasRole(client, contract, role, deployer), false, `the deployer renounced ${role} on ${name}`);
      if (safeName)
        assert.equal(
          await hasRole(client, contract, role, side.contracts[safeName] as Address),
          true,
          `control: the Safe holds ${role} on ${name}`,
        );
    }
    if (safeName) {
      const owners = (
        await client.readContract({ address: side.contracts[safeName] as Address, abi, functionName: "getOwners" })
      ).map((o) => o.toLowerCase());
      assert.deepEqual(
        owners,
        [deployer.toLowerCase()],
        `${safeName} on ${client === home ? "home" : "remote"}: owned by the deployer alone`,
      );
      for (const h of held) assert.ok(!owners.includes(h.address.toLowerCase()), `${h.role} owns ${safeName}`);
    }
  }
}

test("no admin key in the serving process: provisioning in a child, no held key has an admin role; a restart needs no key", {
  timeout: 900_000,
}, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "admin-key-e2e-"));
  let stack: RunningStack | undefined;
  t.after(async () => {
    await stack?.stop();
    delete process.env.DEPLOYER_PRIVATE_KEY;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const { env } = await createTestConfig(dataDir);
  const components = () => defaultComponents(["pipeline", "dex-api", "bridge"]);

  // As scripts/start.ts: the key arrives in the process's environment; the config keeps its address; the
  // launcher takes the variable out of the environment and hands it to the stack for provisioning.
  process.env.DEPLOYER_PRIVATE_KEY = DEPLOYER_KEY;
  const config = loadConfig({ ...env, DEPLOYER_PRIVATE_KEY: process.env.DEPLOYER_PRIVATE_KEY });
  const deployerSecret = DeployerSecret.takeFrom(process.env);
  assert.equal(config.keys.deployer.address, privateKeyToAccount(DEPLOYER_KEY).address);

  stack = await startStack({ config, reset: true, components: components(), onComponentError: "fail", deployerSecret });
  t.diagnostic(`first start: ${JSON.stringify(stack.timingsMs)}`);
  assert.deepEqual(stack.provisioned, ["exchange", "bridge"], "every admin-key step ran in a provisioning child");
  assert.deepEqual(
    stack.components.map((c) => [c.name, c.error]),
    [
      ["pipeline", undefined],
      ["dex-api", undefined],
      ["bridge", undefined],
    ],
  );
  assert.equal(deployerSecret.disposed, true, "the stack dropped the key before it served");
  assert.throws(() => deployerSecret.childEnv(), /disposed/);
  assert.deepEqual(provisioningChildren(), [], "no provisioning child outlives the start");

  // The serving process's config and environment: the deployer's address, never its key.
  assert.equal("privateKey" in stack.config.keys.deployer, false);
  assert.equal(containsKey(serialise(stack.config)), false, "the config holds no deployer key");
  assert.equal(
    Object.values(process.env).some((v) => v !== undefined && containsKey(v)),
    false,
    "process.env holds no deployer key",
  );
  assert.equal(containsKey(fs.readFileSync(config.deploymentsFile, "utf8")), false);

  await assertNoAdminHeld(stack);
  const settlement = stack.deployments.home.contracts.Settlement;
  const vault = stack.deployments.home.contracts.BridgeVault;

  // Restart, as `npm start` with no DEPLOYER_PRIVATE_KEY at all: everything re-used, no child, no key.
  await stack.stop();
  stack = undefined;
  stack = await startStack({
    config,
    components: components(),
    onComponentError: "fail",
    deployerSecret: DeployerSecret.takeFrom(process.env),
  });
  assert.equal(stack.deployedNow, false);
  assert.deepEqual(stack.provisioned, [], "a restart provisions nothing");
  assert.equal(stack.deployments.home.contracts.Settlement, settlement);
  assert.equal(stack.deployments.home.contracts.BridgeVault, vault);
  assert.ok(
    (await stack.health()).components.every((c) => c.ok),
    "every part up after the restart",
  );
  await assertNoAdminHeld(stack);
});
