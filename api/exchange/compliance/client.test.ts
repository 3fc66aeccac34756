// The compliance client against a real chain and the real provisioning (scripts/stack/assets.ts): the
// eligibility registry deployed with the asset tokens, the compliance key recording a restricted lot and an
// investor, and the provisioned token refusing then allowing a direct transfer accordingly.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Address, Hex } from "viem";
import { loadConfig } from "../../../config";
import { startFixture } from "../../../pipeline/testing/fixture";
import { deployAssetTokens } from "../../../scripts/stack/assets";
import { CATALOGUE, type AssetToken } from "../assets/catalogue";
import { eligibilityRegistryAbi, assetTokenAbi } from "../../../sdk/abi";
import { createComplianceClient } from "./client";
import { ComplianceError, holdEndSeconds, MAX_LOTS } from "./registry-values";

const DEPLOYER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80" as Hex;
const YEAR_MS = 365 * 86_400_000;

test("hold ends round up to the second; bad lots are refused before anything is sent", () => {
  assert.equal(holdEndSeconds(1_000), 1n);
  assert.equal(holdEndSeconds(1_001), 2n);
  assert.throws(() => holdEndSeconds(-1), ComplianceError);
  assert.throws(() => holdEndSeconds(1.5), ComplianceError);
  const c = createComplianceClient({
    chainId: 31337,
    rpcUrl: "http://127.0.0.1:1",
    complianceKey: DEPLOYER_KEY,
    registry: `0x${"11".repeat(20)}`,
  });
  const token = `0x${"22".repeat(20)}` as Address;
  assert.throws(() => c.recordLots(token, token, 0n, []), /sequence/);
  assert.throws(() => c.recordLots(token, token, 1n << 64n, []), /sequence/);
  assert.throws(() => c.recordLots(token, token, 1n, [{ amountBaseUnits: 0n, holdEndMs: 1 }]), /amount/);
  assert.throws(() => c.recordLots(token, token, 1n, [{ amountBaseUnits: 1n << 192n, holdEndMs: 1 }]), /amount/);
  assert.throws(
    () =>
      c.recordLots(
        token,
        token,
        1n,
        Array.from({ length: MAX_LOTS + 1 }, () => ({ amountBaseUnits: 1n, holdEndMs: 1 })),
      ),
    /at most 64/,
  );
});

test("provisioned Reg D token: the compliance key's lot makes a direct transfer to an ineligible holder fail; recording the holder accredited lets it through", {
  timeout: 240_000,
}, async () => {
  const config = loadConfig({});
  const { compliance, ...rest } = config.keys;
  const others = Object.values(rest).flatMap((k) => (Array.isArray(k) ? k : [k]).map((one) => one.address));
  assert.ok(!others.includes(compliance.address), "the compliance key is its own");
  const f = await startFixture({ traders: 2, withdrawalDelaySec: 0 });
  try {
    const nrth = CATALOGUE.find((a) => a.symbol === "NRTH")!;
    assert.equal(nrth.regime, "reg-d");
    const [seller, buyer] = f.traders;
    const { tokens, registry } = await deployAssetTokens(
      {
        chainId: f.chainId,
        rpcUrl: f.chain.rpcUrl,
        deployerKey: DEPLOYER_KEY,
        settlement: f.settlement,
        holders: [seller.address],
        compliance: config.keys.compliance.address,
      },
      [nrth.token as AssetToken],
    );
    const token = tokens.NRTH.address as Address;
    assert.equal(
      await f.client.readContract({ address: token, abi: assetTokenAbi, functionName: "regime" }),
      1,
      "Reg D",
    );
    assert.equal(
      (await f.client.readContract({ address: token, abi: assetTokenAbi, functionName: "registry" })).toLowerCase(),
      registry.toLowerCase(),
    );
    const role = await f.client.readContract({
      address: registry,
      abi: eligibilityRegistryAbi,
      functionName: "COMPLIANCE_ROLE",
    });
    assert.equal(
      await f.client.readContract({
        address: registry,
        abi: eligibilityRegistryAbi,
        functionName: "hasRole",
        args: [role, config.keys.compliance.address],
      }),
      true,
    );
    assert.equal(
      await f.client.readContract({
        address: registry,
        abi: eligibilityRegistryAbi,
        functionName: "hasRole",
        args: [`0x${"00".repeat(32)}`, config.keys.compliance.address],
      }),
      false,
      "no admin role",
    );

    const compliance = createComplianceClient({
      chainId: f.chainId,
      rpcUrl: f.chain.rpcUrl,
      complianceKey: config.keys.compliance.privateKey,
      registry,
    });
    const seed = await f.balanceOf(seller.address, token);
    assert.ok(seed > 0n);
    await compliance.recordLots(token, seller.address, 1n, [
      { amountBaseUnits: seed, holdEndMs: Date.now() + YEAR_MS },
    ]);
    assert.deepEqual(await compliance.holding(token, seller.address), { restricted: seed, free: 0n });
    // a replayed record is refused, named
    await assert.rejects(
      compliance.recordLots(token, seller.address, 1n, []),
      (e: unknown) => e instanceof ComplianceError && e.revert === "EligibilityLotsStale",
    );
    // another key (the funding key) cannot write
    const notCompliance = createComplianceClient({
      chainId: f.chainId,
      rpcUrl: f.chain.rpcUrl,
      complianceKey: config.keys.funding.privateKey,
      registry,
    });
    await assert.rejects(
      notCompliance.recordInvestor(seller.address, { accreditation: "verified506c", usPerson: false }),
      (e: unknown) => e instanceof ComplianceError && e.revert === "AccessControlUnauthorizedAccount",
    );

    // the seller takes the lot out of Settlement (its own units: allowed) and sends it straight to the buyer
    await f.write(seller, f.settlement, "requestWithdrawal", [token, seed]);
    await f.write(seller, f.settlement, "executeWithdrawal", [token]);
    await assert.rejects(
      f.write(seller, token, "transfer", [buyer.address, 1n], "token"),
      /EligibilityTransferRestricted|revert/,
    );
    await compliance.recordInvestor(buyer.address, { accreditation: "selfCertified506b", usPerson: true });
    await f.write(seller, token, "transfer", [buyer.address, seed], "token");
    assert.deepEqual(
      await compliance.holding(token, buyer.address),
      { restricted: seed, free: 0n },
      "the lot keeps its hold at the buyer",
    );
  } finally {
    await f.stop();
  }
});
