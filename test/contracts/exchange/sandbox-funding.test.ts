// SandboxFunding (issue #14): the sandbox bank's reserve of demo USD, credited into Settlement balances by
// the funding key only, once per transfer id; the key has no other power.
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { deployFixture, USD, type Untyped } from "./fixtures";

async function fundingFixture() {
  const f = await deployFixture();
  const [admin] = await ethers.getSigners();
  const funder = (await ethers.getSigners())[11];
  const Funding = await ethers.getContractFactory("SandboxFunding");
  const funding = (await Funding.deploy(
    admin.address,
    await f.settlement.getAddress(),
    await f.usd.getAddress(),
  )) as Untyped;
  await funding.grantRole(await funding.FUNDER_ROLE(), funder.address);
  await f.usd.mint(await funding.getAddress(), 1_000n * USD);
  return { ...f, funding, funder, admin };
}

describe("SandboxFunding", () => {
  it("credits an account's Settlement balance from the reserve, once per transfer id", async () => {
    const f = await loadFixture(fundingFixture);
    const usd = await f.usd.getAddress();
    const id = ethers.id("deposit-1");
    await expect(f.funding.connect(f.funder).credit(id, f.dave.address, 10n * USD))
      .to.emit(f.funding, "Credited")
      .withArgs(id, f.dave.address, 10n * USD)
      .and.to.emit(f.settlement, "Deposited")
      .withArgs(f.dave.address, usd, 10n * USD);
    expect(await f.settlement.balanceOf(f.dave.address, usd)).to.equal(10n * USD);
    expect(await f.funding.credited(id)).to.equal(10n * USD);
    expect(await f.usd.balanceOf(await f.funding.getAddress())).to.equal(990n * USD);
    // the same id again, even for another account or amount: refused, nothing moves
    await expect(f.funding.connect(f.funder).credit(id, f.alice.address, 1n))
      .to.be.revertedWithCustomError(f.funding, "SandboxFundingAlreadyCredited")
      .withArgs(id, 10n * USD);
    expect(await f.settlement.balanceOf(f.dave.address, usd)).to.equal(10n * USD);
    // the whole remaining reserve exactly; one unit more than the reserve fails
    await f.funding.connect(f.funder).credit(ethers.id("deposit-2"), f.dave.address, 990n * USD);
    await expect(f.funding.connect(f.funder).credit(ethers.id("deposit-3"), f.dave.address, 1n)).to.be.reverted;
  });

  it("only the funder credits; zero amount and zero address are refused; the funder holds no admin role", async () => {
    const f = await loadFixture(fundingFixture);
    const id = ethers.id("x");
    for (const who of [f.alice, f.admin]) {
      await expect(f.funding.connect(who).credit(id, who.address, 1n)).to.be.revertedWithCustomError(
        f.funding,
        "AccessControlUnauthorizedAccount",
      );
    }
    await expect(f.funding.connect(f.funder).credit(id, f.dave.address, 0n)).to.be.revertedWithCustomError(
      f.funding,
      "SandboxFundingAmountZero",
    );
    await expect(f.funding.connect(f.funder).credit(id, ethers.ZeroAddress, 1n)).to.be.revertedWithCustomError(
      f.funding,
      "SandboxFundingZeroAddress",
    );
    expect(await f.funding.credited(id)).to.equal(0n);
    expect(await f.funding.hasRole(ethers.ZeroHash, f.funder.address)).to.equal(false);
    await expect(
      f.funding.connect(f.funder).grantRole(await f.funding.FUNDER_ROLE(), f.alice.address),
    ).to.be.revertedWithCustomError(f.funding, "AccessControlUnauthorizedAccount");
    // the demo token's owner is not the funding contract nor the funder: no mint through here
    expect(await f.usd.owner()).to.equal(f.admin.address);
  });

  it("refuses zero addresses at construction", async () => {
    const f = await loadFixture(fundingFixture);
    const Funding = await ethers.getContractFactory("SandboxFunding");
    await expect(
      Funding.deploy(ethers.ZeroAddress, await f.settlement.getAddress(), await f.usd.getAddress()),
    ).to.be.revertedWithCustomError(f.funding, "SandboxFundingZeroAddress");
  });
});
