// Issue #11 ("secrets at rest"): an agent gives up its own approval, on chain. The service holds a deleted API
// key's agent key and nothing else (only the trader could revokeAgent), so the agent signs an EIP-712
// AgentRenouncement that anyone submits (renounceAgentWithSig), or calls renounceAgent itself.
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { concat, numberToHex, toHex, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import {
  getSettlementDomain,
  signAgentRenouncement,
  type AgentRenouncement,
  type SettlementDomain,
} from "../../../sdk/eip712";
import { deployFixture, fill, orderFor, settle, signed, signerKey, ETH, OrderSide, type Fixture } from "./fixtures";

const N = secp256k1.Point.CURVE().n;

/** The same signature with s' = n - s and the other v: ecrecover accepts it, the order rule does not. */
function toHighS(sig: Hex): Hex {
  const s = BigInt(`0x${sig.slice(66, 130)}`);
  const v = parseInt(sig.slice(130, 132), 16);
  return concat([sig.slice(0, 66) as Hex, numberToHex(N - s, { size: 32 }), toHex(v === 27 ? 28 : 27, { size: 1 })]);
}

/** A fresh agent key (it holds no ETH) approved by Alice for 30 days. */
async function approvedAgent(f: Fixture): Promise<{ agent: PrivateKeyAccount; expiry: bigint }> {
  const agent = privateKeyToAccount(generatePrivateKey());
  const expiry = BigInt(await time.latest()) + 30n * 86_400n;
  await f.settlement.connect(f.alice).approveAgent(agent.address, expiry);
  return { agent, expiry };
}

async function renouncement(
  f: Fixture,
  signer: Parameters<typeof signAgentRenouncement>[0],
  agent: Address,
  extra: Partial<AgentRenouncement> = {},
  domain: SettlementDomain = f.domain,
): Promise<{ message: AgentRenouncement; signature: Hex }> {
  const message: AgentRenouncement = {
    trader: f.alice.address as Address,
    agent,
    nonce: await f.settlement.nonces(agent),
    deadline: BigInt(await time.latest()) + 3600n,
    ...extra,
  };
  return { message, signature: await signAgentRenouncement(signer, domain, message) };
}

/** Submitted by Carol, a stranger: the agent has no ETH to pay for it. */
function submit(f: Fixture, r: { message: AgentRenouncement; signature: Hex }) {
  const m = r.message;
  return f.settlement.connect(f.carol).renounceAgentWithSig(m.trader, m.agent, m.nonce, m.deadline, r.signature);
}

describe("Settlement: an agent renounces its approval (renounceAgent, renounceAgentWithSig)", () => {
  it("a renouncement signed by the agent and submitted by anyone clears the approval and emits AgentRevoked", async () => {
    const f = await loadFixture(deployFixture);
    const { agent } = await approvedAgent(f);
    const r = await renouncement(f, agent, agent.address);
    expect(r.message.nonce).to.equal(0n);
    await expect(submit(f, r)).to.emit(f.settlement, "AgentRevoked").withArgs(f.alice.address, agent.address);
    expect(await f.settlement.agentExpiry(f.alice.address, agent.address)).to.equal(0n);
    expect(await f.settlement.nonces(agent.address)).to.equal(1n, "the renouncement used up the agent's nonce");
    expect(await ethers.provider.getBalance(agent.address)).to.equal(0n, "the agent paid nothing");
  });

  it("orders the agent signed no longer settle once it renounced", async () => {
    const f = await loadFixture(deployFixture);
    const { agent } = await approvedAgent(f);
    const maker = await signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, ETH));
    const byAgent = await signed(f, agent, await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH));
    await settle(f, [maker, byAgent], [fill(maker, byAgent, ETH / 4n)]);
    await submit(f, await renouncement(f, agent, agent.address));
    await expect(settle(f, [maker, byAgent], [fill(maker, byAgent, ETH / 4n)]))
      .to.be.revertedWithCustomError(f.settlement, "SettlementSignerNotAuthorized")
      .withArgs(f.alice.address, agent.address);
  });

  it("an agent calling renounceAgent itself: cleared, AgentRevoked, idempotent; another trader's approval stays", async () => {
    const f = await loadFixture(deployFixture);
    const agentSigner = f.signers[10];
    const expiry = BigInt(await time.latest()) + 600n;
    await f.settlement.connect(f.alice).approveAgent(agentSigner.address, expiry);
    await f.settlement.connect(f.carol).approveAgent(agentSigner.address, expiry);
    await expect(f.settlement.connect(agentSigner).renounceAgent(f.alice.address))
      .to.emit(f.settlement, "AgentRevoked")
      .withArgs(f.alice.address, agentSigner.address);
    expect(await f.settlement.agentExpiry(f.alice.address, agentSigner.address)).to.equal(0n);
    expect(await f.settlement.agentExpiry(f.carol.address, agentSigner.address)).to.equal(
      expiry,
      "only the named trader's approval",
    );
    // twice is harmless
    await expect(f.settlement.connect(agentSigner).renounceAgent(f.alice.address)).to.emit(
      f.settlement,
      "AgentRevoked",
    );
    expect(await f.settlement.agentExpiry(f.alice.address, agentSigner.address)).to.equal(0n);
    // the agent's key can no longer sign for Alice
    const maker = await signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, ETH));
    const byAgent = await signed(f, signerKey(10), await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH));
    await expect(settle(f, [maker, byAgent], [fill(maker, byAgent, ETH / 4n)])).to.be.revertedWithCustomError(
      f.settlement,
      "SettlementSignerNotAuthorized",
    );
  });

  it("a renouncement signed by anyone but the agent is refused, the trader's own signature included", async () => {
    const f = await loadFixture(deployFixture);
    const { agent, expiry } = await approvedAgent(f);
    const stranger = privateKeyToAccount(generatePrivateKey());
    const forged = await renouncement(f, stranger, agent.address);
    await expect(submit(f, forged))
      .to.be.revertedWithCustomError(f.settlement, "SettlementAgentRenouncementSignerInvalid")
      .withArgs(agent.address, stranger.address);
    const byTrader = await renouncement(f, f.keys.alice, agent.address);
    await expect(submit(f, byTrader))
      .to.be.revertedWithCustomError(f.settlement, "SettlementAgentRenouncementSignerInvalid")
      .withArgs(agent.address, f.alice.address);
    // the agent's signature for Alice submitted as Carol's renouncement recovers to someone else
    const forAlice = await renouncement(f, agent, agent.address);
    await expect(
      f.settlement
        .connect(f.carol)
        .renounceAgentWithSig(
          f.carol.address,
          agent.address,
          forAlice.message.nonce,
          forAlice.message.deadline,
          forAlice.signature,
        ),
    ).to.be.revertedWithCustomError(f.settlement, "SettlementAgentRenouncementSignerInvalid");
    // signed for another chain or another contract
    for (const domain of [
      getSettlementDomain(1n, f.domain.verifyingContract),
      getSettlementDomain(f.chainId, f.bob.address as Address),
    ]) {
      await expect(submit(f, await renouncement(f, agent, agent.address, {}, domain))).to.be.revertedWithCustomError(
        f.settlement,
        "SettlementAgentRenouncementSignerInvalid",
      );
    }
    expect(await f.settlement.agentExpiry(f.alice.address, agent.address)).to.equal(expiry, "nothing changed");
    expect(await f.settlement.nonces(agent.address)).to.equal(0n);
  });

  it("deadline: accepted in the block whose timestamp equals it, refused one second later", async () => {
    const f = await loadFixture(deployFixture);
    const { agent, expiry } = await approvedAgent(f);
    const at = BigInt(await time.latest()) + 100n;
    const late = await renouncement(f, agent, agent.address, { deadline: at - 1n });
    await time.setNextBlockTimestamp(at);
    await expect(submit(f, late))
      .to.be.revertedWithCustomError(f.settlement, "SettlementAgentRenouncementDeadlinePassed")
      .withArgs(at - 1n);
    expect(await f.settlement.agentExpiry(f.alice.address, agent.address)).to.equal(expiry);
    const onTime = await renouncement(f, agent, agent.address, { deadline: at + 1n });
    await time.setNextBlockTimestamp(at + 1n);
    await expect(submit(f, onTime)).to.emit(f.settlement, "AgentRevoked");
    expect(await f.settlement.agentExpiry(f.alice.address, agent.address)).to.equal(0n);
  });

  it("a used renouncement cannot remove a later re-approval of the same agent (same expiry even); a fresh one can", async () => {
    const f = await loadFixture(deployFixture);
    const { agent, expiry } = await approvedAgent(f);
    const r = await renouncement(f, agent, agent.address);
    await submit(f, r);
    await f.settlement.connect(f.alice).approveAgent(agent.address, expiry);
    await expect(submit(f, r))
      .to.be.revertedWithCustomError(f.settlement, "InvalidAccountNonce")
      .withArgs(agent.address, 1n);
    expect(await f.settlement.agentExpiry(f.alice.address, agent.address)).to.equal(expiry, "the re-approval stands");
    // a renouncement for a nonce ahead of the agent's is refused as well
    await expect(submit(f, await renouncement(f, agent, agent.address, { nonce: 2n }))).to.be.revertedWithCustomError(
      f.settlement,
      "InvalidAccountNonce",
    );
    await expect(submit(f, await renouncement(f, agent, agent.address))).to.emit(f.settlement, "AgentRevoked");
    expect(await f.settlement.agentExpiry(f.alice.address, agent.address)).to.equal(0n);
    // renouncing what is no longer there is harmless: it succeeds and changes nothing else
    await expect(submit(f, await renouncement(f, agent, agent.address))).to.emit(f.settlement, "AgentRevoked");
    expect(await f.settlement.nonces(agent.address)).to.equal(3n);
  });

  it("refuses a high-s signature, v 0/1 and a 64-byte signature; the low-s original then works", async () => {
    const f = await loadFixture(deployFixture);
    const { agent } = await approvedAgent(f);
    const r = await renouncement(f, agent, agent.address);
    const v01 = concat([
      r.signature.slice(0, 130) as Hex,
      toHex(parseInt(r.signature.slice(130), 16) - 27, { size: 1 }),
    ]);
    for (const bad of [toHighS(r.signature), v01, r.signature.slice(0, 130) as Hex]) {
      await expect(submit(f, { ...r, signature: bad }))
        .to.be.revertedWithCustomError(f.settlement, "SettlementAgentRenouncementSignatureMalformed")
        .withArgs(agent.address);
    }
    expect(await f.settlement.nonces(agent.address)).to.equal(0n);
    await expect(submit(f, r)).to.emit(f.settlement, "AgentRevoked");
  });

  it("works while the contract is paused (it only takes a right away)", async () => {
    const f = await loadFixture(deployFixture);
    const { agent } = await approvedAgent(f);
    await f.settlement.connect(f.admin).pause();
    await expect(submit(f, await renouncement(f, agent, agent.address))).to.emit(f.settlement, "AgentRevoked");
    expect(await f.settlement.agentExpiry(f.alice.address, agent.address)).to.equal(0n);
  });
});
