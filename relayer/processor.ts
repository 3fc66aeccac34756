// What a worker does with one claimed transfer row. Deposit: sign MINT (3 of 5 nodes, whoever answers),
// submit mint; "already minted" on chain means done, never an error. Withdrawal: sign RELEASE, add the
// HSM co-signature at or above the token's threshold, queueRelease; once the challenge period is over
// and no guardian disputed it, executeRelease. Every step is resumable from the row's state.
import { metrics } from "../runtime/metrics";
import { decodeEventLog, type Address, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import { systemClock, type Clock } from "../runtime/clock";
import { AppError } from "../runtime/errors";
import { isMpcError } from "../signer-cluster/errors";
import { BRIDGE_MINTED, BRIDGE_RELEASE_QUEUED, ReleaseStatus, type BridgeAbis } from "../sdk/bridge-abi";
import type { RelayerStore, TransferPatch, TransferRow } from "./store";
import { revertOf, type Submitter } from "./submitter";
import type { BridgeSigner, HsmCosigner, RelayerConfig, RelayerDeployment, SourceEventRef } from "./types";

export interface ProcessorLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** Reverts that no retry can fix: the transfer fails (with the revert's name recorded). */
const PERMANENT_REVERTS = new Set([
  "BridgeMinterTokenNotRegistered",
  "BridgeMinterAmountZero",
  "BridgeMinterRecipientZero",
  "BridgeVaultTokenNotAllowed",
  "BridgeVaultRecipientZero",
]);

/** A step that cannot proceed yet; retried with backoff (or at `retryAt`). */
class NotYet extends AppError<"NOT_YET"> {
  constructor(
    message: string,
    readonly retryAt?: Date,
  ) {
    super("NOT_YET", message, { retryable: true });
    this.name = "NotYet";
  }
}

export function createProcessor(deps: {
  config: RelayerConfig;
  logger: ProcessorLogger;
  store: RelayerStore;
  deployment: RelayerDeployment;
  abis: BridgeAbis;
  home: { publicClient: PublicClient; submitter: Submitter };
  remote: { publicClient: PublicClient; submitter: Submitter };
  signer: BridgeSigner;
  hsm?: HsmCosigner;
  /** observers (tests, metrics): a transfer reached a terminal or waiting state */
  onProgress?: (row: TransferRow, patch: TransferPatch) => void;
  /** test hook: runs after a mint / queueRelease / executeRelease is mined, before SQL records it */
  afterSubmit?: (row: TransferRow, step: "mint" | "queueRelease" | "executeRelease") => void;
  /** default: the system clock */
  clock?: Clock;
}) {
  const { config, store, deployment: d, abis, home, remote } = deps;
  const clock = deps.clock ?? systemClock;
  const owner = config.relayerId;

  const update = async (row: TransferRow, patch: TransferPatch, releaseLease = false) => {
    const ok = await store.update(row, owner, patch, releaseLease);
    if (!ok) throw new LeaseLost();
    countTransfer(row, patch.status);
    deps.onProgress?.(row, patch);
  };

  const ref = (row: TransferRow): SourceEventRef => ({
    kind: row.kind === "deposit" ? "MINT" : "RELEASE",
    srcChainId: Number(row.src_chain_id),
    nonce: BigInt(row.nonce),
    blockNumber: BigInt(row.src_block),
    txHash: row.src_tx_hash as Hex,
  });

  // Epoch and pause change rarely; a stale read costs one failed estimate and a retry (a rotation drops the
  // signature, a pause backs off), so concurrent transfers share one read per CORE_TTL_MS.
  const CORE_TTL_MS = 250;
  const cached = <T>(read: () => Promise<T>) => {
    let hit: { at: number; value: Promise<T> } | undefined;
    return () => {
      if (!hit || clock.now() - hit.at > CORE_TTL_MS) {
        const value = read();
        hit = { at: clock.now(), value };
        value.catch(() => (hit = undefined));
      }
      return hit.value;
    };
  };
  const minterCore = cached(async () => {
    const [, paused, keyEpoch] = (await remote.publicClient.readContract({
      address: d.remote.minter,
      abi: abis.minter,
      functionName: "core",
    })) as [Address, boolean, bigint, bigint];
    return { paused, keyEpoch: Number(keyEpoch) };
  });
  const vaultCore = cached(async () => {
    const [, paused, , keyEpoch] = (await home.publicClient.readContract({
      address: d.home.vault,
      abi: abis.vault,
      functionName: "core",
    })) as [Address, boolean, number, bigint];
    return { paused, keyEpoch: Number(keyEpoch) };
  });

  /** A signature for the destination's current epoch: the stored one if it still fits, else a new one. */
  async function signatureFor(row: TransferRow, keyEpoch: number) {
    if (row.signature && row.key_epoch !== null && Number(row.key_epoch) === keyEpoch)
      return { signature: row.signature as Hex, hsm: row.hsm_signature as Hex | null };
    const sig = await deps.signer.sign(ref(row), keyEpoch);
    let hsm: Hex | null = null;
    if (row.kind === "withdrawal") {
      const [, , hsmThresholdWei] = (await home.publicClient.readContract({
        address: d.home.vault,
        abi: abis.vault,
        functionName: "tokenConfig",
        args: [row.token],
      })) as [boolean, bigint, bigint, bigint];
      if (BigInt(row.amount_wei) >= hsmThresholdWei) {
        if (!deps.hsm) throw new NotYet("release needs the HSM co-signature and no HSM is configured");
        hsm = (await deps.hsm.cosign(ref(row), keyEpoch)).signature;
      }
    }
    await update(row, {
      status: "signed",
      signature: sig.signature,
      hsm_signature: hsm,
      key_epoch: sig.keyEpoch,
      signers: sig.signers.join(","),
      signed_at: "now",
    });
    row.signature = sig.signature;
    row.hsm_signature = hsm;
    row.key_epoch = String(sig.keyEpoch);
    return { signature: sig.signature, hsm };
  }

  /** The wall-clock moment the home chain's clock should reach `readyAt`: the challenge period runs in
   *  chain time, and a chain mining many blocks per second runs ahead of the wall clock. */
  async function whenChainReaches(readyAt: bigint, blockNumber?: bigint): Promise<Date> {
    const block = await home.publicClient.getBlock(
      blockNumber === undefined ? { blockTag: "latest" } : { blockNumber },
    );
    return new Date(clock.now() + Math.max(0, Number(readyAt - block.timestamp)) * 1000);
  }

  async function mintedTx(nonce: bigint): Promise<Hex | undefined> {
    const logs = await remote.publicClient.getLogs({
      address: d.remote.minter,
      event: BRIDGE_MINTED,
      args: { depositNonce: nonce },
      fromBlock: d.remote.fromBlock,
      toBlock: "latest",
    });
    return logs[0]?.transactionHash ?? undefined;
  }

  async function processDeposit(row: TransferRow) {
    const nonce = BigInt(row.nonce);
    const core = await minterCore();
    if (core.paused) throw new NotYet("the minter is paused");
    const { signature } = await signatureFor(row, core.keyEpoch);
    let receipt: TransactionReceipt | undefined;
    try {
      receipt = await remote.submitter.send({
        address: d.remote.minter,
        abi: abis.minter,
        functionName: "mint",
        args: [nonce, row.token, row.recipient, BigInt(row.amount_wei), signature],
      });
    } catch (err) {
      const revert = revertOf(err);
      const already =
        revert?.errorName === "BridgeMinterDepositAlreadyMinted" ||
        (revert?.errorName === "OnChainRevert" &&
          ((await remote.publicClient.readContract({
            address: d.remote.minter,
            abi: abis.minter,
            functionName: "isMinted",
            args: [nonce],
          })) as boolean));
      if (!already) throw err;
      // another relayer (or this one before a crash) minted it: done, with that mint's transaction
      deps.logger.info({ bridge: d.bridge, nonce: row.nonce }, "deposit already minted; recording it as done");
      await update(
        row,
        { status: "minted", dst_tx_hash: await mintedTx(nonce), minted_at: "now", last_error: null },
        true,
      );
      return;
    }
    deps.afterSubmit?.(row, "mint");
    await update(
      row,
      { status: "minted", dst_tx_hash: receipt.transactionHash, minted_at: "now", last_error: null },
      true,
    );
  }

  /** Brings the row in line with the vault's record of this burn; true when nothing is left to queue. */
  async function syncRelease(row: TransferRow): Promise<boolean> {
    const nonce = BigInt(row.nonce);
    const [status] = (await home.publicClient.readContract({
      address: d.home.vault,
      abi: abis.vault,
      functionName: "getRelease",
      args: [nonce],
    })) as [number, Hex];
    if (status === ReleaseStatus.None) return false;
    if (status === ReleaseStatus.Disputed) await update(row, { status: "disputed", disputed_at: "now" }, true);
    else if (status === ReleaseStatus.Executed) await update(row, { status: "released", released_at: "now" }, true);
    else if (row.status !== "release_queued") {
      const readyAt = (await home.publicClient.readContract({
        address: d.home.vault,
        abi: abis.vault,
        functionName: "releaseReadyAt",
        args: [nonce],
      })) as bigint;
      await update(
        row,
        {
          status: "release_queued",
          ready_at: readyAt,
          release_queued_at: "now",
          next_attempt_at: await whenChainReaches(readyAt),
        },
        true,
      );
    } else return false; // queued, and we know it: time to execute
    return true;
  }

  async function queue(row: TransferRow) {
    if (await syncRelease(row)) return;
    const core = await vaultCore();
    if (core.paused) throw new NotYet("the vault is paused");
    const { signature, hsm } = await signatureFor(row, core.keyEpoch);
    let receipt: TransactionReceipt;
    try {
      receipt = await home.submitter.send({
        address: d.home.vault,
        abi: abis.vault,
        functionName: "queueRelease",
        args: [BigInt(row.nonce), row.token, row.recipient, BigInt(row.amount_wei), signature, hsm ?? "0x"],
      });
    } catch (err) {
      const name = revertOf(err)?.errorName;
      if ((name === "BridgeVaultBurnAlreadyReleased" || name === "OnChainRevert") && (await syncRelease(row))) return;
      throw err;
    }
    deps.afterSubmit?.(row, "queueRelease");
    const readyAt =
      readyAtOf(receipt) ??
      ((await home.publicClient.readContract({
        address: d.home.vault,
        abi: abis.vault,
        functionName: "releaseReadyAt",
        args: [BigInt(row.nonce)],
      })) as bigint);
    await update(
      row,
      {
        status: "release_queued",
        ready_at: readyAt,
        dst_tx_hash: receipt.transactionHash,
        release_queued_at: "now",
        next_attempt_at: await whenChainReaches(readyAt, receipt.blockNumber),
        last_error: null,
      },
      true,
    );
  }

  async function execute(row: TransferRow) {
    if (await syncRelease(row)) return;
    try {
      const receipt = await home.submitter.send({
        address: d.home.vault,
        abi: abis.vault,
        functionName: "executeRelease",
        args: [BigInt(row.nonce), row.token, row.recipient, BigInt(row.amount_wei)],
      });
      deps.afterSubmit?.(row, "executeRelease");
      await update(
        row,
        { status: "released", execute_tx_hash: receipt.transactionHash, released_at: "now", last_error: null },
        true,
      );
    } catch (err) {
      const revert = revertOf(err);
      if (revert?.errorName === "BridgeVaultChallengePeriodActive") {
        // the chain's clock decides: wait until its latest block is past readyAt (at least 100 ms)
        const block = await home.publicClient.getBlock({ blockTag: "latest" });
        const waitMs = Math.min(
          1_000,
          Math.max(100, (Number(revert.args[1] ?? row.ready_at) - Number(block.timestamp)) * 1_000),
        );
        throw new NotYet("challenge period still running", new Date(clock.now() + waitMs));
      }
      if (revert && (await syncRelease(row))) return;
      throw err;
    }
  }

  /** Backoff for what may succeed later; `failed` for what never will. */
  async function onError(row: TransferRow, err: unknown) {
    if (err instanceof LeaseLost) return;
    const revert = revertOf(err);
    const permanent =
      (isMpcError(err) && !err.retryable) || (revert !== undefined && PERMANENT_REVERTS.has(revert.errorName));
    const message = isMpcError(err)
      ? `${err.code}: ${err.message}`
      : revert
        ? `${revert.errorName}: ${revert.message}`
        : ((err as Error)?.message ?? String(err));
    const attempts = row.attempts + 1;
    if (permanent) {
      deps.logger.warn({ bridge: d.bridge, kind: row.kind, nonce: row.nonce, err: message }, "transfer failed");
      await store.update(row, owner, { status: "failed", failed_at: "now", last_error: message, attempts }, true);
      countTransfer(row, "failed");
      deps.onProgress?.(row, { status: "failed" });
      return;
    }
    // an invalid signature (e.g. a rotation between signing and submitting) is dropped and made again
    const dropSignature =
      revert?.errorName === "BridgeSignatureInvalid" || (isMpcError(err) && err.code === "EPOCH_MISMATCH");
    const delay =
      err instanceof NotYet && err.retryAt
        ? err.retryAt.getTime() - clock.now()
        : Math.min(config.retryMaxMs, config.retryBaseMs * 2 ** Math.min(attempts - 1, 16));
    if (!(err instanceof NotYet))
      deps.logger.warn(
        { bridge: d.bridge, kind: row.kind, nonce: row.nonce, attempts, retryInMs: delay, err: message },
        "transfer step failed; retrying",
      );
    await store.update(
      row,
      owner,
      {
        attempts,
        last_error: message,
        next_attempt_at: new Date(clock.now() + Math.max(0, delay)),
        ...(dropSignature ? { signature: null, hsm_signature: null } : {}),
      },
      true,
    );
  }

  return {
    async process(row: TransferRow): Promise<void> {
      try {
        if (row.kind === "deposit") await processDeposit(row);
        else if (row.status === "release_queued") await execute(row);
        else await queue(row);
      } catch (err) {
        await onError(row, err).catch((e) => deps.logger.warn({ err: String(e) }, "cannot record a failure"));
      }
    },
  };
}

/** Another worker took the transfer: this one drops it (nothing to retry here). */
class LeaseLost extends AppError<"LEASE_LOST"> {
  constructor() {
    super("LEASE_LOST", "the lease on this transfer was lost to another worker");
    this.name = "LeaseLost";
  }
}

function readyAtOf(receipt: TransactionReceipt): bigint | undefined {
  for (const log of receipt.logs) {
    try {
      const ev = decodeEventLog({ abi: [BRIDGE_RELEASE_QUEUED], data: log.data, topics: log.topics });
      return ev.args.readyAt;
    } catch {
      /* another event */
    }
  }
  return undefined;
}

/** dex_bridge_transfers_total by the status a transfer reached; its completion (minted on the remote chain,
 *  released on the home chain) also as dex_bridge_transfer_seconds from its source event's observation. */
function countTransfer(row: TransferRow, status: string | undefined): void {
  if (status === undefined) return;
  metrics.bridgeTransfers.inc({ status });
  if (status === "minted" || status === "released")
    metrics.bridgeTransferLatency.observe(Math.max(0, Date.now() - new Date(row.observed_at).getTime()) / 1000);
}
