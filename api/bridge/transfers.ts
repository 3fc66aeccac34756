// The bridge API's transfers. `initiate` records an `initiated` transfer and returns the calls the wallet
// must send (approve + vault deposit, or the wrapped-token burn) and the transfer's capability (access.ts),
// which every later read or completion needs. `complete` links the wallet's deposit or burn transaction:
// the declared sender must sign `transferLinkMessage(id, txHash)` and the transaction's event must match
// what was initiated (sender included); for a withdrawal whose challenge period is over it executes the
// release. Status comes from the relayer's record once linked, read through `RelayedTransferReader`
// (relayed-transfers.ts): the API does not read the relayer's tables itself.
import { randomUUID } from "node:crypto";
import { decodeEventLog, encodeFunctionData, getAddress, type Address, type Hex, type PublicClient } from "viem";
import { z } from "zod";
import type { Db } from "../../db";
import { systemClock, type Clock } from "../../runtime/clock";
import { BRIDGE_BURNED, BRIDGE_DEPOSITED, type BridgeAbis } from "../../sdk/bridge-abi";
import { newTransferToken, transferTokenMatches } from "./access";
import { BridgeApiError } from "./errors";
import type { RelayedTransfer, RelayedTransferReader, ReleaseProcessor } from "./relayed-transfers";
import type { TenantConfig } from "./tenants";

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

/** The EIP-191 message the transfer's declared sender signs to link its deposit or burn transaction. */
export const transferLinkMessage = (id: string, txHash: string): string =>
  `Link bridge transfer ${id.toLowerCase()} to transaction ${txHash.toLowerCase()}`;
export const idSchema = z.string().uuid("a transfer id (UUID)");

interface ApiRow {
  id: string;
  tenant_id: string;
  bridge: string;
  direction: "deposit" | "withdrawal";
  token: string;
  amount_wei: string;
  sender: string;
  recipient: string;
  src_tx_hash: string | null;
  nonce: string | null;
  initiated_at: Date;
  linked_at: Date | null;
  access_token_hash: string | null;
}

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

