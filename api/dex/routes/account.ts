// Balances and API key management.
import type { Address, Hex } from "viem";
import { getAddress } from "viem";
import { parseAllowEntry } from "../../auth/ip-allowlist";
import { ApiError, plain } from "../../errors";
import { presentApiKey, presentBalance } from "../present";
import { authOf, type Route } from "../route-kit";
import {
  agentApprovalBody,
  apiKeyIdParams,
  apiKeyResponse,
  apiKeysResponse,
  balancesResponse,
  createApiKeyBody,
  createdApiKeyResponse,
  revokeResponse,
} from "../schemas";
import { parseExactDecimal } from "../units";
import { createAgentRenouncer, revokeApiKey, type AgentRenouncer, type RevokeDeps } from "../agent-renouncer";
import { dexRoute, privateRefusals, type RouteContext } from "./context";

const errors = privateRefusals("invalid request", "permission or IP allowlist");

/** "10000.5" quote currency -> 1e18-scaled integer; positive, at most 18 decimals. */
function limitE18(field: string, v: number | string | undefined): bigint | null {
  if (v === undefined) return null;
  const d = parseExactDecimal(v);
  if (!d || d.digits <= 0n || d.scale > 18) {
    throw new ApiError("INVALID_REQUEST", `${field} must be a positive decimal with at most 18 decimals`, { field });
  }
  return d.digits * 10n ** BigInt(18 - d.scale);
}

function alreadyApproved(id: string): ApiError {
  return new ApiError(
    "AGENT_ALREADY_APPROVED",
    "this API key's agent approval was already submitted; create a new key to approve another",
    { id },
  );
}

/** How long DELETE /v1/api-keys/{id} waits for the agent's renouncement to be mined before it answers
 *  `pending` (the attempt goes on; the drain loop retries a failed one). */
export const RENOUNCEMENT_ANSWER_WAIT_MS = 20_000;

/** What several account routes share: the revocation's dependencies and the one agent renouncer. */
interface AccountShared {
  revokeDeps: RevokeDeps;
  renouncer: AgentRenouncer;
}

export function accountRoutes(c: RouteContext): Route[] {
  const revokeDeps = {
    keys: c.keys,
    service: c.service,
    now: c.now,
    approvalLifetimeSec: c.config.agentApprovalSeconds,
  };
  const renouncer = createAgentRenouncer({ keys: c.keys, service: c.service, logger: c.logger });
  const shared: AccountShared = { revokeDeps, renouncer };
  return [
    getBalancesRoute(c),
    postApiKeysRoute(c, shared),
    postApiKeysIdAgentApprovalRoute(c),
    getApiKeysRoute(c),
    deleteApiKeysIdRoute(c, shared),
  ];
}

function getBalancesRoute(c: RouteContext): Route {
  const summary =
    "Your balances per token: available, locked by open orders, on chain, pending withdrawal (decimal strings)";
  const answers = { 200: ["balances", balancesResponse], ...errors } as const;
  const declared = { summary, auth: "key_or_wallet", access: ["read", "account"], answers } as const;
  return dexRoute(c, "get /v1/balances", declared, async ({ res }) => {
    const balances = await c.service.getBalances(authOf(res).account);
    return { balances: balances.map(presentBalance) };
  });
}

function postApiKeysRoute(c: RouteContext, { revokeDeps }: AccountShared): Route {
  const declared = {
    summary:
      "Create an API key. Wallet scheme only (X-Wallet-Address, X-Wallet-Timestamp, X-Wallet-Signature = EIP-191 signature of timestamp + METHOD + host + path + body, host being the Host header sent; low s, v 27 or 28). The secret is in this response only; sign the returned agent_approval and POST it to /v1/api-keys/{id}/agent-approval to enable trading.",
    auth: "wallet_only",
    body: createApiKeyBody,
    answers: { 201: ["the new key with its secret (shown once)", createdApiKeyResponse], ...errors },
  } as const;
  return dexRoute(c, "post /v1/api-keys", declared, async ({ body, res }) => {
    for (const entry of body.ip_allowlist ?? []) {
      if (!parseAllowEntry(entry))
        throw new ApiError("INVALID_REQUEST", `ip_allowlist entry ${entry} is not an address or CIDR block`, {
          field: "ip_allowlist",
        });
    }
    const owner = authOf(res).account;
    const { record, secret } = await c.keys.create({
      owner,
      label: body.label ?? "",
      permissions: [...new Set(body.permissions)],
      ipAllowlist: body.ip_allowlist ?? [],
      positionLimitE18: limitE18("position_limit", body.position_limit),
      dailyLossLimitE18: limitE18("daily_loss_limit", body.daily_loss_limit),
    });
    let typedData;
    try {
      const expiry = BigInt(Math.floor(c.now() / 1000) + c.config.agentApprovalSeconds);
      typedData = await c.service.prepareAgentApproval(owner, record.agentAddress, expiry);
    } catch (err) {
      // the wallet never saw this agent, but the key goes the one way every key goes
      await revokeApiKey(revokeDeps, record.id, owner);
      throw err;
    }
    return {
      ...presentApiKey(record),
      api_secret: secret,
      agent_approval: plain(typedData as unknown as Record<string, unknown>),
    };
  });
}

