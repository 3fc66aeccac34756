// Follows one source contract's events (vault deposits on the home chain, burns on the remote chain):
// asks for the block number every poll, reads new logs up to `latest - confirmations`, and records them
// and the advanced cursor in one SQL transaction, so a crash between the two never skips an event.
import { getAddress, type Address, type PublicClient } from "viem";
import { BRIDGE_BURNED, BRIDGE_DEPOSITED } from "../sdk/bridge-abi";
import type { ObservedTransfer, RelayerStore } from "./store";
import type { RelayerDeployment } from "./types";

export interface FollowerLogger {
  warn(obj: object, msg?: string): void;
  debug?(obj: object, msg?: string): void;
}

export function createFollower(deps: {
  kind: "deposit" | "withdrawal";
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
      const rows = await readRange(from, to);
      await deps.store.db.transaction(async (tx) => {
        await deps.store.recordObserved(tx, rows);
        await deps.store.setCursor(tx, d.bridge, chainId, contract, to + 1n);
      });
      from = next = to + 1n;
      if (rows.length) deps.onNew();
    }
    lastSeen = latest;
  }

  async function readRange(from: bigint, to: bigint): Promise<ObservedTransfer[]> {
    if (kind === "deposit") {
      const logs = await deps.client.getLogs({
        address: contract,
        event: BRIDGE_DEPOSITED,
        fromBlock: from,
        toBlock: to,
        strict: true,
      });
      return logs
        .filter(
          (l) =>
            !l.removed &&
            l.args.dstChainId === BigInt(d.remote.chainId) &&
            getAddress(l.args.dstContract) === getAddress(d.remote.minter),
        )
        .map((l) => ({
          bridge: d.bridge,
          kind,
          nonce: l.args.nonce,
          srcChainId: d.home.chainId,
          srcContract: getAddress(contract),
          dstChainId: d.remote.chainId,
          dstContract: getAddress(d.remote.minter),
          token: getAddress(l.args.token),
          sender: getAddress(l.args.sender),
          recipient: getAddress(l.args.recipient),
          amountWei: l.args.amount,
          srcTxHash: l.transactionHash,
          srcBlock: l.blockNumber,
        }));
    }
    const logs = await deps.client.getLogs({
      address: contract,
      event: BRIDGE_BURNED,
      fromBlock: from,
      toBlock: to,
      strict: true,
    });
    return logs
      .filter(
        (l) =>
          !l.removed &&
          l.args.dstChainId === BigInt(d.home.chainId) &&
          getAddress(l.args.dstContract) === getAddress(d.home.vault),
      )
      .map((l) => ({
        bridge: d.bridge,
        kind,
        nonce: l.args.nonce,
        srcChainId: d.remote.chainId,
        srcContract: getAddress(contract),
        dstChainId: d.home.chainId,
        dstContract: getAddress(d.home.vault),
        token: getAddress(l.args.homeToken),
        sender: getAddress(l.args.sender),
        recipient: getAddress(l.args.recipient),
        amountWei: l.args.amount,
        srcTxHash: l.transactionHash,
        srcBlock: l.blockNumber,
      }));
  }

  return { poll, chainId, contract };
}
