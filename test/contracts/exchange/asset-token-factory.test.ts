// AssetTokenFactory (issue #15): the listed assets tokenized in one transaction, each holder's Settlement
// balance seeded, every token handed to the owner, nothing left with the factory.
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { deployFixture, ETH, type Untyped } from "./fixtures";

/** EIP-7825 (Osaka): no transaction may use more gas than this. */
const TX_GAS_CAP = 2n ** 24n;

const spec = (i: number, seed: bigint) => ({
  name: `Asset ${i}`,
  symbol: `AS${i}`,
  decimals: 18,
  seedPerHolder: seed,
  regime: 0,
});

describe("AssetTokenFactory", () => {
  it("deploys every asset token, seeds each holder once per token, hands ownership to the owner", async () => {
    const f = await loadFixture(deployFixture);
    const holders = [f.alice.address, f.bob.address, f.carol.address, f.dave.address];
    const specs = [spec(0, 10n * ETH), spec(1, 0n), { ...spec(2, 7n), decimals: 6 }];
    const Factory = await ethers.getContractFactory("AssetTokenFactory");
    const factory = (await Factory.deploy(
      specs,
      f.admin.address,
      await f.settlement.getAddress(),
      ethers.ZeroAddress,
      holders,
    )) as Untyped;
    const addresses: string[] = await factory.tokens();
    expect(addresses.length).to.equal(3);
    const receipt = await factory.deploymentTransaction()!.wait();
    const deployed = receipt!.logs
      .map((l: Untyped) => factory.interface.parseLog(l))
      .filter((e: Untyped) => e?.name === "AssetTokenDeployed");
    expect(deployed.map((e: Untyped) => [Number(e.args.index), e.args.symbol, e.args.token])).to.deep.equal(
      addresses.map((a, i) => [i, `AS${i}`, a]),
    );
    for (const [i, address] of addresses.entries()) {
      const token = (await ethers.getContractAt("AssetToken", address)) as Untyped;
      expect(await token.symbol()).to.equal(`AS${i}`);
      expect(await token.name()).to.equal(`Asset ${i}`);
      expect(await token.decimals()).to.equal(specs[i].decimals);
      expect(await token.owner()).to.equal(f.admin.address);
      expect(await token.balanceOf(await factory.getAddress())).to.equal(0n);
      expect(await token.totalSupply()).to.equal(specs[i].seedPerHolder * BigInt(holders.length));
      for (const h of holders) expect(await f.settlement.balanceOf(h, address)).to.equal(specs[i].seedPerHolder);
      // the owner mints; the factory, now without ownership, cannot be made to
      await token.connect(f.admin).mint(f.admin.address, 1n);
      await expect(token.connect(f.alice).mint(f.alice.address, 1n)).to.be.revertedWithCustomError(
        token,
        "OwnableUnauthorizedAccount",
      );
    }
  });

  it("refuses a zero owner or Settlement", async () => {
    const f = await loadFixture(deployFixture);
    const Factory = await ethers.getContractFactory("AssetTokenFactory");
    await expect(
      Factory.deploy([spec(0, 1n)], ethers.ZeroAddress, await f.settlement.getAddress(), ethers.ZeroAddress, []),
    ).to.be.revertedWithCustomError(Factory, "AssetTokenFactoryZeroAddress");
    await expect(
      Factory.deploy([spec(0, 1n)], f.admin.address, ethers.ZeroAddress, ethers.ZeroAddress, []),
    ).to.be.revertedWithCustomError(Factory, "AssetTokenFactoryZeroAddress");
  });

  it("a chunk of 8 assets seeded for 4 holders fits one transaction's gas cap", async () => {
    const f = await loadFixture(deployFixture);
    const holders = [f.alice.address, f.bob.address, f.carol.address, f.dave.address];
    const Factory = await ethers.getContractFactory("AssetTokenFactory");
    const factory = (await Factory.deploy(
      Array.from({ length: 8 }, (_, i) => spec(i, 1_000n * ETH)),
      f.admin.address,
      await f.settlement.getAddress(),
      ethers.ZeroAddress,
      holders,
    )) as Untyped;
    const receipt = await factory.deploymentTransaction()!.wait();
    console.log(`      AssetTokenFactory: 8 assets x 4 holders: ${receipt!.gasUsed} gas`);
    expect(receipt!.gasUsed < TX_GAS_CAP).to.equal(true);
  });
});
