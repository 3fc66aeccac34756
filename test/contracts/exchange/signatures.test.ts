import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { concat, numberToHex, toHex, type Address, type Hex } from "viem";
import { getSettlementDomain, getAgentApprovalHash, signAgentApproval, signOrder } from "../../../sdk/eip712";
import { deployFixture, deployWithWallet, fill, orderFor, settle, signed, signerKey } from "./fixtures";
import { ENCODINGS, ETH, type Fixture, OrderSide, useEncoding } from "./fixtures";

const N = secp256k1.Point.CURVE().n;

/** The same signature with s' = n - s and the other v: valid for ecrecover, rejected as malleable. */
function toHighS(sig: Hex): Hex {
  const r = sig.slice(0, 66) as Hex;
  const s = BigInt(`0x${sig.slice(66, 130)}`);
  const v = parseInt(sig.slice(130, 132), 16);
  return concat([r, numberToHex(N - s, { size: 32 }), toHex(v === 27 ? 28 : 27, { size: 1 })]);
}

async function sellOrder(f: Fixture) {
  return signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, ETH));
}

for (const enc of ENCODINGS)
  describe(`Settlement: signatures and agents (${enc})`, () => {
    before(() => useEncoding(enc));

    it("rejects an order signed by another trader", async () => {
      const f = await loadFixture(deployFixture);
      const maker = await sellOrder(f);
      const forged = await signed(f, f.keys.carol, await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH));
      await expect(settle(f, [maker, forged], [fill(maker, forged, ETH / 4n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementSignerNotAuthorized")
        .withArgs(f.alice.address, f.carol.address);
    });

    it("rejects an order signed for another chain id or another settlement contract", async () => {
      const f = await loadFixture(deployFixture);
      const maker = await sellOrder(f);
      const order = await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH);
      const otherChain = await signed(f, f.keys.alice, order, getSettlementDomain(1n, f.domain.verifyingContract));
      await expect(settle(f, [maker, otherChain], [fill(maker, otherChain, ETH / 4n)])).to.be.revertedWithCustomError(
        f.settlement,
        "SettlementSignerNotAuthorized",
      );
      const otherContract = await signed(
        f,
        f.keys.alice,
        order,
        getSettlementDomain(f.chainId, f.bob.address as Address),
      );
      await expect(
        settle(f, [maker, otherContract], [fill(maker, otherContract, ETH / 4n)]),
      ).to.be.revertedWithCustomError(f.settlement, "SettlementSignerNotAuthorized");
      const good = await signed(f, f.keys.alice, order);
      await settle(f, [maker, good], [fill(maker, good, ETH / 4n)]);
    });

    it("rejects a malleable high-s signature and a malformed one", async () => {
      const f = await loadFixture(deployFixture);
      const maker = await sellOrder(f);
      const taker = await signed(f, f.keys.alice, await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH));
      const high = { ...taker, signature: toHighS(taker.signature) };
      await expect(settle(f, [maker, high], [fill(maker, high, ETH / 4n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementSignatureHighS")
        .withArgs(f.alice.address);
      const short = { ...taker, signature: taker.signature.slice(0, 130) as Hex };
      await expect(settle(f, [maker, short], [fill(maker, short, ETH / 4n)])).to.be.revertedWithCustomError(
        f.settlement,
        "SettlementSignatureMalformed",
      );
      await settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)]);
    });

    it("accepts an approved agent's signature; rejects it once revoked or expired", async () => {
      const f = await loadFixture(deployFixture);
      const agentKey = signerKey(10);
      const expiry = BigInt(await time.latest()) + 600n;
      await expect(f.settlement.connect(f.alice).approveAgent(agentKey.address, expiry))
        .to.emit(f.settlement, "AgentApproved")
        .withArgs(f.alice.address, agentKey.address, expiry);
      expect(await f.settlement.agentExpiry(f.alice.address, agentKey.address)).to.equal(expiry);
      const maker = await sellOrder(f);
      const byAgent = await signed(f, agentKey, await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH));
      await settle(f, [maker, byAgent], [fill(maker, byAgent, ETH / 4n)]);

      await expect(f.settlement.connect(f.alice).revokeAgent(agentKey.address))
        .to.emit(f.settlement, "AgentRevoked")
        .withArgs(f.alice.address, agentKey.address);
      await expect(settle(f, [maker, byAgent], [fill(maker, byAgent, ETH / 4n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementSignerNotAuthorized")
        .withArgs(f.alice.address, agentKey.address);

      await f.settlement.connect(f.alice).approveAgent(agentKey.address, expiry);
      await time.increaseTo(expiry);
      const late = await signed(f, agentKey, await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH));
      const maker2 = await sellOrder(f);
      await expect(settle(f, [maker2, late], [fill(maker2, late, ETH / 4n)]))
        .to.be.revertedWithCustomError(f.settlement, "SettlementAgentExpired")
        .withArgs(f.alice.address, agentKey.address, expiry);
    });

    it("rejects agent approvals that are in the past, to zero or to oneself", async () => {
      const f = await loadFixture(deployFixture);
      const now = BigInt(await time.latest());
      await expect(f.settlement.connect(f.alice).approveAgent(f.bob.address, now)).to.be.revertedWithCustomError(
        f.settlement,
        "SettlementAgentInvalid",
      );
      await expect(
        f.settlement.connect(f.alice).approveAgent(ethers.ZeroAddress, now + 100n),
      ).to.be.revertedWithCustomError(f.settlement, "SettlementAgentInvalid");
      await expect(
        f.settlement.connect(f.alice).approveAgent(f.alice.address, now + 100n),
      ).to.be.revertedWithCustomError(f.settlement, "SettlementAgentInvalid");
    });

    it("approves an agent through a signed AgentApproval submitted by the operator, once", async () => {
      const f = await loadFixture(deployFixture);
      const agent = signerKey(11).address;
      const expiry = BigInt(await time.latest()) + 3600n;
      const deadline = expiry;
      const approval = { trader: f.alice.address as Address, agent, expiry, nonce: 0n, deadline };
      const sig = await signAgentApproval(f.keys.alice, f.domain, approval);
      await expect(
        f.settlement.connect(f.operator).approveAgentWithSig(f.alice.address, agent, expiry, 0n, deadline, sig),
      )
        .to.emit(f.settlement, "AgentApproved")
        .withArgs(f.alice.address, agent, expiry);
      expect(await f.settlement.nonces(f.alice.address)).to.equal(1n);
      await expect(
        f.settlement.connect(f.operator).approveAgentWithSig(f.alice.address, agent, expiry, 0n, deadline, sig),
      ).to.be.revertedWithCustomError(f.settlement, "InvalidAccountNonce");
      const forged = await signAgentApproval(f.keys.bob, f.domain, { ...approval, nonce: 1n });
      await expect(
        f.settlement.connect(f.operator).approveAgentWithSig(f.alice.address, agent, expiry, 1n, deadline, forged),
      )
        .to.be.revertedWithCustomError(f.settlement, "SettlementAgentApprovalSignatureInvalid")
        .withArgs(f.alice.address);
      await time.increaseTo(deadline + 1n);
      const late = await signAgentApproval(f.keys.alice, f.domain, { ...approval, nonce: 1n });
      await expect(
        f.settlement.connect(f.operator).approveAgentWithSig(f.alice.address, agent, expiry, 1n, deadline, late),
      ).to.be.revertedWithCustomError(f.settlement, "SettlementAgentApprovalDeadlinePassed");
      expect(getAgentApprovalHash(f.domain, approval)).to.match(/^0x[0-9a-f]{64}$/);
    });

    describe("ERC-1271 contract wallets", () => {
      const walletFixture = () => deployWithWallet("SettlementTestWallet");

      it("lets a contract wallet trade with a signature its isValidSignature accepts", async () => {
        const f = await loadFixture(walletFixture);
        const maker = await sellOrder(f);
        const order = await orderFor(f, f.walletAddress, OrderSide.BUY, ETH);
        const taker = await signed(f, f.owner, order);
        await settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)]);
        expect(await f.settlement.balanceOf(f.walletAddress, await f.weth.getAddress())).to.be.greaterThan(0n);
      });

      it("rejects a wallet answering a wrong magic value, or a signature it refuses", async () => {
        const f = await loadFixture(walletFixture);
        const maker = await sellOrder(f);
        const order = await orderFor(f, f.walletAddress, OrderSide.BUY, ETH);
        const badSigner = await signed(f, f.keys.carol, order);
        await expect(settle(f, [maker, badSigner], [fill(maker, badSigner, ETH / 4n)]))
          .to.be.revertedWithCustomError(f.settlement, "SettlementContractSignatureInvalid")
          .withArgs(f.walletAddress);
        await f.wallet.setWrongMagic(true);
        const good = { ...badSigner, signature: await signOrder(f.owner, f.domain, order) };
        await expect(settle(f, [maker, good], [fill(maker, good, ETH / 4n)]))
          .to.be.revertedWithCustomError(f.settlement, "SettlementContractSignatureInvalid")
          .withArgs(f.walletAddress);
      });
    });
  });
