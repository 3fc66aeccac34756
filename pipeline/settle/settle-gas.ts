// The gas a settle is sent with: a fixed formula by shape (orders, fills, contract wallets' orders)
// instead of an estimate, under the per-transaction cap.
import { ERC1271_GAS_STIPEND } from "../intake/contract-signature";

/** What one ERC-1271 wallet's order may add to a settle: its stipend, the 1/64 kept back and the contract's
 *  reserve around the call (SignatureValidation: the wallet gets the whole stipend or is refused). */
export const ERC1271_SETTLE_GAS = ERC1271_GAS_STIPEND + ERC1271_GAS_STIPEND / 63n + 5_000n;

/** The gas limit a settle of `orders` orders and `fills` fills is sent with: a generous fixed formula
 *  instead of an estimate (an estimate runs the whole batch twice on the node), capped under the
 *  per-transaction gas cap (2^24, EIP-7825) that Hardhat enforces. Orders of contract wallets add their
 *  ERC-1271 stipend each: a wallet may spend it all and still answer valid. */
export function settleGasLimit(orders: number, fills: number, contractWalletOrders = 0): bigint {
  const want = settleGasWanted(orders, fills, contractWalletOrders);
  return want < SETTLE_GAS_CAP ? want : SETTLE_GAS_CAP;
}

/** The per-transaction gas cap a settle is sent under (below Hardhat's 2^24, EIP-7825). */
export const SETTLE_GAS_CAP = 16_000_000n;

/** The gas a settle of this shape is budgeted before the cap: over SETTLE_GAS_CAP, the batch is too big
 *  (the batcher cuts it short: `fitsGasCap`). */
export function settleGasWanted(orders: number, fills: number, contractWalletOrders = 0): bigint {
  return (
    200_000n + 40_000n * BigInt(orders) + 40_000n * BigInt(fills) + ERC1271_SETTLE_GAS * BigInt(contractWalletOrders)
  );
}
