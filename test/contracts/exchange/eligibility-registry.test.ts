// The on-chain resale rules (issue #15): EligibilityRegistry and the AssetToken transfer hook. A restricted lot
// moved by a direct transfer (bypassing the exchange API) goes only to a recipient the regime exempts; the
// rest is free; after the hold everything is free; only the compliance key writes the registry.
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { Accreditation, deployFixture, deployRegistry, DELAY, lotPairs, ETH, Regime, type Untyped } from "./fixtures";

async function registryFixture() {
  const f = await deployFixture();
  const [, , , , , , , compliance, erin, frank] = f.signers;
  const { registry, tokens, holdEnd } = await deployRegistry(f, compliance);
  // alice holds 150 of each: 100 in a restricted lot (hold ends in a year), 50 free
  for (const t of Object.values(tokens)) {
    await t.mint(f.alice.address, 150n * ETH);
    await registry
      .connect(compliance)
      .recordLots(await t.getAddress(), f.alice.address, 1n, [{ amount: 100n * ETH, holdEnd }]);
  }
  return { ...f, registry, tokens, compliance, erin, frank, holdEnd };
}
type F = Awaited<ReturnType<typeof registryFixture>>;

/** The registry fixture, one of its tokens and that token's address. */
async function withToken(name: keyof F["tokens"]) {
  const f = await loadFixture(registryFixture);
  const t = f.tokens[name];
  return { f, t, token: await t.getAddress() };
}

const refused = (f: F, tx: Promise<unknown>) =>
  expect(tx).to.be.revertedWithCustomError(f.registry, "EligibilityTransferRestricted");

