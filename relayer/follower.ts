// Follows one source contract's events (vault deposits on the home chain, burns on the remote chain):
// asks for the block number every poll, reads new logs up to `latest - confirmations`, and records them
// and the advanced cursor in one SQL transaction, so a crash between the two never skips an event.
import { getAddress, type Address, type Hex, type PublicClient } from "viem";
import { BRIDGE_BURNED, BRIDGE_DEPOSITED } from "../sdk/bridge-abi";
import type { ObservedTransfer, RelayerStore } from "./store";
import type { RelayerDeployment } from "./types";

export interface FollowerLogger {
  warn(obj: object, msg?: string): void;
  debug?(obj: object, msg?: string): void;
}

/** A source event as both kinds carry it (a burn's `homeToken` as `token`). */
interface SourceLog {
  removed: boolean;
  args: {
    nonce: bigint;
    token: Address;
    sender: Address;
    recipient: Address;
    amount: bigint;
    dstChainId: bigint;
    dstContract: Address;
  };
  transactionHash: Hex;
  blockNumber: bigint;
}

type Kind = "deposit" | "withdrawal";

/** Where `kind`'s transfers go: deposits from the home vault to the remote minter, withdrawals back. */
function routeOf(d: RelayerDeployment, kind: Kind) {
  const home = { chainId: d.home.chainId, contract: getAddress(d.home.vault) };
  const remote = { chainId: d.remote.chainId, contract: getAddress(d.remote.minter) };
  return kind === "deposit" ? { src: home, dst: remote } : { src: remote, dst: home };
}

async function sourceLogs(client: PublicClient, kind: Kind, contract: Address, from: bigint, to: bigint) {
  const range = { address: contract, fromBlock: from, toBlock: to, strict: true } as const;
  if (kind === "deposit")
    return (await client.getLogs({ ...range, event: BRIDGE_DEPOSITED })).map(
      (l): SourceLog => ({ ...l, args: { ...l.args, token: l.args.token } }),
    );
  return (await client.getLogs({ ...range, event: BRIDGE_BURNED })).map(
    (l): SourceLog => ({ ...l, args: { ...l.args, token: l.args.homeToken } }),
  );
}

/** `kind`'s events of this bridge in blocks `from`..`to`, bound for its own destination contract. */
async function readRange(
  client: PublicClient,
  d: RelayerDeployment,
  kind: Kind,
  from: bigint,
  to: bigint,
): Promise<ObservedTransfer[]> {
  const { src, dst } = routeOf(d, kind);
  const logs = await sourceLogs(client, kind, src.contract, from, to);
  return logs
    .filter(
      (l) => !l.removed && l.args.dstChainId === BigInt(dst.chainId) && getAddress(l.args.dstContract) === dst.contract,
    )
    .map((l) => ({
      bridge: d.bridge,
      kind,
      nonce: l.args.nonce,
      srcChainId: src.chainId,
      srcContract: src.contract,
      dstChainId: dst.chainId,
      dstContract: dst.contract,
      token: getAddress(l.args.token),
      sender: getAddress(l.args.sender),
      recipient: getAddress(l.args.recipient),
      amountWei: l.args.amount,
      srcTxHash: l.transactionHash,
      srcBlock: l.blockNumber,
    }));
}

export function createFollower(deps: {
  kind: Kind;
  deployment: RelayerDeployment;
  client: PublicClient;
  store: RelayerStore;
  confirmations: number;
  maxBlockRange: bigint;
  logger: FollowerLogger;
  /** called after new rows were recorded (wakes the workers at once) */
  onNew: () => void;
}) {
  const { deployment: d, kind } = deps;
  const chainId = kind === "deposit" ? d.home.chainId : d.remote.chainId;
  const contract: Address = kind === "deposit" ? d.home.vault : d.remote.minter;
  const fromBlock = kind === "deposit" ? d.home.fromBlock : d.remote.fromBlock;
  let next: bigint | undefined;
  let lastSeen = -1n;

  async function poll(): Promise<void> {
    const latest = await deps.client.getBlockNumber({ cacheTime: 0 });
    if (latest === lastSeen) return;
    let from: bigint = next ?? (await deps.store.getCursor(deps.store.db, d.bridge, chainId, contract)) ?? fromBlock;
    next = from;
    const safe = latest - BigInt(deps.confirmations);
    while (from <= safe) {
      const to: bigint = from + deps.maxBlockRange - 1n < safe ? from + deps.maxBlockRange - 1n : safe;
      const rows = await readRange(deps.client, d, kind, from, to);
      await deps.store.db.transaction(async (tx) => {
        await deps.store.recordObserved(tx, rows);
        await deps.store.setCursor(tx, d.bridge, chainId, contract, to + 1n);
      });
      from = next = to + 1n;
      if (rows.length) deps.onNew();
    }
    lastSeen = latest;
  }

  return { poll, chainId, contract };
}
