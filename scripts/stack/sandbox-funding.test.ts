// Provisioning the sandbox bank (issue #14): SandboxFunding deployed by the deployer, its reserve minted, the
// funding key (dev #11) granted FUNDER_ROLE and nothing else; the funding key cannot mint demo USD.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseAbi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { loadConfig } from "../../config";
import { startFixture } from "../../pipeline/testing/fixture";
import { deploySandboxFunding, SANDBOX_FUNDING_RESERVE_UNITS } from "./sandbox-funding";

const abi = parseAbi([
  "function hasRole(bytes32 role, address account) view returns (bool)",
  "function FUNDER_ROLE() view returns (bytes32)",
  "function balanceOf(address) view returns (uint256)",
  "function owner() view returns (address)",
]);

test("the funding key is dev #11, distinct from every other role; provisioning grants it FUNDER_ROLE only and mints the reserve", {
  timeout: 240_000,
}, async () => {
  const config = loadConfig({});
  // every other role's account (deployer, operator, fee recipient, relayers, demo traders and the rest)
  const others = Object.values(config.keys)
    .flat()
    .filter((k) => k !== config.keys.funding)
    .map((k) => k.address);
  assert.ok(!others.includes(config.keys.funding.address));
  const f = await startFixture({ traders: 1 });
  try {
    const deployerKey = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80" as Hex;
    const funding = await deploySandboxFunding(
      { chainId: f.chainId, rpcUrl: f.chain.rpcUrl, deployerKey, funder: config.keys.funding.address },
      { contracts: { Settlement: f.settlement }, tokens: { USD: { address: f.usd, decimals: 6 } } },
    );
    const read = (address: Address, functionName: string, args: readonly unknown[] = []) =>
      f.client.readContract({ address, abi, functionName, args } as never) as Promise<unknown>;
    const role = (await read(funding, "FUNDER_ROLE")) as Hex;
    assert.equal(await read(funding, "hasRole", [role, config.keys.funding.address]), true);
    assert.equal(
      await read(funding, "hasRole", [`0x${"00".repeat(32)}`, config.keys.funding.address]),
      false,
      "no admin role",
    );
    assert.equal(
      await read(funding, "hasRole", [`0x${"00".repeat(32)}`, privateKeyToAccount(deployerKey).address]),
      true,
      "the deployer administers it",
    );
    assert.equal(await read(f.usd, "balanceOf", [funding]), SANDBOX_FUNDING_RESERVE_UNITS);
    assert.equal(
      await read(f.usd, "owner"),
      privateKeyToAccount(deployerKey).address,
      "the demo token stays the deployer's: the funding key cannot mint",
    );
  } finally {
    await f.stop();
  }
});
