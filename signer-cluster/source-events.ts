// A signer never signs a digest it is handed: it is handed a reference to a deposit (MINT) or a burn
// (RELEASE), finds that event itself on the SOURCE chain, requires it to be `confirmations` blocks deep,
// and rebuilds the bridge message from the event and its own configured contract addresses.
import { createPublicClient, custom, getAddress, type Address, type Hex, type PublicClient } from "viem";
import { z } from "zod";
import { BRIDGE_BURNED, BRIDGE_DEPOSITED } from "../sdk/bridge-abi";
import { BridgeMessageKind, getBridgeMessageDigest, type BridgeMessage } from "../sdk/bridge-message";
import { MpcError } from "./errors";
import { hexBytes, requestJson, uintString } from "./http";

const MAX_UINT64 = (1n << 64n) - 1n;

/** What a signing request carries: where to look, never what to sign. */
export const signingRequestSchema = z
  .object({
    kind: z.enum(["MINT", "RELEASE"]),
    srcChainId: uintString,
    nonce: uintString.refine((n) => n <= MAX_UINT64, "nonce is a uint64"),
    /** optional hints: narrow the search to one block / require this transaction */
    blockNumber: uintString.optional(),
    txHash: hexBytes(32).optional(),
  })
  .strict();
export type SigningRequest = z.output<typeof signingRequestSchema>;
/** The JSON form callers send (numbers as decimal strings or safe integers). */
export type SigningRequestInput = z.input<typeof signingRequestSchema>;

export interface ChainEndpoint {
  chainId: number;
  rpcUrl: string;
  /** this chain's confirmations when they differ from the config-wide value (per-chain finality) */
  confirmations?: number;
  /** first block to search for events (the bridge contract's deployment block) */
  fromBlock: bigint;
}
export interface BridgeChainsConfig {
  home?: ChainEndpoint & { vault: Address };
  remote?: ChainEndpoint & { minter: Address };
  /** blocks that must be mined on top of the event's block; 0 = the latest mined block counts */
  confirmations: number;
}

export interface VerifiedSourceEvent {
  message: BridgeMessage;
  digest: Hex;
  blockNumber: bigint;
  txHash: Hex;
}

export interface SourceEventVerifier {
  verify(request: SigningRequest, keyEpoch: bigint): Promise<VerifiedSourceEvent>;
}

/** JSON-RPC over the shared keep-alive node:http agent (viem's http transport goes through fetch, which
 *  costs a signer several times the CPU per call; a signature needs two calls per signer). */
function jsonRpcTransport(url: string) {
  let id = 0;
  return custom(
    {
      async request({ method, params }: { method: string; params?: unknown }) {
        const { body } = await requestJson(url, { jsonrpc: "2.0", id: ++id, method, params: params ?? [] }, 5_000);
        const res = body as { result?: unknown; error?: { code: number; message: string } };
        if (res.error) throw Object.assign(new Error(res.error.message), { code: res.error.code });
        return res.result;
      },
    },
    { retryCount: 0 },
  );
}

export function createSourceEventVerifier(config: BridgeChainsConfig): SourceEventVerifier {
  const clients = new CheckedClients();
  return {
    async verify(request, keyEpoch) {
      const { home, remote } = config;
      if (!home || !remote)
        throw new MpcError("NODE_NOT_CONFIGURED", "this signer has no bridge contract addresses yet");
      const [src, dst] = request.kind === "MINT" ? [home, remote] : [remote, home];
      const srcContract = request.kind === "MINT" ? home.vault : remote.minter;
      const dstContract = request.kind === "MINT" ? remote.minter : home.vault;
      if (request.srcChainId !== BigInt(src.chainId))
        throw new MpcError("UNKNOWN_SOURCE_CHAIN", `${request.kind} events come from chain ${src.chainId}`, {
          srcChainId: String(request.srcChainId),
          expected: src.chainId,
        });
      const { client, checked } = clients.clientFor(src);
      await checked;
      const { logs, latest } = await queryLogs(client, src, srcContract, request);
      const log = finalLog(logs, latest, src, srcContract, request, config.confirmations);
      const args = log.args as EventArgs;
      // The event names its destination; a signer only signs for the destination it is configured for.
      if (args.dstChainId !== BigInt(dst.chainId) || getAddress(args.dstContract) !== getAddress(dstContract))
        throw new MpcError("SOURCE_EVENT_MISMATCH", "the event's destination is not this bridge's destination", {
          eventDstChainId: String(args.dstChainId),
          eventDstContract: args.dstContract,
          expectedDstChainId: dst.chainId,
          expectedDstContract: dstContract,
        });
      const message: BridgeMessage = {
        kind: request.kind === "MINT" ? BridgeMessageKind.MINT : BridgeMessageKind.RELEASE,
        srcChainId: BigInt(src.chainId),
        srcContract: getAddress(srcContract),
        dstChainId: BigInt(dst.chainId),
        dstContract: getAddress(dstContract),
        nonce: args.nonce,
        token: getAddress((request.kind === "MINT" ? args.token : args.homeToken)!),
        recipient: getAddress(args.recipient),
        amountWei: args.amount,
        keyEpoch,
      };
      return {
        message,
        digest: getBridgeMessageDigest(message),
        blockNumber: log.blockNumber,
        txHash: log.transactionHash,
      };
    },
  };
}

