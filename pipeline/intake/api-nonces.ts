// Nonces of the orders the service signs for API-key bots, dense per account. Settlement keeps one
// storage word per 127 nonces of a trader (word = nonce / 127, two bits per nonce): consecutive nonces
// share a word, so an order's fill or cancel updates a warm word (~2,900-5,000 gas) instead of creating
// one (~20,000 gas) as the random 64-bit nonces did. docs/decisions.md "API-key nonces".
import { PipelineError } from "../errors";

/** First nonce of the API-key range. Wallets sign their own nonces, usually small counters from 0, so a
 *  range starting at 2^63 never meets them; a wallet that signs a nonce inside it only makes the
 *  allocator skip that nonce. */
export const API_KEY_NONCE_BASE = 1n << 63n;
/** End of the range (exclusive): settlePacked carries 64-bit nonces. */
export const API_KEY_NONCE_END = 1n << 64n;

/** Nonces of the range per matcher partition (PARTITION_INDEX): 2^58 each, 32 partitions. Two partitions
 *  never hand one account the same nonce, though neither knows the other's orders before they settle. */
export const PARTITION_NONCE_SPAN = 1n << 58n;
export const MAX_NONCE_PARTITIONS = Number((API_KEY_NONCE_END - API_KEY_NONCE_BASE) / PARTITION_NONCE_SPAN);

/** The API-key nonce range of partition `index` (0 = the whole range's start; the unpartitioned default). */
export function partitionNonceRange(index: number): { start: bigint; end: bigint } {
  if (!Number.isInteger(index) || index < 0 || index >= MAX_NONCE_PARTITIONS)
    throw new Error(`partition index ${index}: 0 to ${MAX_NONCE_PARTITIONS - 1}`);
  const start = API_KEY_NONCE_BASE + BigInt(index) * PARTITION_NONCE_SPAN;
  return { start, end: start + PARTITION_NONCE_SPAN };
}

/** What the matcher service knows of a trader's nonces (journal replay and chain events): the only store. */
export interface NonceSource {
  /** an accepted order used it, or the trader cancelled it on chain */
  isNonceUsed(trader: string, nonce: bigint): boolean;
  /** the trader's on-chain minimum (cancelAllBelow): lower nonces are dead */
  minNonceOf(trader: string): bigint;
}

export interface ApiKeyNonces {
  /** The account's next API-key nonce: never one an accepted order used or the chain retired; two calls
   *  never return the same nonce (the call is synchronous). INVALID_NONCE when the range is used up. */
  next(trader: string): bigint;
}

/**
 * Per account, a cursor into [2^63, 2^64): on an account's first API-key order after a start it is the
 * lowest nonce of the range that is free (the journal's replay and the chain's events already filled the
 * source), then it moves past each nonce it hands out. A nonce handed out for an order that is then
 * refused stays skipped while the process runs (a gap: it costs nothing) and is handed out again after a
 * restart, since nothing used it. Nonces below the on-chain minimum are jumped over.
 */
export function createApiKeyNonces(
  source: NonceSource,
  range: { start: bigint; end: bigint } = { start: API_KEY_NONCE_BASE, end: API_KEY_NONCE_END },
): ApiKeyNonces {
  const cursor = new Map<string, bigint>();
  return {
    next(trader) {
      const t = trader.toLowerCase();
      let n = cursor.get(t) ?? range.start;
      const min = source.minNonceOf(t);
      if (n < min) n = min;
      while (n < range.end && source.isNonceUsed(t, n)) n++;
      if (n >= range.end) {
        throw new PipelineError(
          "INVALID_NONCE",
          "the account has no API-key nonce left (its on-chain minimum nonce is past the end of its API-key nonce range, or every nonce of the range is used)",
          { minNonce: min.toString() },
        );
      }
      cursor.set(t, n + 1n);
      return n;
    },
  };
}
