// Restricted lots inside Settlement (issue #26): a trade moves units between internal balances, which no token
// hook sees, so `settle` reports every fill of a restricted token to the eligibility registry. A fill that would
// give restricted units to a buyer the regime does not exempt reverts the batch with an error naming the buy
// order (the operator drops that order and settles the rest); an exempt buyer receives the lots with their hold
// ends, so the units stay restricted in its hands, on chain, whoever sends them next.
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import {
  Accreditation,
  deployFixture,
  deployRegistry,
  ENCODINGS,
  ETH,
  USD,
  fill,
  lotPairs,
  orderFor,
  OrderSide,
  Regime,
  settle,
  signed,
  useEncoding,
  type Untyped,
} from "./fixtures";

/** 100 USD a unit; the smallest step a test adds: 0.01 unit (1 USD, above the contract's minimum fill) */
const PRICE = 100n * USD;
const STEP = 10n ** 16n;

async function restrictedFixture() {
  const f = await deployFixture();
  const compliance = f.signers[7];
  const { registry, tokens, holdEnd } = await deployRegistry(f, compliance);
  const settlementAddress = await f.settlement.getAddress();
  // bob (the seller) holds 150 of each inside Settlement: 100 in a lot whose hold ends in a year, 50 free
  for (const [name, t] of Object.entries(tokens)) {
    await t.mint(f.bob.address, 150n * ETH);
    await t.connect(f.bob).approve(settlementAddress, ethers.MaxUint256);
    await f.settlement.connect(f.bob).deposit(await t.getAddress(), 150n * ETH);
    if (name !== "free") {
      await f.settlement.setRestrictedToken(await t.getAddress());
      await registry
        .connect(compliance)
        .recordLots(await t.getAddress(), f.bob.address, 1n, [{ amount: 100n * ETH, holdEnd }]);
    }
  }
  // alice (USD in Settlement) is unrecorded: not accredited, a US person; carol is a verified accredited investor
  await registry.connect(compliance).recordInvestor(f.carol.address, Accreditation.Verified506c, false);
  return { ...f, registry, tokens, compliance, holdEnd };
}
type F = Awaited<ReturnType<typeof restrictedFixture>>;

/** A sell of `amount` by bob and a buy by `buyer` (a signer with a key in f.keys) of token `t`, and their fill. */
async function trade(f: F, t: Untyped, buyer: "alice" | "carol", amount: bigint) {
  const baseToken = await t.getAddress();
  const sell = await signed(
    f,
    f.keys.bob,
    await orderFor(f, f.bob.address as `0x${string}`, OrderSide.SELL, amount, PRICE, { baseToken }),
  );
  const buy = await signed(
    f,
    f.keys[buyer],
    await orderFor(f, f[buyer].address as `0x${string}`, OrderSide.BUY, amount, PRICE, { baseToken }),
  );
  return { sell, buy, fills: [fill(sell, buy, amount, PRICE)] };
}

/** Settles `trade(f, t, buyer, amount)` alone: the settle transaction's promise. */
async function settleTrade(f: F, t: Untyped, buyer: "alice" | "carol", amount: bigint) {
  const x = await trade(f, t, buyer, amount);
  return settle(f, [x.sell, x.buy], x.fills);
}

const refusedFill = (f: F, tx: Promise<unknown>) =>
  expect(tx).to.be.revertedWithCustomError(f.settlement, "SettlementRestrictedFillRefused");