function postApiKeysIdAgentApprovalRoute(c: RouteContext): Route {
  const declared = {
    summary:
      "Submit the wallet's EIP-712 AgentApproval for the key's agent (the signature authenticates it); the service submits it on chain once per key (a relayer pays the gas for a wallet with funds in Settlement, at least one whole unit of a listed token: 403 no_funds_in_settlement otherwise; within a daily budget per wallet: 429 when spent) and the key may trade. The expiry may not exceed the service's approval lifetime.",
    auth: "public",
    params: apiKeyIdParams,
    body: agentApprovalBody,
    answers: {
      200: ["the key, agent approved", apiKeyResponse],
      404: "no such key",
      409: "the key's approval was already submitted (AGENT_ALREADY_APPROVED)",
      503: "the relayer's daily gas budget is spent (SERVICE_UNAVAILABLE, reason relayer_budget_exhausted)",
      ...errors,
      403: "the wallet has no funds in Settlement: the relayer does not pay for it (FORBIDDEN, reason no_funds_in_settlement)",
    },
  } as const;
  return dexRoute(c, "post /v1/api-keys/{id}/agent-approval", declared, async ({ params: { id }, body }) => {
    const key = await c.keys.getById(id);
    if (!key || key.revokedAtMs !== null) throw new ApiError("API_KEY_NOT_FOUND", "API key not found", { id });
    if (key.agentStatus === "approved") throw alreadyApproved(id);
    const a = body.approval;
    if (getAddress(a.trader) !== key.owner || getAddress(a.agent) !== key.agentAddress) {
      throw new ApiError("INVALID_REQUEST", "the approval must be for this key's owner and agent", {
        reason: "approval_mismatch",
        trader: key.owner,
        agent: key.agentAddress,
      });
    }
    // The lifetime is the service's to choose: a wallet may sign a shorter one, never a longer one.
    const maxExpiry = BigInt(Math.floor(c.now() / 1000) + c.config.agentApprovalSeconds);
    if (BigInt(a.expiry) > maxExpiry) {
      throw new ApiError("INVALID_REQUEST", `an agent approval lasts at most ${c.config.agentApprovalSeconds} s`, {
        reason: "approval_too_long",
        field: "approval.expiry",
        max_expiry: maxExpiry.toString(),
      });
    }
    // One approval per key, whoever sends it and however often: the relayer pays gas for it once.
    if (!(await c.keys.claimAgentApproval(id))) throw alreadyApproved(id);
    try {
      await c.service.submitAgentApproval(
        {
          trader: key.owner,
          agent: key.agentAddress,
          expiry: BigInt(a.expiry),
          nonce: BigInt(a.nonce),
          deadline: BigInt(a.deadline),
        },
        body.signature as Hex,
      );
    } catch (err) {
      await c.keys.releaseAgentApproval(id);
      throw err;
    }
    await c.keys.markAgentApproved(id);
    return presentApiKey({ ...key, agentStatus: "approved" });
  });
}

function getApiKeysRoute(c: RouteContext): Route {
  const summary = "Your API keys (never their secrets)";
  const answers = { 200: ["keys", apiKeysResponse], ...errors } as const;
  const declared = { summary, auth: "key_or_wallet", access: ["read", "account"], answers } as const;
  return dexRoute(c, "get /v1/api-keys", declared, async ({ res }) => {
    const keys = await c.keys.listByOwner(authOf(res).account);
    return { api_keys: keys.map(presentApiKey) };
  });
}

function deleteApiKeysIdRoute(c: RouteContext, { revokeDeps, renouncer }: AccountShared): Route {
  const declared = {
    summary:
      "Revoke an API key and cancel every open order placed with it; its agent is revoked on chain (the agent signs a renouncement of its approval, the service's relayer submits Settlement.renounceAgentWithSig and pays the gas), then its agent key is wiped, and its WebSocket sessions are closed. agent_revocation says whether the on-chain revocation is done (tx_hash: the renouncement, null when the agent held no approval) or pending (the service retries it in the background until mined; the key is already unusable). The wallet may revoke any of its keys; an API key only itself, from an address in its IP allowlist. Repeating the DELETE is harmless and reports the current state.",
    auth: "key_or_wallet",
    params: apiKeyIdParams,
    answers: { 200: ["revoked", revokeResponse], 404: "no such key of yours", ...errors },
  } as const;
  return dexRoute(c, "delete /v1/api-keys/{id}", declared, async ({ params: { id }, res }) => {
    const auth = authOf(res);
    const key = await c.keys.getById(id);
    if (!key || key.owner !== (auth.account as Address))
      throw new ApiError("API_KEY_NOT_FOUND", "API key not found", { id });
    if (auth.key && auth.key.id !== id) {
      throw new ApiError("FORBIDDEN", "an API key may revoke only itself; sign with the wallet to revoke another", {
        reason: "not_this_key",
      });
    }
    await revokeApiKey(revokeDeps, id, key.owner);
    // Revoked first so that no new order can use the key; the cancels and the renouncement are
    // idempotent, so a failed DELETE can be retried and finishes the job.
    const cancelled = await c.service.cancelOrdersOfApiKey(id, key.owner, "api_key_revoked");
    const revocation = (await renouncer.attempt(id, RENOUNCEMENT_ANSWER_WAIT_MS)) ?? {
      status: "none" as const,
      txHash: null,
    };
    const after = await c.keys.getById(id);
    return {
      id,
      revoked_at: after?.revokedAtMs ?? c.now(),
      cancelled_order_ids: cancelled,
      agent_revocation: { status: revocation.status, tx_hash: revocation.txHash },
    };
  });
}
