// Creating an API key whose agent may trade: the wallet signs the creation request (EIP-191), the API
// answers with the key, its secret (this once) and the EIP-712 AgentApproval to sign; the wallet signs it
// and the page posts it. The API-keys panel and the wallet session both use it.
import { signAgentApprovalRequest } from "../../sdk/api-keys";
import { postPublic, signedRequest, type ApiKey } from "./api";
import type { CreatedKey, KeyBody } from "./apikey-rules";
import type { ConnectedWallet } from "./wallet";

export interface CreateSteps {
  /** a step's description for the result line */
  status(text: string): void;
  /** the key exists (its secret is in it); its agent approval is signed next */
  created(k: CreatedKey): void;
}

/** Creates the key and approves its agent; throws on the first refusal (after `created` when the approval failed). */
export async function createApprovedKey(
  wallet: ConnectedWallet,
  body: KeyBody,
  steps: CreateSteps,
  /** a shorter approval than the service's longest, in seconds (the wallet may sign a shorter one) */
  lifetimeSec?: number,
): Promise<CreatedKey> {
  // creating a key is the wallet's own act (the API takes the wallet scheme only), never a session key's
  const w: ConnectedWallet = { ...wallet, session: undefined };
  steps.status("1 of 2: sign the request in the wallet…");
  const created = await signedRequest<CreatedKey>(w, "POST", "/v1/api-keys", body);
  if (lifetimeSec !== undefined) {
    const m = created.agent_approval.message;
    const until = Math.floor(Date.now() / 1000) + lifetimeSec;
    if (Number(m.expiry) > until) m.expiry = String(until);
  }
  steps.created(created);
  steps.status("2 of 2: sign the agent approval in the wallet…");
  const approval = await signAgentApprovalRequest(
    {
      getAddress: async () => w.address,
      signTypedData: (t) => w.signTypedData(t as Parameters<ConnectedWallet["signTypedData"]>[0]),
      signMessage: (raw) => w.signRaw(raw),
    },
    created.agent_approval,
  );
  steps.status("Approving the agent on chain…");
  await postPublic<ApiKey>(`/v1/api-keys/${created.id}/agent-approval`, approval);
  return created;
}
