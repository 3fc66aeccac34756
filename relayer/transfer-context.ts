// What every step of a transfer works with: the processor's dependencies, the lease-checked row update,
// the destination contracts' cached core (pause flag, key epoch), and the signature a step submits.
import type { Address, Hex, PublicClient } from "viem";
import type { Clock } from "../runtime/clock";
import { AppError } from "../runtime/errors";
import { metrics } from "../runtime/metrics";
import type { BridgeAbis } from "../sdk/bridge-abi";
import type { RelayerStore, TransferPatch, TransferRow } from "./store";
import type { Submitter } from "./submitter";
import type { BridgeSigner, HsmCosigner, RelayerConfig, RelayerDeployment, SourceEventRef } from "./types";

export interface ProcessorLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** A step that submits a transaction; the test hook `afterSubmit` names it. */
export type SubmitStep = "mint" | "queueRelease" | "executeRelease";

export interface ProcessorDeps {
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
  afterSubmit?: (row: TransferRow, step: SubmitStep) => void;
  /** default: the system clock */
  clock?: Clock;
}

interface ContractCore {
  paused: boolean;
  keyEpoch: number;
}

export interface TransferContext {
  deps: ProcessorDeps;
  clock: Clock;
  /** this relayer's id: the lease owner every update is conditioned on */
  owner: string;
  minterCore: () => Promise<ContractCore>;
  vaultCore: () => Promise<ContractCore>;
}

/** A step that cannot proceed yet; retried with backoff (or at `retryAt`). */
export class NotYet extends AppError<"NOT_YET"> {
  constructor(
    message: string,
    readonly retryAt?: Date,
  ) {
    super("NOT_YET", message, { retryable: true });
    this.name = "NotYet";
  }
}

/** Another worker took the transfer: this one drops it (nothing to retry here). */
export class LeaseLost extends AppError<"LEASE_LOST"> {
  constructor() {
    super("LEASE_LOST", "the lease on this transfer was lost to another worker");
    this.name = "LeaseLost";
  }
}

// Epoch and pause change rarely; a stale read costs one failed estimate and a retry (a rotation drops the
// signature, a pause backs off), so concurrent transfers share one read per CORE_TTL_MS.
const CORE_TTL_MS = 250;

function cached<T>(clock: Clock, read: () => Promise<T>): () => Promise<T> {
  let hit: { at: number; value: Promise<T> } | undefined;
  return () => {
    if (!hit || clock.now() - hit.at > CORE_TTL_MS) {
      const value = read();
      hit = { at: clock.now(), value };
      value.catch(() => (hit = undefined));
    }
    return hit.value;
  };
}

export function createTransferContext(deps: ProcessorDeps, clock: Clock): TransferContext {
  return {
    deps,
    clock,
    owner: deps.config.relayerId,
    minterCore: cached(clock, async () => {
      const [, paused, keyEpoch] = await readMinter<[Address, boolean, bigint, bigint]>(deps, "core");
      return { paused, keyEpoch: Number(keyEpoch) };
    }),
    vaultCore: cached(clock, async () => {
      const [, paused, , keyEpoch] = await readVault<[Address, boolean, number, bigint]>(deps, "core");
      return { paused, keyEpoch: Number(keyEpoch) };
    }),
  };
}

/** Applies `patch` while this relayer holds the lease (LeaseLost otherwise), counts and reports it. */
export async function updateRow(ctx: TransferContext, row: TransferRow, patch: TransferPatch, releaseLease = false) {
  const ok = await ctx.deps.store.update(row, ctx.owner, patch, releaseLease);
  if (!ok) throw new LeaseLost();
  countTransfer(row, patch.status);
  ctx.deps.onProgress?.(row, patch);
}

/** Reads `functionName(args)` from the minter on the remote chain. */
export async function readMinter<T>(deps: ProcessorDeps, functionName: string, args?: readonly unknown[]) {
  const { remote, deployment: d, abis } = deps;
  const call = { address: d.remote.minter, abi: abis.minter, functionName, ...(args ? { args } : {}) };
  return (await remote.publicClient.readContract(call as never)) as T;
}

/** Reads `functionName(args)` from the vault on the home chain. */
export async function readVault<T>(deps: ProcessorDeps, functionName: string, args?: readonly unknown[]) {
  const { home, deployment: d, abis } = deps;
  const call = { address: d.home.vault, abi: abis.vault, functionName, ...(args ? { args } : {}) };
  return (await home.publicClient.readContract(call as never)) as T;
}

/** Sends `functionName(args)` to the minter on the remote chain and waits for its receipt. */
export function sendToMinter(ctx: TransferContext, functionName: SubmitStep, args: readonly unknown[]) {
  const { remote, deployment: d, abis } = ctx.deps;
  return remote.submitter.send({ address: d.remote.minter, abi: abis.minter, functionName, args });
}

/** Sends `functionName(args)` to the vault on the home chain and waits for its receipt. */
export function sendToVault(ctx: TransferContext, functionName: SubmitStep, args: readonly unknown[]) {
  const { home, deployment: d, abis } = ctx.deps;
  return home.submitter.send({ address: d.home.vault, abi: abis.vault, functionName, args });
}

/** Where the signers find the row's source event. */
export function sourceRef(row: TransferRow): SourceEventRef {
  return {
    kind: row.kind === "deposit" ? "MINT" : "RELEASE",
    srcChainId: Number(row.src_chain_id),
    nonce: BigInt(row.nonce),
    blockNumber: BigInt(row.src_block),
    txHash: row.src_tx_hash as Hex,
  };
}

/** A signature for the destination's current epoch: the stored one if it still fits, else a new one. */
export async function signatureFor(ctx: TransferContext, row: TransferRow, keyEpoch: number) {
  if (row.signature && row.key_epoch !== null && Number(row.key_epoch) === keyEpoch)
    return { signature: row.signature as Hex, hsm: row.hsm_signature as Hex | null };
  const sig = await ctx.deps.signer.sign(sourceRef(row), keyEpoch);
  const hsm = row.kind === "withdrawal" ? await hsmCosignature(ctx, row, keyEpoch) : null;
  await updateRow(ctx, row, {
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

/** The HSM's co-signature of a release at or above the token's threshold; null below it. */
async function hsmCosignature(ctx: TransferContext, row: TransferRow, keyEpoch: number): Promise<Hex | null> {
  const [, , hsmThresholdWei] = await readVault<[boolean, bigint, bigint, bigint]>(ctx.deps, "tokenConfig", [
    row.token,
  ]);
  if (BigInt(row.amount_wei) < hsmThresholdWei) return null;
  if (!ctx.deps.hsm) throw new NotYet("release needs the HSM co-signature and no HSM is configured");
  return (await ctx.deps.hsm.cosign(sourceRef(row), keyEpoch)).signature;
}

/** dex_bridge_transfers_total by the status a transfer reached; its completion (minted on the remote chain,
 *  released on the home chain) also as dex_bridge_transfer_seconds from its source event's observation. */
export function countTransfer(row: TransferRow, status: string | undefined): void {
  if (status === undefined) return;
  metrics.bridgeTransfers.inc({ status });
  if (status === "minted" || status === "released")
    metrics.bridgeTransferLatency.observe(Math.max(0, Date.now() - new Date(row.observed_at).getTime()) / 1000);
}
