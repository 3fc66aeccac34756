// The bridge API's transfers. `initiate` records an `initiated` transfer and returns the calls the wallet
// must send (approve + deposit, or the wrapped-token burn) and the transfer's capability (access.ts),
// which every later read or completion needs. `complete` links the wallet's deposit or burn transaction
// (transfer-link.ts: the declared sender's signature and the transaction's matching event); for a
// withdrawal whose challenge period is over it executes the release. A transfer is read with its
// capability, or by its sender's signed read (wallet-read.ts), which also lists the wallet's transfers on
// the tenant (the portal's history in any browser). Status comes from the relayer's record once linked
// (transfer-view.ts): the API does not read the relayer's tables itself.
import { randomUUID } from "node:crypto";
import { encodeFunctionData, getAddress, type Address, type Hex, type PublicClient } from "viem";
import { z } from "zod";
import type { Db } from "../../db";
import { systemClock, type Clock } from "../../runtime/clock";
import type { BridgeAbis } from "../../sdk/bridge-abi";
import { newTransferToken, transferTokenMatches } from "./access";
import { BridgeApiError } from "./errors";
import type { RelayedTransferReader, ReleaseProcessor } from "./relayed-transfers";
import type { TenantConfig } from "./tenants";
import { nonceFromTx, requireSenderSignature, transferLinkMessage } from "./transfer-link";
import { transferView, type ApiRow } from "./transfer-view";
import { verifyWalletRead, WALLET_READ_HEADERS, type WalletRead } from "./wallet-read";

export { transferLinkMessage } from "./transfer-link";

export interface BridgeEndpoint {
  home: { chainId: number; vault: Address; publicClient: PublicClient };
  remote: { chainId: number; minter: Address; publicClient: PublicClient };
  /** in-process relayer of this bridge: `complete` executes due releases through it */
  relayer?: ReleaseProcessor;
}

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "expected an address")
  .transform((a) => getAddress(a));
export const initiateSchema = z
  .object({
    direction: z.enum(["deposit", "withdrawal"]),
    /** a token symbol of the tenant's bridge (e.g. "USD") or its home-token address */
    token: z.string().min(1).max(64),
    /** base units, decimal string (amounts can exceed 2^53) */
    amount: z.string().regex(/^[1-9]\d{0,77}$/, "a positive integer in base units, as a decimal string"),
    sender: address,
    recipient: address,
    /** optional: when given it must be the tenant the Host header names */
    tenantId: z.string().max(40).optional(),
  })
  .strict();
export const completeSchema = z
  .object({
    txHash: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, "a 32-byte transaction hash")
      .optional(),
    /** the declared sender's EIP-191 signature of transferLinkMessage(id, txHash) (EOA, or ERC-1271 wallet) */
    signature: z
      .string()
      .regex(/^0x(?:[0-9a-fA-F]{2}){65,4096}$/, "a hex signature (65 bytes for an EOA)")
      .optional(),
  })
  .strict();
export const idSchema = z.string().uuid("a transfer id (UUID)");

/** The most transfers a wallet's history lists (newest first). */
export const WALLET_HISTORY_LIMIT = 100;

/** How a request may read a transfer: its capability (X-Transfer-Token), or its sender's signed read. */
export interface TransferAccess {
  token?: unknown;
  wallet?: WalletRead;
}

interface TransferContext {
  db: Db;
  abis: BridgeAbis;
  bridges: Record<string, BridgeEndpoint>;
  relayedTransfers: RelayedTransferReader;
  clock: Clock;
}

function bridgeOf(ctx: TransferContext, name: string): BridgeEndpoint {
  const b = ctx.bridges[name];
  if (!b) throw new BridgeApiError("SERVICE_UNAVAILABLE", `bridge ${name} is not running`, { bridge: name });
  return b;
}

function tokenOf(tenant: TenantConfig, token: string) {
  const home = tenant.chains.find((c) => c.role === "home");
  const remote = tenant.chains.find((c) => c.role === "remote");
  const t = home?.tokens.find((x) => x.symbol === token || x.address.toLowerCase() === token.toLowerCase());
  const w = remote?.tokens.find((x) => x.homeToken?.toLowerCase() === t?.address.toLowerCase());
  if (!t || !w)
    throw new BridgeApiError("INVALID_REQUEST", `token ${token} is not bridged for this tenant`, {
      token,
      tokens: home?.tokens.map((x) => x.symbol) ?? [],
    });
  return { symbol: t.symbol, home: getAddress(t.address), wrapped: getAddress(w.address), decimals: t.decimals };
}

