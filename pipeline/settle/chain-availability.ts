// Whether the home chain can settle now, from two signals: the chain's supervisor (npm start's chain
// layer reports its node down the moment it dies, with how long a restart takes) and the settle sender
// itself (a send or read that fails because nothing answers: connection refused, reset, the chain's
// "unavailable"). While either says down, the intake refuses new orders with CHAIN_UNAVAILABLE naming the
// chain and a Retry-After that fits the restart; health reports the chain unavailable. The supervisor's
// "up", or any send or read that succeeds, ends the sender's verdict.
import type { Clock } from "../../runtime/clock";
import { PipelineError } from "../errors";
import type { SettleSender } from "./settle-sender";

/** What the pipeline needs of a supervised chain (scripts/chain's RunningChain has this shape). */
export interface SupervisedChain {
  status(): SupervisedChainStatus;
  onStatus(fn: (s: SupervisedChainStatus) => void): () => void;
}

export interface SupervisedChainStatus {
  state: "up" | "down";
  /** wall-clock ms of the last change */
  sinceMs: number;
  /** how long a restart is expected to take (ms) */
  expectedRestartMs: number;
  reason?: string;
}

export interface ChainAvailabilityHealth {
  state: "ok" | "unavailable";
  chainId: number;
  sinceMs?: number;
  reason?: string;
}

/** failures that mean "nothing answers" (not a revert, not a nonce race) */
const UNREACHABLE =
  /ECONNREFUSED|ECONNRESET|socket hang up|fetch failed|HTTP request failed|Unexpected server response|connection closed|is unavailable/i;

/** Advised when only the sender saw the chain fail (no supervisor's estimate). */
const DEFAULT_RETRY_AFTER_MS = 2_000;

export interface ChainAvailability {
  /** The sender, watched: its unreachable failures mark the chain down, its successes up. */
  watch(sender: SettleSender): SettleSender;
  /** The refusal to answer a new order with now, or undefined when the chain can settle. */
  refusal(): PipelineError | undefined;
  health(): ChainAvailabilityHealth;
  /** Called when the supervisor reports the chain up again (the batcher retries at once). */
  onUp(fn: () => void): void;
  close(): void;
}

export function createChainAvailability(opts: {
  chainId: number;
  clock: Clock;
  supervisor?: SupervisedChain;
}): ChainAvailability {
  const { chainId, clock } = opts;
  let senderDown: { sinceMs: number; reason: string } | undefined;
  const upListeners: (() => void)[] = [];
  const unsubscribe = opts.supervisor?.onStatus((s) => {
    if (s.state !== "up") return;
    senderDown = undefined;
    for (const fn of upListeners) fn();
  });

  const down = (): { sinceMs: number; reason?: string; retryAfterMs: number } | undefined => {
    const s = opts.supervisor?.status();
    if (s?.state === "down")
      return {
        sinceMs: s.sinceMs,
        reason: s.reason,
        retryAfterMs: Math.max(1_000, s.sinceMs + s.expectedRestartMs - clock.now()),
      };
    if (senderDown) return { ...senderDown, retryAfterMs: DEFAULT_RETRY_AFTER_MS };
    return undefined;
  };
  const seen = <T>(p: Promise<T>): Promise<T> =>
    p.then(
      (v) => {
        senderDown = undefined;
        return v;
      },
      (e: unknown) => {
        const message = (e as Error)?.message ?? String(e);
        if (UNREACHABLE.test(message)) senderDown ??= { sinceMs: clock.now(), reason: message.slice(0, 200) };
        throw e;
      },
    );

  return {
    watch(sender) {
      return {
        nextBatchId: () => seen(sender.nextBatchId()),
        send: (batchId, args) => seen(sender.send(batchId, args)),
        ...(sender.simulate ? { simulate: sender.simulate.bind(sender) } : {}),
        ...(sender.reset ? { reset: sender.reset.bind(sender) } : {}),
        ...(sender.close ? { close: sender.close.bind(sender) } : {}),
      };
    },
    refusal() {
      const d = down();
      if (!d) return undefined;
      const retryAfterS = Math.ceil(d.retryAfterMs / 1000);
      return new PipelineError("CHAIN_UNAVAILABLE", `home chain ${chainId} is unavailable`, {
        chainId,
        retry_after: retryAfterS,
      });
    },
    health() {
      const d = down();
      return d
        ? { state: "unavailable", chainId, sinceMs: d.sinceMs, ...(d.reason ? { reason: d.reason } : {}) }
        : { state: "ok", chainId };
    },
    onUp(fn) {
      upListeners.push(fn);
    },
    close() {
      unsubscribe?.();
    },
  };
}
