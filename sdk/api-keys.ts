// API keys created by a wallet: POST /v1/api-keys answers the key, its secret (once) and `agent_approval`,
// the EIP-712 AgentApproval of the key's agent (domain, types, primaryType, message with its integers as
// decimal text); the wallet signs it and POSTs { approval: message, signature } to
// /v1/api-keys/{id}/agent-approval, and the API's relayer approves the agent on chain.
import type { Hex } from "viem";
import type { TradingSigner, TypedDataField } from "./signers";

export interface AgentApprovalRequest {
  domain: { name: string; version: string; chainId: number; verifyingContract: Hex };
  types: Record<string, TypedDataField[]>;
  primaryType: string;
  message: {
    trader: string;
    agent: string;
    expiry: string | number;
    nonce: string | number;
    deadline: string | number;
  };
}

/** Signs the `agent_approval` of POST /v1/api-keys; returns the body of POST /v1/api-keys/{id}/agent-approval. */
export async function signAgentApprovalRequest(
  signer: TradingSigner,
  agentApproval: unknown,
): Promise<{ approval: AgentApprovalRequest["message"]; signature: Hex }> {
  const a = agentApproval as AgentApprovalRequest;
  if (!a?.domain || !a.types || !a.message)
    throw new TypeError("signAgentApprovalRequest: not an agent_approval of POST /v1/api-keys");
  const m = a.message;
  const signature = await signer.signTypedData({
    domain: a.domain,
    types: a.types,
    primaryType: a.primaryType,
    message: { ...m, expiry: BigInt(m.expiry), nonce: BigInt(m.nonce), deadline: BigInt(m.deadline) },
  });
  return { approval: m, signature };
}
