// Handlers of the bridge contracts. A transfer row is keyed by its source event, so the destination
// chain's mint or release (indexed independently, possibly first) lands on the same row.
import { type Context, ponder } from "ponder:registry";
import { bridgeBurn, bridgeCounterpart, bridgeDeposit, bridgeTransfer } from "ponder:schema";
import { activeContracts, deployments } from "../active";
import { type BridgeStatus, advanceStatus, transferId } from "../lib/bridgeStatus";
import { lc, logPlace } from "../lib/trades";

type Db = Context["db"];

/** Merges `fields` into the transfer `id`, creating it if absent; the status never moves backwards. */
export async function upsertTransfer(
  db: Db,
  id: string,
  key: { kind: "mint" | "release"; srcChainId: bigint; srcContract: `0x${string}`; nonce: bigint },
  status: BridgeStatus,
  fields: Partial<typeof bridgeTransfer.$inferInsert>,
  updatedAt: bigint,
) {
  const current = await db.find(bridgeTransfer, { id });
  if (!current) {
    await db.insert(bridgeTransfer).values({ id, ...key, ...fields, status, updatedAt });
    return;
  }
  await db
    .update(bridgeTransfer, { id })
    .set({ ...fields, status: advanceStatus(current.status as BridgeStatus, status), updatedAt });
}

/** The contract `contract` on `chainId` was told its counterpart is `counterpart`, else what the deployments say. */
async function counterpartOf(db: Db, chainId: number, contract: string, fallback: string | undefined) {
  const row = await db.find(bridgeCounterpart, { id: `${chainId}-${contract}` });
  return row?.counterpart ?? fallback?.toLowerCase();
}

async function setCounterpart(db: Db, chainId: number, contract: string, counterpart: string) {
  const values = { counterpart: lc(counterpart) };
  await db
    .insert(bridgeCounterpart)
    .values({ id: `${chainId}-${contract}`, ...values })
    .onConflictDoUpdate(values);
}

/** The paying side of a transfer, as its destination chain's event tells it. */
const payout = (chainId: number, contract: `0x${string}`, token: string, a: { recipient: string; amount: bigint }) => ({
  dstChainId: BigInt(chainId),
  dstContract: contract,
  token: lc(token),
  recipient: lc(a.recipient),
  amount: a.amount,
});

/** What a source event (a vault's deposit, a minter's burn) says of its transfer besides the token, lowercased. */
const sourceFields = (a: {
  sender: string;
  recipient: string;
  amount: bigint;
  dstChainId: bigint;
  dstContract: string;
}) => ({
  sender: lc(a.sender),
  recipient: lc(a.recipient),
  amount: a.amount,
  dstChainId: a.dstChainId,
  dstContract: lc(a.dstContract),
});

/** The transfer that the source event of `srcContract`'s `nonce` starts, at `status`, with `fields`. */
const startTransfer = (
  {
    event,
    context,
  }: { event: { transaction: { hash: `0x${string}` }; block: { timestamp: bigint } }; context: Context },
  kind: "mint" | "release",
  srcContract: `0x${string}`,
  nonce: bigint,
  status: BridgeStatus,
  fields: Partial<typeof bridgeTransfer.$inferInsert>,
) =>
  upsertTransfer(
    context.db,
    transferId(context.chain.id, srcContract, nonce),
    { kind, srcChainId: BigInt(context.chain.id), srcContract, nonce },
    status,
    { ...fields, srcTxHash: event.transaction.hash, srcTimestamp: event.block.timestamp },
    event.block.timestamp,
  );

/** A transfer paid out by this event's transaction. */
const completion = (event: { transaction: { hash: `0x${string}` }; block: { timestamp: bigint } }) => ({
  dstTxHash: event.transaction.hash,
  completedAt: event.block.timestamp,
});

if (activeContracts.BridgeVault) {
  ponder.on("BridgeVault:BridgeDeposited", async (e) => {
    const { event, context } = e;
    const a = event.args;
    const vault = lc(event.log.address);
    const common = { token: lc(a.token), ...sourceFields(a) };
    const id = transferId(context.chain.id, vault, a.nonce);
    await context.db
      .insert(bridgeDeposit)
      .values({ id, chainId: context.chain.id, vault, nonce: a.nonce, ...common, ...logPlace(event) });
    await startTransfer(e, "mint", vault, a.nonce, "deposited", common);
  });
}

