// One nonce lane per (chain, account): every service that sends transactions from an account takes its
// nonces from that account's one lane, made once at the composition root (scripts/stack) and handed to each
// sender. Two senders with a counter each read the same pending count and the second one's transaction is
// refused ("nonce too low", or "replacement underpriced" while the first is still pending).
//   - the pending count is read once, then nonces are handed out in order;
//   - sends run one at a time, in nonce order: a node that mines on arrival (Hardhat's automine) refuses a
//     nonce that overtakes the next one ("nonce too high"). Only the send is in the lane; receipts are
//     awaited outside it;
//   - a send that throws leaves the account's count unknown (the node may have taken the nonce or not, and
//     'nonce too low' / 'replacement underpriced' mean someone else took it): the lane reads the pending
//     count again before the next send. The failed send is not retried here: its caller decides (a retry
//     with a new nonce could send a second transaction if the first one did reach the node).
import type { Address } from "viem";

export interface NonceLane {
  readonly chainId: number;
  readonly address: Address;
  /** Runs `send` with the account's next nonce once every earlier send of the lane has finished; the nonce
   *  is spent when `send` resolves. When it throws, the count is read from the chain before the next send. */
  send<T>(send: (nonce: number) => Promise<T>): Promise<T>;
  /** Forget the count (read again before the next send): after something outside the lane sent. */
  resync(): void;
}

/** Reads the account's pending transaction count (eth_getTransactionCount, "pending"). */
export type PendingCount = () => Promise<number>;

export function createNonceLane(chainId: number, address: Address, pending: PendingCount): NonceLane {
  let next: number | undefined;
  let tail: Promise<unknown> = Promise.resolve();
  return {
    chainId,
    address,
    send<T>(send: (nonce: number) => Promise<T>): Promise<T> {
      const run = async (): Promise<T> => {
        next ??= await pending();
        const nonce = next;
        try {
          const out = await send(nonce);
          next = nonce + 1;
          return out;
        } catch (err) {
          next = undefined;
          throw err;
        }
      };
      const result = tail.then(run, run);
      tail = result.catch(() => undefined);
      return result;
    },
    resync() {
      next = undefined;
    },
  };
}

/** The lanes of one process, by (chain id, address): asking twice for one account returns the same lane. */
export interface NonceLanes {
  lane(chainId: number, address: Address, pending: PendingCount): NonceLane;
}

export function createNonceLanes(): NonceLanes {
  const lanes = new Map<string, NonceLane>();
  return {
    lane(chainId, address, pending) {
      const key = `${chainId}:${address.toLowerCase()}`;
      let lane = lanes.get(key);
      if (!lane) {
        lane = createNonceLane(chainId, address, pending);
        lanes.set(key, lane);
      }
      return lane;
    },
  };
}
