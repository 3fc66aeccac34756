// The Settlement events the pipeline follows and what each does to the matcher service. While the chain's
// history is read (live = false) a withdrawal request only moves the ledger and is remembered in `pending`:
// the unfunded orders are cancelled once, after the history (the ledger is only complete at the head).
import type { MatcherService } from "../match/matcher-service";
import type { SettlementEvent } from "../follow/chain-follower";

export const FOLLOWED_SETTLEMENT_EVENTS = [
  "Deposited",
  "WithdrawalRequested",
  "WithdrawalCancelled",
  "WithdrawalExecuted",
  "OrderCancelled",
  "OrdersCancelledBelow",
  "AgentApproved",
  "AgentRevoked",
  "FeesUpdated",
];

export async function applySettlementEvent(
  service: MatcherService,
  e: SettlementEvent,
  live: boolean,
  pending: Set<string>,
): Promise<void> {
  const a = e.args as Record<string, never>;
  switch (e.name) {
    case "Deposited":
      service.deposited(a.trader, a.token, a.amount);
      break;
    case "WithdrawalRequested":
      if (live) await service.withdrawalRequested(a.trader, a.token, a.amount);
      else {
        service.ledger.withdrawalRequested(a.trader, a.token, a.amount);
        pending.add(`${a.trader}:${a.token}`);
      }
      break;
    case "WithdrawalCancelled":
      service.withdrawalCancelled(a.trader, a.token);
      break;
    case "WithdrawalExecuted":
      service.withdrawalExecuted(a.trader, a.token, a.amount);
      break;
    case "OrderCancelled":
      await service.nonceCancelledOnChain(a.trader, a.nonce);
      break;
    case "OrdersCancelledBelow":
      await service.minNonceRaised(a.trader, a.minNonce);
      break;
    case "AgentApproved":
      service.agentApproved(a.trader, a.agent, BigInt(a.expiry));
      break;
    case "AgentRevoked":
      await service.agentRevoked(a.trader, a.agent);
      break;
    case "FeesUpdated":
      service.setFees({ makerFeeBps: BigInt(a.makerFeeBps), takerFeeBps: BigInt(a.takerFeeBps) });
      break;
    default:
      break;
  }
}

/** The withdrawals requested during the history: their unfunded orders cancelled, once. */
export async function cancelUnfundedAfterHistory(service: MatcherService, pending: Set<string>): Promise<void> {
  for (const k of pending) {
    const [trader, token] = k.split(":");
    await service.cancelUnfunded(trader, token);
  }
}