describe("EligibilityRegistry and AssetToken", () => {
  it("refuses a direct transfer of a restricted lot to an unrecorded (ineligible) holder, in every regime with a hold", async () => {
    const f = await loadFixture(registryFixture);
    for (const t of [f.tokens.regD, f.tokens.regCF, f.tokens.regS]) {
      await expect(t.connect(f.alice).transfer(f.bob.address, 51n * ETH))
        .to.be.revertedWithCustomError(f.registry, "EligibilityTransferRestricted")
        .withArgs(await t.getAddress(), f.alice.address, f.bob.address, 51n * ETH, 50n * ETH);
      // transferFrom by an approved spender is the same transfer
      await t.connect(f.alice).approve(f.carol.address, ethers.MaxUint256);
      await refused(f, t.connect(f.carol).transferFrom(f.alice.address, f.bob.address, 51n * ETH));
      expect(await t.balanceOf(f.bob.address)).to.equal(0n);
    }
  });

  it("lets the free units go to anyone: exactly the free amount passes, one unit more does not", async () => {
    const f = await loadFixture(registryFixture);
    const t = f.tokens.regD;
    expect(await f.registry.freeOf(await t.getAddress(), f.alice.address)).to.equal(50n * ETH);
    await t.connect(f.alice).transfer(f.bob.address, 50n * ETH);
    await refused(f, t.connect(f.alice).transfer(f.bob.address, 1n));
    expect(await f.registry.restrictedOf(await t.getAddress(), f.alice.address)).to.equal(100n * ETH);
  });

  const exemptions: {
    name: string;
    token: keyof F["tokens"];
    accreditation: number;
    nonUS: boolean;
    allowed: boolean;
  }[] = [
    {
      name: "Reg D to a self-certified (506b) accredited investor",
      token: "regD",
      accreditation: Accreditation.SelfCertified506b,
      nonUS: false,
      allowed: true,
    },
    {
      name: "Reg D to a verified (506c) accredited investor",
      token: "regD",
      accreditation: Accreditation.Verified506c,
      nonUS: false,
      allowed: true,
    },
    {
      name: "Reg D to a non-accredited non-US investor",
      token: "regD",
      accreditation: Accreditation.None,
      nonUS: true,
      allowed: false,
    },
    {
      name: "Reg CF to an accredited investor",
      token: "regCF",
      accreditation: Accreditation.SelfCertified506b,
      nonUS: false,
      allowed: true,
    },
    {
      name: "Reg CF to a non-accredited non-US investor",
      token: "regCF",
      accreditation: Accreditation.None,
      nonUS: true,
      allowed: false,
    },
    {
      name: "Reg S to a non-US investor",
      token: "regS",
      accreditation: Accreditation.None,
      nonUS: true,
      allowed: true,
    },
    {
      name: "Reg S to an accredited US investor",
      token: "regS",
      accreditation: Accreditation.Verified506c,
      nonUS: false,
      allowed: false,
    },
  ];
  for (const c of exemptions) {
    it(`${c.allowed ? "allows" : "refuses"} a restricted lot: ${c.name}`, async () => {
      const f = await loadFixture(registryFixture);
      const t = f.tokens[c.token];
      await f.registry.connect(f.compliance).recordInvestor(f.bob.address, c.accreditation, c.nonUS);
      if (!c.allowed) return refused(f, t.connect(f.alice).transfer(f.bob.address, 120n * ETH));
      // 50 free units first, then 70 of the restricted lot, which keeps its hold end at the recipient
      await expect(t.connect(f.alice).transfer(f.bob.address, 120n * ETH))
        .to.emit(f.registry, "RestrictedLotsMoved")
        .withArgs(await t.getAddress(), f.alice.address, f.bob.address, 70n * ETH);
      const token = await t.getAddress();
      expect(lotPairs(await f.registry.lotsOf(token, f.bob.address))).to.deep.equal([[70n * ETH, f.holdEnd]]);
      expect(await f.registry.restrictedOf(token, f.alice.address)).to.equal(30n * ETH);
      expect(await f.registry.freeOf(token, f.alice.address)).to.equal(0n);
      // the exempt recipient is no conduit: the lot stays restricted in its hands (its 50 free units are free)
      expect(await f.registry.freeOf(token, f.bob.address)).to.equal(50n * ETH);
      await refused(f, t.connect(f.bob).transfer(f.carol.address, 50n * ETH + 1n));
    });
  }

  it("keeps received lots apart from recorded ones: a record never frees a lot received by transfer, even with the same hold end", async () => {
    const { f, t, token } = await withToken("regCF");
    await f.registry.connect(f.compliance).recordInvestor(f.bob.address, Accreditation.SelfCertified506b, false);
    await t.connect(f.alice).transfer(f.bob.address, 120n * ETH); // 50 free + 70 of alice's lot
    // bob bought on the exchange in the same second as alice's lot: his recorded lot has the very same hold end
    await t.mint(f.bob.address, 10n * ETH);
    await f.registry
      .connect(f.compliance)
      .recordLots(token, f.bob.address, 1n, [{ amount: 10n * ETH, holdEnd: f.holdEnd }]);
    expect(lotPairs(await f.registry.recordedLotsOf(token, f.bob.address))).to.deep.equal([[10n * ETH, f.holdEnd]]);
    expect(lotPairs(await f.registry.receivedLotsOf(token, f.bob.address))).to.deep.equal([[70n * ETH, f.holdEnd]]);
    expect(lotPairs(await f.registry.lotsOf(token, f.bob.address))).to.deep.equal([
      [10n * ETH, f.holdEnd],
      [70n * ETH, f.holdEnd],
    ]);
    expect(await f.registry.restrictedOf(token, f.bob.address)).to.equal(80n * ETH);
    // a later record (his exchange lot sold) empties only the recorded list
    await f.registry.connect(f.compliance).recordLots(token, f.bob.address, 2n, []);
    expect(await f.registry.restrictedOf(token, f.bob.address)).to.equal(70n * ETH);
    expect(await f.registry.freeOf(token, f.bob.address)).to.equal(60n * ETH);
    await refused(f, t.connect(f.bob).transfer(f.carol.address, 60n * ETH + 1n));
  });

  it("moves the earliest hold end first across recorded and received lots; a transfer to oneself moves nothing", async () => {
    const { f, t, token } = await withToken("regD");
    const c = f.registry.connect(f.compliance);
    for (const who of [f.bob, f.carol]) await c.recordInvestor(who.address, Accreditation.Verified506c, false);
    // bob: a recorded lot ending late, a received one (from alice) ending earlier
    await t.connect(f.alice).transfer(f.bob.address, 80n * ETH); // 50 free + 30 restricted (f.holdEnd)
    await t.mint(f.bob.address, 40n * ETH);
    await c.recordLots(token, f.bob.address, 1n, [{ amount: 40n * ETH, holdEnd: f.holdEnd + 100n }]);
    expect(await f.registry.freeOf(token, f.bob.address)).to.equal(50n * ETH);
    await t.connect(f.bob).transfer(f.bob.address, 120n * ETH);
    expect(await f.registry.restrictedOf(token, f.bob.address)).to.equal(70n * ETH);
    // 50 free, then 30 of the received lot (earlier), then 5 of the recorded one
    await t.connect(f.bob).transfer(f.carol.address, 85n * ETH);
    expect(lotPairs(await f.registry.receivedLotsOf(token, f.carol.address))).to.deep.equal([
      [30n * ETH, f.holdEnd],
      [5n * ETH, f.holdEnd + 100n],
    ]);
    expect(lotPairs(await f.registry.recordedLotsOf(token, f.bob.address))).to.deep.equal([
      [35n * ETH, f.holdEnd + 100n],
    ]);
    expect(lotPairs(await f.registry.receivedLotsOf(token, f.bob.address))).to.deep.equal([]);
  });

  it("frees the lot when its hold ends: refused one second before, allowed at the hold end", async () => {
    const f = await loadFixture(registryFixture);
    const t = f.tokens.regD;
    await time.setNextBlockTimestamp(f.holdEnd - 1n);
    await refused(f, t.connect(f.alice).transfer(f.bob.address, 51n * ETH));
    await time.setNextBlockTimestamp(f.holdEnd);
    await t.connect(f.alice).transfer(f.bob.address, 150n * ETH);
    expect(await t.balanceOf(f.bob.address)).to.equal(150n * ETH);
    expect(await f.registry.restrictedOf(await t.getAddress(), f.alice.address)).to.equal(0n);
  });

  it("never consults the registry for a free regime (Reg A, retail), and refuses a restricted regime without one", async () => {
    const f = await loadFixture(registryFixture);
    await f.tokens.free.connect(f.alice).transfer(f.bob.address, 150n * ETH);
    const Token = await ethers.getContractFactory("AssetToken");
    const unregistered = (await Token.deploy("X", "X", 18, ethers.ZeroAddress, Regime.Free)) as Untyped;
    await unregistered.mint(f.alice.address, 1n);
    await unregistered.connect(f.alice).transfer(f.bob.address, 1n);
    await expect(Token.deploy("X", "X", 18, ethers.ZeroAddress, Regime.RegD)).to.be.revertedWithCustomError(
      Token,
      "AssetTokenRegistryMissing",
    );
  });

  it("refuses writes from anyone but the compliance key, the admin included", async () => {
    const f = await loadFixture(registryFixture);
    const token = await f.tokens.regD.getAddress();
    for (const who of [f.admin, f.alice, f.operator]) {
      await expect(
        f.registry.connect(who).recordInvestor(who.address, Accreditation.Verified506c, true),
      ).to.be.revertedWithCustomError(f.registry, "AccessControlUnauthorizedAccount");
      await expect(f.registry.connect(who).recordLots(token, f.alice.address, 2n, [])).to.be.revertedWithCustomError(
        f.registry,
        "AccessControlUnauthorizedAccount",
      );
    }
    const role = await f.registry.COMPLIANCE_ROLE();
    expect(await f.registry.hasRole(role, f.compliance.address)).to.equal(true);
    expect(await f.registry.hasRole(ethers.ZeroHash, f.compliance.address)).to.equal(false);
    // the compliance key cannot hand its power on
    await expect(f.registry.connect(f.compliance).grantRole(role, f.bob.address)).to.be.revertedWithCustomError(
      f.registry,
      "AccessControlUnauthorizedAccount",
    );
  });

  it("a contract calling checkTransfer itself touches only its own lots", async () => {
    const f = await loadFixture(registryFixture);
    const token = await f.tokens.regD.getAddress();
    await f.registry.connect(f.alice).checkTransfer(f.alice.address, f.bob.address, 150n * ETH, Regime.RegD);
    expect(await f.registry.restrictedOf(token, f.alice.address)).to.equal(100n * ETH);
  });

  it("records lots by sequence: a replayed or older record is refused, a newer one replaces, expired lots are left out", async () => {
    const f = await loadFixture(registryFixture);
    const token = await f.tokens.regD.getAddress();
    const c = f.registry.connect(f.compliance);
    await expect(c.recordLots(token, f.alice.address, 1n, []))
      .to.be.revertedWithCustomError(f.registry, "EligibilityLotsStale")
      .withArgs(token, f.alice.address, 1n, 1n);
    const now = BigInt(await time.latest());
    await c.recordLots(token, f.alice.address, 5n, [
      { amount: 7n, holdEnd: now },
      { amount: 9n, holdEnd: f.holdEnd },
    ]);
    expect((await f.registry.lotsOf(token, f.alice.address)).map((l: Untyped) => l.amount)).to.deep.equal([9n]);
    await expect(c.recordLots(token, f.alice.address, 4n, [])).to.be.revertedWithCustomError(
      f.registry,
      "EligibilityLotsStale",
    );
    await expect(c.recordLots(token, f.alice.address, 6n, [{ amount: 0n, holdEnd: f.holdEnd }]))
      .to.be.revertedWithCustomError(f.registry, "EligibilityLotInvalid")
      .withArgs(0n);
  });

  it("keeps at most MAX_LOTS (64) lots per holder and token: 64 pass, 65 are refused", async () => {
    const f = await loadFixture(registryFixture);
    const token = await f.tokens.regD.getAddress();
    const lots = (n: number) => Array.from({ length: n }, (_, i) => ({ amount: 1n, holdEnd: f.holdEnd + BigInt(i) }));
    await f.registry.connect(f.compliance).recordLots(token, f.bob.address, 1n, lots(64));
    await expect(f.registry.connect(f.compliance).recordLots(token, f.bob.address, 2n, lots(65)))
      .to.be.revertedWithCustomError(f.registry, "EligibilityTooManyLots")
      .withArgs(token, f.bob.address, 65n, 64n);
  });

  it("keeps at most MAX_LOTS (64) received lots: 64 arrive, the 65th transfer is refused", async () => {
    const { f, t, token } = await withToken("regD");
    const c = f.registry.connect(f.compliance);
    await c.recordInvestor(f.bob.address, Accreditation.Verified506c, false);
    const lots = Array.from({ length: 64 }, (_, i) => ({ amount: 1n, holdEnd: f.holdEnd + BigInt(i) }));
    await c.recordLots(token, f.alice.address, 2n, lots);
    await t.connect(f.alice).transfer(f.bob.address, 150n * ETH); // all its free units and its 64 one-unit lots
    expect((await f.registry.receivedLotsOf(token, f.bob.address)).length).to.equal(64);
    await t.mint(f.dave.address, 1n);
    await c.recordLots(token, f.dave.address, 1n, [{ amount: 1n, holdEnd: f.holdEnd }]);
    await expect(t.connect(f.dave).transfer(f.bob.address, 1n))
      .to.be.revertedWithCustomError(f.registry, "EligibilityTooManyLots")
      .withArgs(token, f.bob.address, 65n, 64n);
  });

  describe("with Settlement (the custodian)", () => {
    async function inSettlement() {
      const f = await registryFixture();
      const t = f.tokens.regD;
      const token = await t.getAddress();
      const settlement = await f.settlement.getAddress();
      // dave's 100 units go into Settlement while free, then become a restricted lot there (a book purchase)
      await t.mint(f.dave.address, 100n * ETH);
      await t.connect(f.dave).approve(settlement, ethers.MaxUint256);
      await f.settlement.connect(f.dave).deposit(token, 100n * ETH);
      await f.registry
        .connect(f.compliance)
        .recordLots(token, f.dave.address, 1n, [{ amount: 100n * ETH, holdEnd: f.holdEnd }]);
      return { ...f, t, token, settlementAddress: settlement };
    }

    it("counts the Settlement balance as its owner's holding: wallet units are free when the lot sits in Settlement", async () => {
      const f = await loadFixture(inSettlement);
      await f.t.mint(f.dave.address, 10n * ETH);
      expect(await f.registry.freeOf(f.token, f.dave.address)).to.equal(10n * ETH);
      await f.t.connect(f.dave).transfer(f.bob.address, 10n * ETH);
    });

    it("lets a withdrawal release the owner's units, and refuses their onward transfer to an ineligible holder", async () => {
      const f = await loadFixture(inSettlement);
      await f.settlement.connect(f.dave).requestWithdrawal(f.token, 100n * ETH);
      await time.increase(DELAY);
      await f.settlement.connect(f.dave).executeWithdrawal(f.token);
      expect(await f.t.balanceOf(f.dave.address)).to.equal(100n * ETH);
      await refused(f, f.t.connect(f.dave).transfer(f.bob.address, 1n));
    });

    it("refuses a deposit credited to someone else (depositFor) that would carry the restricted lot", async () => {
      const f = await loadFixture(inSettlement);
      await f.settlement.connect(f.dave).requestWithdrawal(f.token, 100n * ETH);
      await time.increase(DELAY);
      await f.settlement.connect(f.dave).executeWithdrawal(f.token);
      await f.registry.connect(f.compliance).recordInvestor(f.bob.address, Accreditation.Verified506c, false);
      // not even to an exempt beneficiary: Settlement's ledger does not carry hold ends
      await refused(f, f.settlement.connect(f.dave).depositFor(f.bob.address, f.token, 1n));
      await refused(f, f.settlement.connect(f.dave).deposit(f.token, 1n));
      expect(await f.settlement.balanceOf(f.bob.address, f.token)).to.equal(0n);
    });
  });
});