/** The wallet whose signed read `access` carries, verified for this tenant (undefined when it carries none). */
async function readerOf(ctx: TransferContext, tenant: TenantConfig, access: TransferAccess) {
  if (!access.wallet) return undefined;
  const chain = bridgeOf(ctx, tenant.bridge).home.publicClient;
  return verifyWalletRead(access.wallet, tenant.tenantId, chain, ctx.clock.now());
}

/** The transfer, if it is this tenant's and `access` holds its capability or its sender's signed read;
 *  otherwise the same 404 as for an id that does not exist (neither another tenant's ids, another wallet's
 *  transfers, nor their existence leak). A signed read that is not valid is a 401 before any lookup. */
async function load(ctx: TransferContext, id: string, tenant: TenantConfig, access: TransferAccess): Promise<ApiRow> {
  const reader = await readerOf(ctx, tenant, access);
  const r = await ctx.db.query<ApiRow>("SELECT * FROM bridge_transfers WHERE id = $1 AND tenant_id = $2", [
    id,
    tenant.tenantId,
  ]);
  const row = r.rows[0];
  const readable =
    row !== undefined &&
    (transferTokenMatches(row.access_token_hash, access.token) ||
      (reader !== undefined && getAddress(row.sender) === reader));
  if (!readable) throw new BridgeApiError("TRANSFER_NOT_FOUND", "no such transfer", { id });
  return row;
}

/** The calls the wallet sends: approve + vault deposit on the home chain, or the wrapped-token burn. */
function transferCalls(
  abis: BridgeAbis,
  b: BridgeEndpoint,
  direction: "deposit" | "withdrawal",
  token: ReturnType<typeof tokenOf>,
  amountWei: bigint,
  recipient: Address,
) {
  if (direction === "withdrawal")
    return [
      {
        step: "burn",
        chainId: b.remote.chainId,
        to: b.remote.minter,
        value: "0",
        data: encodeFunctionData({
          abi: abis.minter,
          functionName: "burn",
          args: [token.wrapped, amountWei, recipient],
        }),
      },
    ];
  return [
    {
      step: "approve",
      chainId: b.home.chainId,
      to: token.home,
      value: "0",
      data: encodeFunctionData({ abi: abis.erc20, functionName: "approve", args: [b.home.vault, amountWei] }),
    },
    {
      step: "deposit",
      chainId: b.home.chainId,
      to: b.home.vault,
      value: "0",
      data: encodeFunctionData({
        abi: abis.vault,
        functionName: "deposit",
        args: [token.home, amountWei, recipient, BigInt(b.remote.chainId)],
      }),
    },
  ];
}

async function initiate(ctx: TransferContext, tenant: TenantConfig, body: unknown) {
  const input = initiateSchema.parse(body);
  if (input.tenantId !== undefined && input.tenantId !== tenant.tenantId)
    throw new BridgeApiError("FORBIDDEN", "the transfer names another tenant than this hostname's", {
      reason: "tenant_mismatch",
      tenantId: input.tenantId,
    });
  const b = bridgeOf(ctx, tenant.bridge);
  const token = tokenOf(tenant, input.token);
  const amountWei = BigInt(input.amount);
  const id = randomUUID();
  const access = newTransferToken();
  await ctx.db.query(
    "INSERT INTO bridge_transfers (id, tenant_id, bridge, direction, token, amount_wei, sender, recipient, access_token_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    [
      id,
      tenant.tenantId,
      tenant.bridge,
      input.direction,
      token.home,
      amountWei,
      input.sender,
      input.recipient,
      access.hash,
    ],
  );
  const calls = transferCalls(ctx.abis, b, input.direction, token, amountWei, input.recipient);
  const row = await load(ctx, id, tenant, { token: access.token });
  // the capability is returned here only: send it as X-Transfer-Token to read or complete the transfer
  return {
    transfer: await transferView(ctx.relayedTransfers, row),
    calls,
    from: input.sender,
    accessToken: access.token,
  };
}

