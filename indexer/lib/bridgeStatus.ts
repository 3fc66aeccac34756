// A bridge transfer's status only moves forward, whichever chain's event the indexer sees first:
// a mint indexed before its deposit leaves the row "minted", and the late deposit fills in the details.
export const BRIDGE_STATUSES = ["deposited", "burned", "queued", "disputed", "minted", "released"] as const;
export type BridgeStatus = (typeof BRIDGE_STATUSES)[number];

const RANK: Record<BridgeStatus, number> = {
  deposited: 0,
  burned: 0,
  queued: 1,
  disputed: 2,
  minted: 3,
  released: 3,
};

export function advanceStatus(current: BridgeStatus | undefined, next: BridgeStatus): BridgeStatus {
  if (current === undefined) return next;
  return RANK[next] > RANK[current] ? next : current;
}

/** `${srcChainId}-${srcContract}-${nonce}`: the key a deposit and its mint (or a burn and its release) share. */
export function transferId(srcChainId: number | bigint, srcContract: string, nonce: bigint): string {
  return `${srcChainId}-${srcContract.toLowerCase()}-${nonce}`;
}
