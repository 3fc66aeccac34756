// The bridge API's client (a tenant's hostname: the API serves the tenant its Host header names): a transfer
// is initiated (the API answers the calls the wallet sends: approve + deposit on the home chain, or burn on
// the remote chain, and the transfer's capability, sent back as X-Transfer-Token), the wallet sends those
// calls and signs the link message, the transfer is completed with the transaction, and its status moves
// deposited -> signed -> minted (burned -> release_queued -> released) as the relayer and signers act.
// `bridgeTransfer` does all of it with viem clients; the steps are exported for a front end of your own.
import type { Address, Hex, PublicClient, WalletClient } from "viem";
import { SpecApiError } from "./rest";

export const TRANSFER_TOKEN_HEADER = "x-transfer-token";

/** The EIP-191 message the transfer's sender signs to link its deposit or burn transaction. */
export const bridgeTransferLinkMessage = (id: string, txHash: string): string =>
  `Link bridge transfer ${id.toLowerCase()} to transaction ${txHash.toLowerCase()}`;

export type BridgeTransferStatus =
  | "initiated"
  | "deposited"
  | "burned"
  | "signed"
  | "minted"
  | "release_queued"
  | "disputed"
  | "released"
  | "failed";

export interface BridgeTransfer {
  id: string;
  tenantId: string;
  direction: "deposit" | "withdrawal";
  status: BridgeTransferStatus;
  token: Address;
  /** base units, decimal text */
  amount: string;
  sender: Address;
  recipient: Address;
  nonce: string | null;
  signers: number[];
  readyAt: string | null;
  lastError: string | null;
  timestamps: Record<string, string | null>;
  txHashes: Record<string, Hex | null>;
}

export interface BridgeCall {
  step: "approve" | "deposit" | "burn";
  chainId: number;
  to: Address;
  value: string;
  data: Hex;
}

export interface BridgeTenant {
  hostname: string;
  tenantId: string;
  name: string;
  mpcMode: string;
  chains: {
    chainId: number;
    name: string;
    role: "home" | "remote";
    rpcUrl?: string;
    contracts: Record<string, Address>;
    tokens: { symbol: string; address: Address; decimals: number; homeToken?: Address }[];
  }[];
}

export class BridgeApiError extends SpecApiError {
  override name = "BridgeApiError";
}

export interface BridgeClient {
  tenant(): Promise<BridgeTenant>;
  initiate(input: {
    direction: "deposit" | "withdrawal";
    token: string;
    amount: bigint;
    sender: Address;
    recipient: Address;
  }): Promise<{ transfer: BridgeTransfer; calls: BridgeCall[]; accessToken: string }>;
  complete(id: string, accessToken: string, link?: { txHash: Hex; signature: Hex }): Promise<BridgeTransfer>;
  get(id: string, accessToken: string): Promise<BridgeTransfer>;
}

/** A client of the bridge API at `baseUrl` (its host is the tenant's hostname, e.g. http://127.0.0.1:3002). */
export function createBridgeClient(opts: { baseUrl: string; fetch?: typeof fetch }): BridgeClient {
  const base = opts.baseUrl.replace(/\/+$/, "");
  const doFetch = opts.fetch ?? fetch;
  async function call<T>(method: string, path: string, body?: unknown, accessToken?: string): Promise<T> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (accessToken) headers[TRANSFER_TOKEN_HEADER] = accessToken;
    const res = await doFetch(base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json().catch(() => null)) as {
      error?: { code?: string; message?: string; details?: unknown };
    } | null;
    if (!res.ok)
      throw new BridgeApiError(
        res.status,
        json?.error?.code ?? "HTTP_ERROR",
        json?.error?.message ?? res.statusText,
        json?.error?.details,
      );
    return json as T;
  }
  return {
    tenant: () => call("GET", `/api/tenant?hostname=${encodeURIComponent(new URL(base).hostname)}`),
    initiate: (i) =>
      call("POST", "/api/v1/transfer/initiate", {
        direction: i.direction,
        token: i.token,
        amount: i.amount.toString(),
        sender: i.sender,
        recipient: i.recipient,
      }),
    complete: (id, token, link) => call("POST", `/api/v1/transfer/${id}/complete`, link ?? {}, token),
    get: (id, token) => call("GET", `/api/v1/transfer/${id}`, undefined, token),
  };
}

export interface BridgeTransferOptions {
  client: BridgeClient;
  direction: "deposit" | "withdrawal";
  /** a token symbol of the tenant's bridge (e.g. "USD") or its home-token address */
  token: string;
  /** base units */
  amount: bigint;
  recipient: Address;
  /** the sender's wallet and a public client, per chain id (the home chain for a deposit, the remote for a burn) */
  wallets: Record<number, { wallet: WalletClient; publicClient: PublicClient }>;
  /** stop waiting at this status (default: minted for a deposit, release_queued for a withdrawal) */
  until?: BridgeTransferStatus;
  /** every status seen, in order */
  onStatus?: (t: BridgeTransfer) => void;
  timeoutMs?: number;
  pollMs?: number;
}

/** Initiates a transfer, sends its calls from the wallet, links the last transaction (signed by the sender)
 *  and polls the transfer until `until` (throws on "failed" or after `timeoutMs`). */
export async function bridgeTransfer(o: BridgeTransferOptions): Promise<BridgeTransfer> {
  const first = Object.values(o.wallets)[0];
  const sender = first?.wallet.account?.address;
  if (!sender) throw new Error("bridgeTransfer: the wallet client has no account");
  const { transfer, calls, accessToken } = await o.client.initiate({
    direction: o.direction,
    token: o.token,
    amount: o.amount,
    sender,
    recipient: o.recipient,
  });
  o.onStatus?.(transfer);
  let last: Hex | undefined;
  for (const c of calls) {
    const w = o.wallets[c.chainId];
    if (!w) throw new Error(`bridgeTransfer: no wallet for chain ${c.chainId} (step ${c.step})`);
    const hash = await w.wallet.sendTransaction({
      account: w.wallet.account!,
      chain: w.wallet.chain ?? null,
      to: c.to,
      data: c.data,
      value: BigInt(c.value),
    });
    const receipt = await w.publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`bridgeTransfer: ${c.step} reverted (${hash})`);
    last = hash;
  }
  const signer = first!.wallet;
  const signature = await signer.signMessage({
    account: signer.account!,
    message: bridgeTransferLinkMessage(transfer.id, last!),
  });
  let t = await o.client.complete(transfer.id, accessToken, { txHash: last!, signature });
  o.onStatus?.(t);
  const until = o.until ?? (o.direction === "deposit" ? "minted" : "release_queued");
  const deadline = Date.now() + (o.timeoutMs ?? 120_000);
  while (t.status !== until) {
    if (t.status === "failed") throw new Error(`bridge transfer ${t.id} failed: ${t.lastError ?? "unknown"}`);
    if (Date.now() > deadline)
      throw new Error(`bridge transfer ${t.id}: still ${t.status} after ${o.timeoutMs ?? 120_000} ms`);
    await new Promise((r) => setTimeout(r, o.pollMs ?? 250));
    const next = await o.client.get(t.id, accessToken);
    if (next.status !== t.status) o.onStatus?.(next);
    t = next;
  }
  return t;
}
