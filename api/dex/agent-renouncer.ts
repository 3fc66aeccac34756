// Deleting an API key revokes its agent ON CHAIN (issue #11, "secrets at rest"). Only the trader can call
// Settlement.revokeAgent, but the service holds the agent's key: the agent signs an EIP-712 AgentRenouncement
// of its own approval, which the agent relayer submits (renounceAgentWithSig). Order of events:
//   1. sign the renouncement with the stored agent key;
//   2. one UPDATE revokes the key, wipes the sealed agent key and stores the signed renouncement (`pending`):
//      the key is never gone before what revokes its approval is stored, and is gone at once after;
//   3. submit it (the DELETE waits a bounded time for the receipt); a failure leaves it `pending` and the
//      drain loop started with the API retries it, across restarts too (the row is the queue).
// The stored renouncement can do one thing only, take this agent's approval away, once (its nonce is used
// up on chain), so it needs no sealing.
import type { Logger } from "pino";
import type { Address, LocalAccount } from "viem";
import { signAgentRenouncement, type SettlementDomain } from "../../sdk/eip712";
import { DexServiceError, type DexService } from "../../pipeline/service";
import type { AgentRevocationState, ApiKeyStore, SignedAgentRenouncement } from "../auth/api-keys";

/** How long one attempt holds a stored renouncement before another sender may try it (a crash mid-send). */
export const RENOUNCEMENT_LEASE_MS = 60_000;
/** How often startDexApi's drain loop retries pending renouncements. */
export const RENOUNCEMENT_DRAIN_INTERVAL_MS = 5_000;
/** Added to the approval lifetime for the renouncement's deadline (clock skew between this host and the chain). */
export const RENOUNCEMENT_DEADLINE_MARGIN_SEC = 86_400;

/** The agent's signed renouncement of its approval by `trader`.
 *  - nonce 0: the service's agent keys sign nothing on chain but this one renouncement, and one key stores
 *    one renouncement (revoke() is conditional on a live key), so `nonces(agent)` is 0 when it is sent;
 *  - deadline: now + the approval lifetime + a day: every approval the service accepted for this agent has
 *    expired by then, so the renouncement can be retried for as long as the approval matters. */
export function signRenouncement(
  agent: LocalAccount,
  trader: Address,
  domain: SettlementDomain,
  nowMs: number,
  approvalLifetimeSec: number,
): Promise<SignedAgentRenouncement> {
  const message = {
    trader,
    agent: agent.address,
    nonce: 0n,
    deadline: BigInt(Math.floor(nowMs / 1000) + approvalLifetimeSec + RENOUNCEMENT_DEADLINE_MARGIN_SEC),
  };
  return signAgentRenouncement(agent, domain, message).then((signature) => ({ message, signature }));
}

export interface RevokeDeps {
  keys: ApiKeyStore;
  service: Pick<DexService, "settlementDomain">;
  now: () => number;
  approvalLifetimeSec: number;
}

/** Revokes a live key the only way the API does: its agent's renouncement signed and stored with the
 *  revocation (steps 1 and 2). False when it was already revoked or does not exist. */
export async function revokeApiKey(deps: RevokeDeps, id: string, trader: Address): Promise<boolean> {
  const agent = await deps.keys.agentOf(id);
  if (!agent) return deps.keys.revoke(id);
  const renouncement = await signRenouncement(
    agent,
    trader,
    deps.service.settlementDomain,
    deps.now(),
    deps.approvalLifetimeSec,
  );
  return deps.keys.revoke(id, renouncement);
}

export interface AgentRenouncer {
  /** One attempt at key `id`'s stored renouncement (unless another attempt holds it or it is not pending);
   *  resolves with the state after it, or `pending` once `waitMs` pass (the attempt goes on). Null for a
   *  live or unknown key. */
  attempt(id: string, waitMs?: number): Promise<AgentRevocationState | null>;
  /** One attempt at every pending renouncement, one after the other. */
  drain(): Promise<void>;
  /** Drains now and then every `intervalMs` until stop(). */
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

interface RenouncerDeps {
  keys: ApiKeyStore;
  service: Pick<DexService, "submitAgentRenouncement">;
  logger: Logger;
  leaseMs?: number;
}

/** One attempt at key `id`'s stored renouncement, under a lease (`claimRenouncement`). */
async function renounceOnce(deps: RenouncerDeps, leaseMs: number, id: string): Promise<AgentRevocationState | null> {
  const { keys, logger } = deps;
  const claim = await keys.claimRenouncement(id, leaseMs);
  if (!claim) return keys.agentRevocation(id);
  try {
    const r = await deps.service.submitAgentRenouncement(claim.message, claim.signature);
    // Done once no approval is left, unless an approval of this key was still being submitted when it was
    // revoked: that one may land after this read, so it is looked at again on the next drain.
    if (r.agentExpiry === 0n && claim.agentStatus !== "submitting") await keys.finishRenouncement(id, "done", r.txHash);
    else await keys.releaseRenouncement(id, r.txHash);
  } catch (err) {
    if (err instanceof DexServiceError && err.code === "INVALID_SIGNATURE") {
      // The contract refuses it: the approval lapses at its expiry (the agent key is wiped: nobody signs with it).
      logger.error({ err, apiKeyId: id, agent: claim.message.agent }, "agent renouncement refused on chain");
      await keys.finishRenouncement(id, "failed", null);
    } else {
      logger.warn(
        { err, apiKeyId: id, agent: claim.message.agent },
        "agent renouncement not sent; retried by the drain loop",
      );
      await keys.releaseRenouncement(id, null);
    }
  }
  return keys.agentRevocation(id);
}

export function createAgentRenouncer(deps: RenouncerDeps): AgentRenouncer {
  const { keys, logger } = deps;
  const leaseMs = deps.leaseMs ?? RENOUNCEMENT_LEASE_MS;

  const once = (id: string) => renounceOnce(deps, leaseMs, id);

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const renouncer: AgentRenouncer = {
    async attempt(id, waitMs) {
      const run = once(id);
      if (waitMs === undefined) return run;
      let timeout: NodeJS.Timeout | undefined;
      const late = new Promise<AgentRevocationState>((resolve) => {
        timeout = setTimeout(() => resolve({ status: "pending", txHash: null }), waitMs);
      });
      run.catch((err) => logger.warn({ err, apiKeyId: id }, "agent renouncement attempt failed"));
      try {
        return await Promise.race([run, late]);
      } finally {
        clearTimeout(timeout);
      }
    },
    async drain() {
      for (const id of await keys.pendingRenouncements(100)) {
        if (stopped) return;
        try {
          await once(id);
        } catch (err) {
          logger.warn({ err, apiKeyId: id }, "agent renouncement attempt failed");
        }
      }
    },
    start(intervalMs) {
      stopped = false;
      const tick = () => {
        running = renouncer
          .drain()
          .catch((err) => logger.warn({ err }, "agent renouncement drain failed"))
          .finally(() => {
            if (!stopped) timer = setTimeout(tick, intervalMs);
          });
      };
      tick();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
  return renouncer;
}
