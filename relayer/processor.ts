// What a worker does with one claimed transfer row. Deposit: sign MINT (3 of 5 nodes, whoever answers),
// submit mint; "already minted" on chain means done, never an error (deposit-step.ts). Withdrawal: sign
// RELEASE, add the HSM co-signature at or above the token's threshold, queueRelease; once the challenge
// period is over and no guardian disputed it, executeRelease (release-steps.ts). Every step is resumable
// from the row's state; a failure here becomes a backoff, or `failed` when no retry can fix it.
import { systemClock } from "../runtime/clock";
import { isMpcError } from "../signer-cluster/errors";
import type { TransferRow } from "./store";
import { processDeposit } from "./deposit-step";
import { executeRelease, queueRelease } from "./release-steps";
import { revertOf } from "./submitter";
import {
  countTransfer,
  createTransferContext,
  LeaseLost,
  NotYet,
  type ProcessorDeps,
  type TransferContext,
} from "./transfer-context";

export type { ProcessorDeps, ProcessorLogger } from "./transfer-context";

/** Reverts that no retry can fix: the transfer fails (with the revert's name recorded). */
const PERMANENT_REVERTS = new Set([
  "BridgeMinterTokenNotRegistered",
  "BridgeMinterAmountZero",
  "BridgeMinterRecipientZero",
  "BridgeVaultTokenNotAllowed",
  "BridgeVaultRecipientZero",
]);

export function createProcessor(deps: ProcessorDeps) {
  const ctx = createTransferContext(deps, deps.clock ?? systemClock);
  return {
    async process(row: TransferRow): Promise<void> {
      try {
        if (row.kind === "deposit") await processDeposit(ctx, row);
        else if (row.status === "release_queued") await executeRelease(ctx, row);
        else await queueRelease(ctx, row);
      } catch (err) {
        await onError(ctx, row, err).catch((e) => deps.logger.warn({ err: String(e) }, "cannot record a failure"));
      }
    },
  };
}

/** Backoff for what may succeed later; `failed` for what never will. */
async function onError(ctx: TransferContext, row: TransferRow, err: unknown) {
  if (err instanceof LeaseLost) return;
  const { deps, owner } = ctx;
  const { permanent, message } = describeError(err);
  const attempts = row.attempts + 1;
  const d = deps.deployment;
  if (permanent) {
    deps.logger.warn({ bridge: d.bridge, kind: row.kind, nonce: row.nonce, err: message }, "transfer failed");
    await deps.store.update(row, owner, { status: "failed", failed_at: "now", last_error: message, attempts }, true);
    countTransfer(row, "failed");
    deps.onProgress?.(row, { status: "failed" });
    return;
  }
  // an invalid signature (e.g. a rotation between signing and submitting) is dropped and made again
  const dropSignature =
    revertOf(err)?.errorName === "BridgeSignatureInvalid" || (isMpcError(err) && err.code === "EPOCH_MISMATCH");
  const delay =
    err instanceof NotYet && err.retryAt
      ? err.retryAt.getTime() - ctx.clock.now()
      : Math.min(deps.config.retryMaxMs, deps.config.retryBaseMs * 2 ** Math.min(attempts - 1, 16));
  if (!(err instanceof NotYet))
    deps.logger.warn(
      { bridge: d.bridge, kind: row.kind, nonce: row.nonce, attempts, retryInMs: delay, err: message },
      "transfer step failed; retrying",
    );
  await deps.store.update(
    row,
    owner,
    {
      attempts,
      last_error: message,
      next_attempt_at: new Date(ctx.clock.now() + Math.max(0, delay)),
      ...(dropSignature ? { signature: null, hsm_signature: null } : {}),
    },
    true,
  );
}

/** Whether no retry can fix `err`, and how the row's last_error names it. */
function describeError(err: unknown): { permanent: boolean; message: string } {
  const revert = revertOf(err);
  const permanent =
    (isMpcError(err) && !err.retryable) || (revert !== undefined && PERMANENT_REVERTS.has(revert.errorName));
  const message = isMpcError(err)
    ? `${err.code}: ${err.message}`
    : revert
      ? `${revert.errorName}: ${revert.message}`
      : ((err as Error)?.message ?? String(err));
  return { permanent, message };
}