if (activeContracts.BridgeMinter) {
  ponder.on("BridgeMinter:BridgeBurned", async (e) => {
    const { event, context } = e;
    const a = event.args;
    const minter = lc(event.log.address);
    const common = sourceFields(a);
    const homeToken = lc(a.homeToken);
    await context.db.insert(bridgeBurn).values({
      id: transferId(context.chain.id, minter, a.nonce),
      chainId: context.chain.id,
      minter,
      nonce: a.nonce,
      wrappedToken: lc(a.wrappedToken),
      homeToken,
      ...common,
      ...logPlace(event),
    });
    await startTransfer(e, "release", minter, a.nonce, "burned", { ...common, token: homeToken });
  });
}

if (activeContracts.BridgeVault) {
  ponder.on("BridgeVault:BridgeVaultMinterSet", async ({ event, context }) => {
    await setCounterpart(context.db, context.chain.id, lc(event.log.address), event.args.minter);
  });

  /** The release transfer a vault event completes: keyed by the remote burn it pays out. */
  const releaseKey = async (db: Db, chainId: number, vault: `0x${string}`, burnNonce: bigint) => {
    const remote = deployments.remote;
    const minter = await counterpartOf(db, chainId, vault, remote?.contracts.BridgeMinter);
    if (!remote || !minter) return undefined;
    const srcChainId = BigInt(remote.chainId);
    const key = { kind: "release" as const, srcChainId, srcContract: minter as `0x${string}`, nonce: burnNonce };
    return { id: transferId(srcChainId, minter, burnNonce), key };
  };

  /** Moves the release transfer that a vault's event names (by the burn it pays out) to `status`. */
  const advanceRelease = async (
    { event, context }: { event: { log: { address: string }; block: { timestamp: bigint } }; context: Context },
    burnNonce: bigint,
    status: BridgeStatus,
    fields: Partial<typeof bridgeTransfer.$inferInsert>,
  ) => {
    const r = await releaseKey(context.db, context.chain.id, lc(event.log.address), burnNonce);
    if (r) await upsertTransfer(context.db, r.id, r.key, status, fields, event.block.timestamp);
  };

  ponder.on("BridgeVault:BridgeReleaseQueued", async (e) => {
    const { event, context } = e;
    const a = event.args;
    const vault = lc(event.log.address);
    await advanceRelease(e, a.burnNonce, "queued", {
      ...payout(context.chain.id, vault, a.token, a),
      queuedAt: event.block.timestamp,
      releasableAt: a.readyAt,
    });
  });

  ponder.on("BridgeVault:BridgeReleaseDisputed", async (e) => {
    await advanceRelease(e, e.event.args.burnNonce, "disputed", { disputedAt: e.event.block.timestamp });
  });

  ponder.on("BridgeVault:BridgeReleaseExecuted", async (e) => {
    const { event, context } = e;
    const a = event.args;
    await advanceRelease(e, a.burnNonce, "released", {
      ...payout(context.chain.id, lc(event.log.address), a.token, a),
      ...completion(event),
    });
  });
}

if (activeContracts.BridgeMinter) {
  ponder.on("BridgeMinter:BridgeMinterVaultSet", async ({ event, context }) => {
    await setCounterpart(context.db, context.chain.id, lc(event.log.address), event.args.vault);
  });

  ponder.on("BridgeMinter:BridgeMinted", async ({ event, context }) => {
    const a = event.args;
    const minter = lc(event.log.address);
    const vault = await counterpartOf(context.db, context.chain.id, minter, deployments.home.contracts.BridgeVault);
    if (!vault) return;
    const srcChainId = BigInt(deployments.home.chainId);
    await upsertTransfer(
      context.db,
      transferId(srcChainId, vault, a.depositNonce),
      { kind: "mint", srcChainId, srcContract: vault as `0x${string}`, nonce: a.depositNonce },
      "minted",
      { ...payout(context.chain.id, minter, a.homeToken, a), ...completion(event) },
      event.block.timestamp,
    );
  });
}