/** BridgeDeposited's and BridgeBurned's arguments, as far as a message needs them. */
interface EventArgs {
  nonce: bigint;
  recipient: Address;
  amount: bigint;
  dstChainId: bigint;
  dstContract: Address;
  token?: Address;
  homeToken?: Address;
}

/** One client per RPC URL, each checked once to serve the chain id it is configured for. */
class CheckedClients {
  private readonly clients = new Map<string, { client: PublicClient; checked?: Promise<void> }>();

  clientFor(ep: ChainEndpoint) {
    let entry = this.clients.get(ep.rpcUrl);
    if (!entry) {
      // cacheTime 0: a cached block number would make fresh events look unfinalized (or final too early)
      entry = { client: createPublicClient({ transport: jsonRpcTransport(ep.rpcUrl), cacheTime: 0 }) };
      this.clients.set(ep.rpcUrl, entry);
    }
    const checking = entry;
    // The configured chain id is what gets signed as srcChainId: make sure the RPC really serves it.
    checking.checked ??= checking.client.getChainId().then(
      (id) => {
        if (id !== ep.chainId)
          throw new MpcError("CHAIN_ID_MISMATCH", `RPC ${ep.rpcUrl} serves chain ${id}, configured ${ep.chainId}`);
      },
      (err) => {
        checking.checked = undefined;
        throw new MpcError(
          "CHAIN_UNAVAILABLE",
          `cannot reach chain ${ep.chainId}`,
          { chainId: ep.chainId },
          { cause: err },
        );
      },
    );
    return checking;
  }
}

/** The request's event logs (by nonce, in its block when it names one) and the chain's latest block. */
async function queryLogs(client: PublicClient, ep: ChainEndpoint, contract: Address, request: SigningRequest) {
  const range =
    request.blockNumber !== undefined
      ? { fromBlock: request.blockNumber, toBlock: request.blockNumber }
      : { fromBlock: ep.fromBlock, toBlock: "latest" as const };
  try {
    const query =
      request.kind === "MINT"
        ? client.getLogs({
            address: contract,
            event: BRIDGE_DEPOSITED,
            args: { nonce: request.nonce },
            strict: true,
            ...range,
          })
        : client.getLogs({
            address: contract,
            event: BRIDGE_BURNED,
            args: { nonce: request.nonce },
            strict: true,
            ...range,
          });
    const [logs, latest] = await Promise.all([query, client.getBlockNumber({ cacheTime: 0 })]);
    return { logs, latest };
  } catch (err) {
    throw new MpcError(
      "CHAIN_UNAVAILABLE",
      `cannot query chain ${ep.chainId}`,
      { chainId: ep.chainId },
      { cause: err },
    );
  }
}

type SourceLog = Awaited<ReturnType<typeof queryLogs>>["logs"][number];

/** The one live log of the request (in its transaction when it names one), at least `confirmations` deep. */
function finalLog(
  logs: SourceLog[],
  latest: bigint,
  ep: ChainEndpoint,
  contract: Address,
  request: SigningRequest,
  confirmations: number,
): SourceLog {
  const { kind } = request;
  const live = logs.filter(
    (l) =>
      !l.removed && (request.txHash === undefined || l.transactionHash.toLowerCase() === request.txHash.toLowerCase()),
  );
  const details = { kind, srcChainId: String(ep.chainId), nonce: String(request.nonce), contract };
  if (live.length === 0)
    throw new MpcError(
      "SOURCE_EVENT_NOT_FOUND",
      `no ${kind === "MINT" ? "BridgeDeposited" : "BridgeBurned"} event with this nonce on chain ${ep.chainId}`,
      details,
    );
  if (live.length > 1) throw new MpcError("SOURCE_EVENT_AMBIGUOUS", "more than one event with this nonce", details);
  const log = live[0];
  const depth = latest - log.blockNumber;
  const needed = ep.confirmations ?? confirmations;
  if (depth < BigInt(needed))
    throw new MpcError("SOURCE_EVENT_NOT_FINAL", `event has ${depth} confirmations, needs ${needed}`, {
      ...details,
      blockNumber: String(log.blockNumber),
      latestBlock: String(latest),
      confirmations: needed,
    });
  return log;
}

/** JSON-safe view of a bridge message (bigints as decimal strings). */
export function messageToJson(m: BridgeMessage) {
  return {
    kind: m.kind === BridgeMessageKind.MINT ? "MINT" : "RELEASE",
    srcChainId: m.srcChainId.toString(),
    srcContract: m.srcContract,
    dstChainId: m.dstChainId.toString(),
    dstContract: m.dstContract,
    nonce: m.nonce.toString(),
    token: m.token,
    recipient: m.recipient,
    amountWei: m.amountWei.toString(),
    keyEpoch: m.keyEpoch.toString(),
  };
}
