// The TypeScript twin (sdk/eip712.ts) must hash exactly as the contract does (Seaport's typehash test).
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { keccak256, toBytes, type Address } from "viem";
import {
  AGENT_RENOUNCEMENT_TYPES,
  getAgentApprovalTypeHash,
  getAgentRenouncementHash,
  getAgentRenouncementTypeHash,
  getDomainSeparator,
  getOrderHash,
  getOrderTypeHash,
  ORDER_TYPES,
  OrderFlags,
  OrderSide,
  signAgentRenouncement,
} from "../../../sdk/eip712";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { deployFixture } from "./fixtures";

describe("Settlement: EIP-712 twin (sdk/eip712.ts)", () => {
  it("type hashes equal the Solidity type strings", () => {
    expect(getOrderTypeHash()).to.equal(
      keccak256(
        toBytes(
          "Order(address trader,address baseToken,address quoteToken,uint8 side,uint256 price,uint256 amount,uint64 expiry,uint256 nonce,uint8 flags)",
        ),
      ),
    );
    expect(getAgentApprovalTypeHash()).to.equal(
      keccak256(toBytes("AgentApproval(address trader,address agent,uint64 expiry,uint256 nonce,uint64 deadline)")),
    );
    expect(getAgentRenouncementTypeHash()).to.equal(
      keccak256(toBytes("AgentRenouncement(address trader,address agent,uint256 nonce,uint64 deadline)")),
    );
    expect(ORDER_TYPES.Order.map((f) => f.name)).to.deep.equal([
      "trader",
      "baseToken",
      "quoteToken",
      "side",
      "price",
      "amount",
      "expiry",
      "nonce",
      "flags",
    ]);
  });

  it("domain separator and order hashes equal the contract's", async () => {
    const f = await loadFixture(deployFixture);
    expect(await f.settlement.domainSeparator()).to.equal(getDomainSeparator(f.domain));
    const domain = await f.settlement.eip712Domain();
    expect(domain.name).to.equal("Settlement");
    expect(domain.version).to.equal("1");
    expect(domain.chainId).to.equal(f.chainId);
    const rnd = () => BigInt(ethers.hexlify(ethers.randomBytes(32)));
    for (let i = 0; i < 12; i++) {
      const order = {
        trader: ethers.Wallet.createRandom().address as Address,
        baseToken: ethers.Wallet.createRandom().address as Address,
        quoteToken: ethers.Wallet.createRandom().address as Address,
        side: i % 2 === 0 ? OrderSide.BUY : OrderSide.SELL,
        price: rnd(),
        amount: rnd(),
        expiry: rnd() >> 192n,
        nonce: rnd(),
        flags: i % 3 === 0 ? OrderFlags.POST_ONLY : OrderFlags.NONE,
      };
      expect(await f.settlement.getOrderHash(order)).to.equal(getOrderHash(f.domain, order));
    }
  });

  it("an AgentRenouncement hashed and signed with the sdk's type is the one the contract verifies", async () => {
    const f = await loadFixture(deployFixture);
    const agent = privateKeyToAccount(generatePrivateKey());
    const latest = await ethers.provider.getBlock("latest");
    await f.settlement.connect(f.alice).approveAgent(agent.address, BigInt(latest!.timestamp) + 600n);
    const message = {
      trader: f.alice.address as Address,
      agent: agent.address,
      nonce: 0n,
      deadline: BigInt(latest!.timestamp) + 600n,
    };
    // the digest the agent signs is the sdk's hash (so the contract recovering the agent proves the hashes agree)
    const signature = await signAgentRenouncement(agent, f.domain, message);
    expect(await agent.sign({ hash: getAgentRenouncementHash(f.domain, message) })).to.equal(signature);
    // the same fields under another field order are another type: the contract recovers someone else
    const reordered = {
      AgentRenouncement: [
        AGENT_RENOUNCEMENT_TYPES.AgentRenouncement[1],
        AGENT_RENOUNCEMENT_TYPES.AgentRenouncement[0],
        ...AGENT_RENOUNCEMENT_TYPES.AgentRenouncement.slice(2),
      ],
    };
    const wrong = await agent.signTypedData({
      domain: f.domain,
      types: reordered,
      primaryType: "AgentRenouncement",
      message,
    });
    await expect(
      f.settlement.renounceAgentWithSig(message.trader, message.agent, 0n, message.deadline, wrong),
    ).to.be.revertedWithCustomError(f.settlement, "SettlementAgentRenouncementSignerInvalid");
    await f.settlement.renounceAgentWithSig(message.trader, message.agent, 0n, message.deadline, signature);
    expect(await f.settlement.agentExpiry(f.alice.address, agent.address)).to.equal(0n);
  });
});