/** Links the wallet's deposit or burn transaction to the initiated transfer `row`. */
async function link(ctx: TransferContext, b: BridgeEndpoint, row: ApiRow, txHash?: string, signature?: string) {
  if (!txHash)
    throw new BridgeApiError("INVALID_REQUEST", "txHash of the deposit or burn is required to complete this transfer", {
      field: "txHash",
    });
  if (!signature)
    throw new BridgeApiError(
      "INVALID_REQUEST",
      "signature of the sender over the link message is required to link a transaction",
      { field: "signature", message: transferLinkMessage(row.id, txHash) },
    );
  await requireSenderSignature(b, row, txHash as Hex, signature as Hex);
  const nonce = await nonceFromTx(b, row, txHash as Hex);
  try {
    await ctx.db.query(
      "UPDATE bridge_transfers SET nonce = $2, src_tx_hash = $3, linked_at = now() WHERE id = $1 AND nonce IS NULL",
      [row.id, nonce, txHash.toLowerCase()],
    );
  } catch (err) {
    if (/unique|duplicate/i.test(String((err as Error).message)))
      throw new BridgeApiError("TRANSFER_ALREADY_LINKED", "this transaction is already linked to another transfer", {
        txHash,
      });
    throw err;
  }
}

/** A linked withdrawal whose release is queued and due: the bridge's relayer executes it now. */
async function releaseIfDue(ctx: TransferContext, b: BridgeEndpoint, row: ApiRow & { nonce: string }) {
  if (row.direction !== "withdrawal" || !b.relayer) return;
  const relayed = await ctx.relayedTransfers.get(row.bridge, "withdrawal", row.nonce);
  if (relayed?.status !== "release_queued") return;
  const readyAt = Number(relayed.ready_at);
  const chainNow = Number((await b.home.publicClient.getBlock({ blockTag: "latest" })).timestamp);
  if (chainNow < readyAt && ctx.clock.now() / 1000 < readyAt)
    throw new BridgeApiError("TRANSFER_NOT_READY", "the release's challenge period is not over", {
      readyAt: new Date(readyAt * 1000).toISOString(),
    });
  await b.relayer.processNow("withdrawal", BigInt(row.nonce));
}

async function complete(ctx: TransferContext, tenant: TenantConfig, id: string, token: unknown, body: unknown) {
  const { txHash, signature } = completeSchema.parse(body ?? {});
  const row = await load(ctx, idSchema.parse(id), tenant, { token });
  const b = bridgeOf(ctx, row.bridge);
  if (row.nonce === null) {
    await link(ctx, b, row, txHash, signature);
    return transferView(ctx.relayedTransfers, await load(ctx, row.id, tenant, { token }));
  }
  await releaseIfDue(ctx, b, row as ApiRow & { nonce: string });
  return transferView(ctx.relayedTransfers, row);
}

/** The transfers the signed read's wallet sent on this tenant's bridge, newest first. */
async function listForWallet(ctx: TransferContext, tenant: TenantConfig, wallet: WalletRead | undefined) {
  if (!wallet)
    throw new BridgeApiError("UNAUTHORIZED", "a wallet's signed read is required to list its transfers", {
      headers: Object.values(WALLET_READ_HEADERS),
    });
  const reader = await verifyWalletRead(
    wallet,
    tenant.tenantId,
    bridgeOf(ctx, tenant.bridge).home.publicClient,
    ctx.clock.now(),
  );
  const r = await ctx.db.query<ApiRow>(
    "SELECT * FROM bridge_transfers WHERE tenant_id = $1 AND sender = $2 ORDER BY initiated_at DESC, id LIMIT $3",
    [tenant.tenantId, reader, WALLET_HISTORY_LIMIT],
  );
  return { wallet: reader, transfers: await Promise.all(r.rows.map((row) => transferView(ctx.relayedTransfers, row))) };
}

export function createTransferService(deps: {
  db: Db;
  abis: BridgeAbis;
  bridges: Record<string, BridgeEndpoint>;
  relayedTransfers: RelayedTransferReader;
  clock?: Clock;
}) {
  const ctx: TransferContext = { ...deps, clock: deps.clock ?? systemClock };
  return {
    initiate: (tenant: TenantConfig, body: unknown) => initiate(ctx, tenant, body),
    get: async (tenant: TenantConfig, id: string, access: TransferAccess) =>
      transferView(ctx.relayedTransfers, await load(ctx, idSchema.parse(id), tenant, access)),
    /** completion needs the capability: a signed read only reads */
    complete: (tenant: TenantConfig, id: string, token: unknown, body: unknown) =>
      complete(ctx, tenant, id, token, body),
    listForWallet: (tenant: TenantConfig, wallet: WalletRead | undefined) => listForWallet(ctx, tenant, wallet),
  };
}
export type TransferService = ReturnType<typeof createTransferService>;