export function createTransferService(deps: {
  db: Db;
  abis: BridgeAbis;
  bridges: Record<string, BridgeEndpoint>;
  relayedTransfers: RelayedTransferReader;
  clock?: Clock;
}) {
  const clock = deps.clock ?? systemClock;
  // relayedTransfers: the relayers' progress on each linked transfer
  const { db, abis, relayedTransfers } = deps;
  const bridgeOf = (name: string) => {
    const b = deps.bridges[name];
    if (!b) throw new BridgeApiError("SERVICE_UNAVAILABLE", `bridge ${name} is not running`, { bridge: name });
    return b;
  };
  const tokenOf = (tenant: TenantConfig, token: string) => {
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
  };

  /** The transfer, if it is this tenant's and `token` is its capability; otherwise the same 404 as for an
   *  id that does not exist (neither another tenant's ids nor their existence leak). */
  async function load(id: string, tenant: TenantConfig, token: unknown): Promise<ApiRow> {
    const r = await db.query<ApiRow>("SELECT * FROM bridge_transfers WHERE id = $1 AND tenant_id = $2", [
      id,
      tenant.tenantId,
    ]);
    const row = r.rows[0];
    if (!row || !transferTokenMatches(row.access_token_hash, token))
      throw new BridgeApiError("TRANSFER_NOT_FOUND", "no such transfer", { id });
    return row;
  }

  async function view(row: ApiRow) {
    const relayed: RelayedTransfer | undefined =
      row.nonce !== null ? await relayedTransfers.get(row.bridge, row.direction, row.nonce) : undefined;
    const status =
      relayed?.status ?? (row.nonce !== null ? (row.direction === "deposit" ? "deposited" : "burned") : "initiated");
    const isDeposit = row.direction === "deposit";
    return {
      id: row.id,
      tenantId: row.tenant_id,
      direction: row.direction,
      status,
      token: row.token,
      amount: row.amount_wei,
      sender: row.sender,
      recipient: row.recipient,
      nonce: row.nonce,
      keyEpoch: relayed?.key_epoch ? Number(relayed.key_epoch) : null,
      signers: relayed?.signers ? relayed.signers.split(",").filter(Boolean).map(Number) : [],
      readyAt: relayed?.ready_at ? new Date(Number(relayed.ready_at) * 1000).toISOString() : null,
      lastError: relayed?.last_error ?? null,
      timestamps: {
        initiatedAt: iso(row.initiated_at),
        [isDeposit ? "depositedAt" : "burnedAt"]: iso(relayed?.observed_at ?? row.linked_at),
        signedAt: iso(relayed?.signed_at),
        ...(isDeposit
          ? { mintedAt: iso(relayed?.minted_at) }
          : {
              releaseQueuedAt: iso(relayed?.release_queued_at),
              disputedAt: iso(relayed?.disputed_at),
              releasedAt: iso(relayed?.released_at),
            }),
        failedAt: iso(relayed?.failed_at),
      },
      txHashes: isDeposit
        ? { deposit: row.src_tx_hash ?? relayed?.src_tx_hash ?? null, mint: relayed?.dst_tx_hash ?? null }
        : {
            burn: row.src_tx_hash ?? relayed?.src_tx_hash ?? null,
            queueRelease: relayed?.dst_tx_hash ?? null,
            executeRelease: relayed?.execute_tx_hash ?? null,
          },
    };
  }

  return {
    async initiate(tenant: TenantConfig, body: unknown) {
      const input = initiateSchema.parse(body);
      if (input.tenantId !== undefined && input.tenantId !== tenant.tenantId)
        throw new BridgeApiError("FORBIDDEN", "the transfer names another tenant than this hostname's", {
          reason: "tenant_mismatch",
          tenantId: input.tenantId,
        });
      const b = bridgeOf(tenant.bridge);
      const token = tokenOf(tenant, input.token);
      const amountWei = BigInt(input.amount);
      const id = randomUUID();
      const access = newTransferToken();
      await db.query(
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
      const calls =
        input.direction === "deposit"
          ? [
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
                  args: [token.home, amountWei, input.recipient, BigInt(b.remote.chainId)],
                }),
              },
            ]
          : [
              {
                step: "burn",
                chainId: b.remote.chainId,
                to: b.remote.minter,
                value: "0",
                data: encodeFunctionData({
                  abi: abis.minter,
                  functionName: "burn",
                  args: [token.wrapped, amountWei, input.recipient],
                }),
              },
            ];
      const row = await load(id, tenant, access.token);
      // the capability is returned here only: send it as X-Transfer-Token to read or complete the transfer
      return { transfer: await view(row), calls, from: input.sender, accessToken: access.token };
    },

    async get(tenant: TenantConfig, id: string, accessToken: unknown) {
      return view(await load(idSchema.parse(id), tenant, accessToken));
    },

    async complete(tenant: TenantConfig, id: string, accessToken: unknown, body: unknown) {
      const { txHash, signature } = completeSchema.parse(body ?? {});
      let row = await load(idSchema.parse(id), tenant, accessToken);
      const b = bridgeOf(row.bridge);
      if (row.nonce === null) {
        if (!txHash)
          throw new BridgeApiError(
            "INVALID_REQUEST",
            "txHash of the deposit or burn is required to complete this transfer",
            { field: "txHash" },
          );
        if (!signature)
          throw new BridgeApiError(
            "INVALID_REQUEST",
            "signature of the sender over the link message is required to link a transaction",
            { field: "signature", message: transferLinkMessage(row.id, txHash) },
          );
        await requireSenderSignature(b, row, txHash as Hex, signature as Hex);
        const nonce = await nonceFromTx(b, row, txHash as Hex);
        try {
          await db.query(
            "UPDATE bridge_transfers SET nonce = $2, src_tx_hash = $3, linked_at = now() WHERE id = $1 AND nonce IS NULL",
            [row.id, nonce, txHash.toLowerCase()],
          );
        } catch (err) {
          if (/unique|duplicate/i.test(String((err as Error).message)))
            throw new BridgeApiError(
              "TRANSFER_ALREADY_LINKED",
              "this transaction is already linked to another transfer",
              { txHash },
            );
          throw err;
        }
        row = await load(row.id, tenant, accessToken);
        return view(row);
      }
      if (row.direction === "withdrawal" && b.relayer) {
        const relayed = await relayedTransfers.get(row.bridge, "withdrawal", row.nonce);
        if (relayed?.status === "release_queued") {
          const readyAt = Number(relayed.ready_at);
          const chainNow = Number((await b.home.publicClient.getBlock({ blockTag: "latest" })).timestamp);
          if (chainNow < readyAt && clock.now() / 1000 < readyAt)
            throw new BridgeApiError("TRANSFER_NOT_READY", "the release's challenge period is not over", {
              readyAt: new Date(readyAt * 1000).toISOString(),
            });
          await b.relayer.processNow("withdrawal", BigInt(row.nonce));
        }
      }
      return view(row);
    },
  };

  /** Binds the link to the transfer's declared sender: anyone can declare a victim as sender, only the
   *  victim can sign. An EOA's signature is checked locally; a contract wallet's through ERC-1271 on the
   *  source chain (where its deposit or burn came from). */
  async function requireSenderSignature(b: BridgeEndpoint, row: ApiRow, txHash: Hex, signature: Hex): Promise<void> {
    const client = row.direction === "deposit" ? b.home.publicClient : b.remote.publicClient;
    let valid: boolean;
    try {
      valid = await client.verifyMessage({
        address: getAddress(row.sender),
        message: transferLinkMessage(row.id, txHash),
        signature,
        mode: "eoa",
      });
    } catch (err) {
      throw new BridgeApiError(
        "SERVICE_UNAVAILABLE",
        "cannot verify the signature on the source chain now",
        { txHash },
        { cause: err },
      );
    }
    if (!valid)
      throw new BridgeApiError("FORBIDDEN", "the link is not signed by the transfer's sender", {
        reason: "not_signed_by_sender",
        sender: row.sender,
        message: transferLinkMessage(row.id, txHash),
      });
  }

  /** The source event in `txHash`'s receipt, from this bridge's contract, matching the initiated transfer. */
  async function nonceFromTx(b: BridgeEndpoint, row: ApiRow, txHash: Hex): Promise<bigint> {
    const deposit = row.direction === "deposit";
    const client = deposit ? b.home.publicClient : b.remote.publicClient;
    const contract = deposit ? b.home.vault : b.remote.minter;
    const receipt = await client.getTransactionReceipt({ hash: txHash }).catch(() => undefined);
    if (!receipt)
      throw new BridgeApiError("TRANSFER_NOT_READY", "the transaction is not mined on the source chain (yet)", {
        txHash,
        chainId: deposit ? b.home.chainId : b.remote.chainId,
      });
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== contract.toLowerCase()) continue;
      try {
        const ev = decodeEventLog({
          abi: [deposit ? BRIDGE_DEPOSITED : BRIDGE_BURNED],
          data: log.data,
          topics: log.topics,
        });
        const a = ev.args as {
          nonce: bigint;
          token?: Address;
          homeToken?: Address;
          sender: Address;
          recipient: Address;
          amount: bigint;
        };
        const token = getAddress((deposit ? a.token : a.homeToken)!);
        const matches =
          token === getAddress(row.token) &&
          a.amount === BigInt(row.amount_wei) &&
          getAddress(a.recipient) === getAddress(row.recipient) &&
          getAddress(a.sender) === getAddress(row.sender);
        if (!matches)
          throw new BridgeApiError(
            "TRANSFER_MISMATCH",
            "the transaction's event does not match the initiated transfer",
            {
              expected: { token: row.token, amount: row.amount_wei, sender: row.sender, recipient: row.recipient },
              found: { token, amount: a.amount.toString(), sender: a.sender, recipient: a.recipient },
            },
          );
        return a.nonce;
      } catch (err) {
        if (err instanceof BridgeApiError) throw err;
      }
    }
    throw new BridgeApiError(
      "TRANSFER_MISMATCH",
      `the transaction holds no ${deposit ? "BridgeDeposited" : "BridgeBurned"} event of this tenant's bridge`,
      { txHash },
    );
  }
}
export type TransferService = ReturnType<typeof createTransferService>;