for (const encoding of ENCODINGS) {
  describe(`Settlement: restricted fills (${encoding})`, () => {
    beforeEach(() => useEncoding(encoding));

    it("refuses a fill that gives restricted units to an ineligible buyer, naming the buy order; the free units pass", async () => {
      const f = await loadFixture(restrictedFixture);
      for (const t of [f.tokens.regD, f.tokens.regCF, f.tokens.regS]) {
        const over = await trade(f, t, "alice", 50n * ETH + STEP);
        await expect(settle(f, [over.sell, over.buy], over.fills))
          .to.be.revertedWithCustomError(f.settlement, "SettlementRestrictedFillRefused")
          .withArgs(over.buy.hash, f.alice.address, await t.getAddress(), 50n * ETH + STEP);
        // exactly the free units: anyone may buy them
        const free = await trade(f, t, "alice", 50n * ETH);
        await settle(f, [free.sell, free.buy], free.fills);
        expect(await f.settlement.balanceOf(f.alice.address, await t.getAddress())).to.be.greaterThan(0n);
        expect(await f.registry.restrictedOf(await t.getAddress(), f.alice.address)).to.equal(0n);
        // and nothing more: the next unit is restricted
        await refusedFill(f, settleTrade(f, t, "alice", STEP));
      }
    });

    it("counts the units a seller already sold in the same batch: two fills within the free units each, above them together", async () => {
      const f = await loadFixture(restrictedFixture);
      const t = f.tokens.regD;
      const a = await trade(f, t, "alice", 30n * ETH);
      const b = await trade(f, t, "alice", 30n * ETH);
      await expect(settle(f, [a.sell, a.buy, b.sell, b.buy], [...a.fills, ...b.fills]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementRestrictedFillRefused")
        .withArgs(b.buy.hash, f.alice.address, await t.getAddress(), 30n * ETH);
    });

    it("checks each fill of a batch that mixes a free pair with a restricted one (the free one never asks the registry)", async () => {
      const f = await loadFixture(restrictedFixture);
      const free = await trade(f, f.tokens.free, "alice", 150n * ETH);
      const over = await trade(f, f.tokens.regD, "alice", 60n * ETH);
      await expect(settle(f, [free.sell, free.buy, over.sell, over.buy], [...free.fills, ...over.fills]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementRestrictedFillRefused")
        .withArgs(over.buy.hash, f.alice.address, await f.tokens.regD.getAddress(), 60n * ETH);
      const ok = await trade(f, f.tokens.regD, "alice", 50n * ETH);
      await settle(f, [free.sell, free.buy, ok.sell, ok.buy], [...free.fills, ...ok.fills]);
      expect(await f.settlement.balanceOf(f.alice.address, await f.tokens.free.getAddress())).to.be.greaterThan(0n);
    });

    it("gives an exempt buyer the lots with their hold ends: restricted in its hands, so it cannot pass them on to an ineligible holder", async () => {
      const f = await loadFixture(restrictedFixture);
      const t = f.tokens.regD;
      const token = await t.getAddress();
      const x = await trade(f, t, "carol", 80n * ETH);
      await expect(settle(f, [x.sell, x.buy], x.fills))
        .to.emit(f.registry, "RestrictedLotsMoved")
        .withArgs(token, f.bob.address, f.carol.address, 30n * ETH);
      expect(await f.registry.restrictedOf(token, f.carol.address)).to.equal(30n * ETH);
      expect(await f.registry.restrictedOf(token, f.bob.address)).to.equal(70n * ETH);
      expect(lotPairs(await f.registry.receivedLotsOf(token, f.carol.address))).to.deep.equal([[30n * ETH, f.holdEnd]]);
      // carol withdraws all (80 less the taker fee) and tries to pass them to alice on chain: the restricted part is refused
      const held = await f.settlement.balanceOf(f.carol.address, token);
      await f.settlement.connect(f.carol).requestWithdrawal(token, held);
      await time.increase(3601);
      await f.settlement.connect(f.carol).executeWithdrawal(token);
      await expect(t.connect(f.carol).transfer(f.alice.address, held)).to.be.revertedWithCustomError(
        f.registry,
        "EligibilityTransferRestricted",
      );
      await t.connect(f.carol).transfer(f.alice.address, held - 30n * ETH);
    });

    it("decides at the moment of settlement: a buyer who lost accreditation is refused, one who gained it is served", async () => {
      const f = await loadFixture(restrictedFixture);
      const t = f.tokens.regCF;
      await f.registry.connect(f.compliance).recordInvestor(f.carol.address, Accreditation.None, false);
      await refusedFill(f, settleTrade(f, t, "carol", 60n * ETH));
      await f.registry.connect(f.compliance).recordInvestor(f.alice.address, Accreditation.SelfCertified506b, false);
      await settleTrade(f, t, "alice", 60n * ETH);
      expect(await f.registry.restrictedOf(await t.getAddress(), f.alice.address)).to.equal(10n * ETH);
    });

    it("Reg S: a non-US buyer is exempt, an accredited US buyer is not", async () => {
      const f = await loadFixture(restrictedFixture);
      const t = f.tokens.regS;
      await refusedFill(f, settleTrade(f, t, "carol", 60n * ETH));
      await f.registry.connect(f.compliance).recordInvestor(f.alice.address, Accreditation.None, true);
      await settleTrade(f, t, "alice", 60n * ETH);
    });

    it("frees a lot at its hold end (refused one second before), and never asks the registry about a token the admin did not restrict", async () => {
      const f = await loadFixture(restrictedFixture);
      const free = await trade(f, f.tokens.free, "alice", 150n * ETH);
      await expect(settle(f, [free.sell, free.buy], free.fills)).not.to.emit(f.registry, "RestrictedLotsMoved");
      await time.increaseTo(f.holdEnd - 2n);
      const later = await trade(f, f.tokens.regD, "alice", 150n * ETH);
      await time.setNextBlockTimestamp(f.holdEnd - 1n);
      await refusedFill(f, settle(f, [later.sell, later.buy], later.fills));
      await time.setNextBlockTimestamp(f.holdEnd);
      await settle(f, [later.sell, later.buy], later.fills);
    });
  });
}

describe("Settlement: naming restricted tokens", () => {
  it("reads the registry and regime from the token, admin only, once, never for a free token or another Settlement's registry", async () => {
    const f = await loadFixture(restrictedFixture);
    const regD = await f.tokens.regD.getAddress();
    expect(await f.settlement.restrictedToken(regD)).to.deep.equal([
      await f.registry.getAddress(),
      BigInt(Regime.RegD),
    ]);
    expect(await f.settlement.restrictedToken(await f.weth.getAddress())).to.deep.equal([ethers.ZeroAddress, 0n]);
    await expect(f.settlement.setRestrictedToken(regD)).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementTokenAlreadyRestricted",
    );
    const Token = await ethers.getContractFactory("AssetToken");
    const other = (await Token.deploy("O", "O", 18, await f.registry.getAddress(), Regime.RegD)) as Untyped;
    await expect(
      f.settlement.connect(f.operator).setRestrictedToken(await other.getAddress()),
    ).to.be.revertedWithCustomError(f.settlement, "AccessControlUnauthorizedAccount");
    await expect(f.settlement.setRestrictedToken(await f.tokens.free.getAddress())).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementTokenNotRestricted",
    );
    const Registry = await ethers.getContractFactory("EligibilityRegistry");
    const foreign = (await Registry.deploy(f.admin.address, f.compliance.address, f.feeSink.address)) as Untyped;
    const stray = (await Token.deploy("S", "S", 18, await foreign.getAddress(), Regime.RegD)) as Untyped;
    await expect(f.settlement.setRestrictedToken(await stray.getAddress())).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementRegistryMismatch",
    );
    await expect(f.settlement.setRestrictedToken(await other.getAddress()))
      .to.emit(f.settlement, "RestrictedTokenSet")
      .withArgs(await other.getAddress(), await f.registry.getAddress(), Regime.RegD);
  });

  it("takes settlement reports from Settlement only", async () => {
    const f = await loadFixture(restrictedFixture);
    await expect(
      f.registry
        .connect(f.operator)
        .checkSettlementTransfer(await f.tokens.regD.getAddress(), f.bob.address, f.alice.address, ETH, Regime.RegD),
    )
      .to.be.revertedWithCustomError(f.registry, "EligibilityCallerNotSettlement")
      .withArgs(f.operator.address);
  });
});
