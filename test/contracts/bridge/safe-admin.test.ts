// The admin and guardian of the bridge contracts is a Safe (v1.5.0 artifacts from npm) driven with
// @safe-global/protocol-kit: a 2-of-3 Safe pauses the vault and disputes a release; one owner's signature is not
// enough; a non-Safe caller is refused. Safe deployment reuses scripts/deploy-bridge.ts on Hardhat's provider.
import { expect } from "chai";
import fs from "node:fs";
import { ethers, network } from "hardhat";
import { time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import SafeKit from "@safe-global/protocol-kit";
import { encodeFunctionData, type Hex } from "viem";
import {
  createDeployClients,
  deploySafe,
  deploySafeContracts,
  toContractNetworks,
} from "../../../scripts/deploy-bridge";
import { getBridgeMessageDigest } from "../../../sdk/bridge-message";
import { createFrostGroup, frostSign } from "./helpers/frost";
import { CHALLENGE_PERIOD_SEC } from "./helpers/bridge";

const MNEMONIC = "test test test test test test test test test test test junk";
const keyOf = (i: number) =>
  ethers.HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`).privateKey as Hex;

describe("Safe as admin and guardian (protocol-kit)", function () {
  this.timeout(120_000);
  let safeAddress: string;
  let contractNetworks: ReturnType<typeof toContractNetworks>;
  let vault: any;
  let token: any;
  let minterStandIn: any;
  const group = createFrostGroup();
  const owners = [1, 2, 3].map(keyOf);

  before(async () => {
    const clients = await createDeployClients(network.provider as never, keyOf(0));
    const safeContracts = await deploySafeContracts(clients);
    contractNetworks = toContractNetworks(clients.chainId, safeContracts);
    const ownerAddresses = owners.map((k) => new ethers.Wallet(k).address as Hex);
    safeAddress = await deploySafe(clients, safeContracts, ownerAddresses, 2, String(Date.now()));

    const chainId = (await ethers.provider.getNetwork()).chainId;
    const verifier = await (await ethers.getContractFactory("BridgeFrostVerifier")).deploy(
      1n,
      group.publicKey.x,
      group.publicKey.y,
    );
    vault = await (await ethers.getContractFactory("BridgeVault")).deploy(
      safeAddress,
      await verifier.getAddress(),
      chainId,
      ethers.ZeroAddress,
      CHALLENGE_PERIOD_SEC,
    );
    token = await (await ethers.getContractFactory("BridgeTestToken")).deploy("Demo USD", "USD", 6);
    minterStandIn = ethers.Wallet.createRandom();
    // configure through the Safe: setMinter + configureToken in one MultiSend batch
    const [s1, s2] = await Promise.all(owners.slice(0, 2).map((k) => kitFor(k)));
    const batch = await s1.createTransaction({
      transactions: [
        {
          to: await vault.getAddress(),
          value: "0",
          data: vault.interface.encodeFunctionData("setMinter", [minterStandIn.address]),
        },
        {
          to: await vault.getAddress(),
          value: "0",
          data: vault.interface.encodeFunctionData("configureToken", [
            await token.getAddress(),
            true,
            10n ** 12n,
            10n ** 12n,
            10n ** 12n,
            86_400,
          ]),
        },
      ],
    });
    await execute(s2, await s1.signTransaction(batch));
    expect((await vault.wiring()).minter).to.equal(minterStandIn.address);
  });

  async function kitFor(privateKey: Hex) {
    return SafeKit.init({ provider: network.provider as never, signer: privateKey, safeAddress, contractNetworks });
  }
  async function execute(kit: any, signedByOne: any) {
    const signedByTwo = await kit.signTransaction(signedByOne);
    const result = await kit.executeTransaction(signedByTwo);
    const receipt = await ethers.provider.getTransactionReceipt(result.hash);
    expect(receipt?.status).to.equal(1);
  }

  it("the Safe holds the admin and guardian roles; the deployer holds none", async () => {
    const [deployer] = await ethers.getSigners();
    expect(await vault.hasRole(ethers.ZeroHash, safeAddress)).to.equal(true);
    expect(await vault.hasRole(await vault.GUARDIAN_ROLE(), safeAddress)).to.equal(true);
    expect(await vault.hasRole(ethers.ZeroHash, deployer.address)).to.equal(false);
    const kit = await kitFor(owners[0]);
    expect(await kit.getThreshold()).to.equal(2);
    expect((await kit.getOwners()).length).to.equal(3);
  });

  it("a non-Safe caller (even a Safe owner) cannot pause", async () => {
    const ownerWallet = new ethers.Wallet(owners[0], ethers.provider);
    await expect(vault.connect(ownerWallet).pause()).to.be.revertedWithCustomError(
      vault,
      "BridgeVaultCallerNotGuardian",
    );
  });

  it("one owner's signature is not enough: protocol-kit refuses, and so does the Safe on chain (GS020)", async () => {
    const kit = await kitFor(owners[0]);
    const tx = await kit.createTransaction({
      transactions: [
        { to: await vault.getAddress(), value: "0", data: vault.interface.encodeFunctionData("pause", []) },
      ],
    });
    const signed = await kit.signTransaction(tx);
    const outcome = await kit.executeTransaction(signed).then(
      () => "executed",
      (e: Error) => e.message,
    );
    expect(outcome).to.match(/signature missing/);
    const safeAbi = JSON.parse(
      fs.readFileSync(
        require.resolve("@safe-global/safe-smart-account/build/artifacts/contracts/SafeL2.sol/SafeL2.json"),
        "utf8",
      ),
    ).abi;
    const safe = new ethers.Contract(safeAddress, safeAbi, new ethers.Wallet(owners[0], ethers.provider));
    const d = signed.data;
    await expect(
      safe.execTransaction(
        d.to,
        d.value,
        d.data,
        d.operation,
        d.safeTxGas,
        d.baseGas,
        d.gasPrice,
        d.gasToken,
        d.refundReceiver,
        signed.encodedSignatures(),
      ),
    ).to.be.revertedWith("GS020");
    expect((await vault.core()).paused).to.equal(false);
  });

  it("2 of 3 owners dispute a queued release through protocol-kit", async () => {
    const [, , , , relayer] = await ethers.getSigners();
    await token.mint(await vault.getAddress(), 1_000n); // funds as if deposited
    const chainId = (await ethers.provider.getNetwork()).chainId;
    const m = {
      kind: 1 as const,
      srcChainId: chainId,
      srcContract: minterStandIn.address as Hex,
      dstChainId: chainId,
      dstContract: (await vault.getAddress()) as Hex,
      nonce: 1n,
      token: (await token.getAddress()) as Hex,
      recipient: relayer.address as Hex,
      amountWei: 700n,
      keyEpoch: 1n,
    };
    await vault
      .connect(relayer)
      .queueRelease(1n, m.token, m.recipient, 700n, frostSign(group, getBridgeMessageDigest(m)), "0x");
    const [k1, k3] = await Promise.all([kitFor(owners[0]), kitFor(owners[2])]);
    const data = encodeFunctionData({
      abi: [
        {
          type: "function",
          name: "disputeRelease",
          inputs: [{ name: "burnNonce", type: "uint64" }],
          outputs: [],
          stateMutability: "nonpayable",
        },
      ],
      functionName: "disputeRelease",
      args: [1n],
    });
    const tx = await k1.createTransaction({ transactions: [{ to: await vault.getAddress(), value: "0", data }] });
    await execute(k3, await k1.signTransaction(tx));
    expect((await vault.getRelease(1n)).status).to.equal(2n);
    await time.increase(CHALLENGE_PERIOD_SEC);
    await expect(vault.executeRelease(1n, m.token, m.recipient, 700n)).to.be.revertedWithCustomError(
      vault,
      "BridgeVaultReleaseDisputed",
    );
    expect(await token.balanceOf(relayer.address)).to.equal(0n);
  });

  it("2 of 3 owners pause the vault through protocol-kit; deposits stop", async () => {
    const [k2, k3] = await Promise.all([kitFor(owners[1]), kitFor(owners[2])]);
    const tx = await k2.createTransaction({
      transactions: [
        { to: await vault.getAddress(), value: "0", data: vault.interface.encodeFunctionData("pause", []) },
      ],
    });
    await execute(k3, await k2.signTransaction(tx));
    expect((await vault.core()).paused).to.equal(true);
    const [, , , , , user] = await ethers.getSigners();
    await token.mint(user.address, 10n);
    await token.connect(user).approve(await vault.getAddress(), 10n);
    await expect(
      vault
        .connect(user)
        .deposit(await token.getAddress(), 10n, user.address, (await ethers.provider.getNetwork()).chainId),
    ).to.be.revertedWithCustomError(vault, "BridgeVaultOperationPaused");
  });
});
