// An API key's agent on chain: the AgentApproval the wallet is asked to sign, its submission, and an agent's
// own AgentRenouncement, both sent by the agent relayer (no contract role, a gas budget).
import { recoverTypedDataAddress, type Address, type Hex } from "viem";
import type { Clock } from "../../runtime/clock";
import { settlementAbi } from "../../sdk/abi";
import { AGENT_APPROVAL_TYPES, type AgentRenouncement, type SettlementDomain } from "../../sdk/eip712";
import type { Pipeline } from "../pipeline";
import { DexServiceError, type AgentApproval, type Eip712TypedData } from "../service";
import type { AgentRelayer } from "../settle/agent-relayer";

/** How long the wallet has to submit the AgentApproval it is asked to sign (its `deadline`). */
const AGENT_APPROVAL_SUBMIT_WINDOW_SEC = 3600;

export interface AgentApprovalsDeps {
  pipeline: Pick<Pipeline, "client" | "syncChain">;
  settlement: Address;
  domain: SettlementDomain;
  clock: Clock;
  /** one relayer (one nonce manager, one budget) for the service's lifetime, made when first needed */
  relayer(): AgentRelayer;
}

export class AgentApprovals {
  constructor(private readonly deps: AgentApprovalsDeps) {}

  private async read(functionName: "nonces" | "agentExpiry", args: readonly Address[]): Promise<bigint> {
    return (await this.deps.pipeline.client.readContract({
      address: this.deps.settlement,
      abi: settlementAbi,
      functionName,
      args: args as never,
    })) as bigint;
  }

  async prepare(trader: Address, agent: Address, expiry: bigint): Promise<Eip712TypedData> {
    const nonce = await this.read("nonces", [trader]);
    const deadline = BigInt(Math.floor(this.deps.clock.now() / 1000) + AGENT_APPROVAL_SUBMIT_WINDOW_SEC);
    const { domain } = this.deps;
    return {
      domain: {
        name: domain.name,
        version: domain.version,
        chainId: domain.chainId,
        verifyingContract: domain.verifyingContract,
      },
      types: AGENT_APPROVAL_TYPES as unknown as Eip712TypedData["types"],
      primaryType: "AgentApproval",
      message: { trader, agent, expiry, nonce, deadline },
    };
  }

  async submitApproval(approval: AgentApproval, signature: Hex): Promise<void> {
    let signer: Address;
    try {
      signer = await recoverTypedDataAddress({
        domain: this.deps.domain,
        types: AGENT_APPROVAL_TYPES,
        primaryType: "AgentApproval",
        message: approval,
        signature,
      });
    } catch {
      throw new DexServiceError("INVALID_SIGNATURE", "the agent approval signature does not recover");
    }
    if (signer.toLowerCase() !== approval.trader.toLowerCase())
      throw new DexServiceError("INVALID_SIGNATURE", "the agent approval is not signed by the trader");
    await this.deps.relayer().submit(approval, signature);
    await this.deps.pipeline.syncChain();
  }

  async submitRenouncement(
    renouncement: AgentRenouncement,
    signature: Hex,
  ): Promise<{ txHash: Hex | null; agentExpiry: bigint }> {
    const agentExpiry = () => this.read("agentExpiry", [renouncement.trader, renouncement.agent]);
    // nothing approved, nothing to pay for (renouncing is idempotent on chain, but costs gas)
    if ((await agentExpiry()) === 0n) return { txHash: null, agentExpiry: 0n };
    const { txHash } = await this.deps.relayer().renounce(renouncement, signature);
    // the chain follower hears AgentRevoked now: the agent's orders are cancelled before this resolves
    await this.deps.pipeline.syncChain();
    return { txHash, agentExpiry: await agentExpiry() };
  }
}
