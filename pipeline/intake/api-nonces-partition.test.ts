// API-key nonce ranges per matcher partition: two partitions hand one account disjoint nonces, each range
// ends where the next begins, the index is checked at its bounds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PipelineError } from "../errors";
import {
  API_KEY_NONCE_BASE,
  API_KEY_NONCE_END,
  createApiKeyNonces,
  MAX_NONCE_PARTITIONS,
  PARTITION_NONCE_SPAN,
  partitionNonceRange,
  type NonceSource,
} from "./api-nonces";

const trader = "0x00000000000000000000000000000000000000aa";
const fresh: NonceSource = { isNonceUsed: () => false, minNonceOf: () => 0n };

test("partition ranges: 32 of 2^58 nonces tile [2^63, 2^64) exactly; index 31 is the last, 32 and -1 are refused", () => {
  assert.equal(MAX_NONCE_PARTITIONS, 32);
  assert.deepEqual(partitionNonceRange(0), {
    start: API_KEY_NONCE_BASE,
    end: API_KEY_NONCE_BASE + PARTITION_NONCE_SPAN,
  });
  assert.equal(partitionNonceRange(1).start, partitionNonceRange(0).end);
  assert.equal(partitionNonceRange(31).end, API_KEY_NONCE_END);
  assert.throws(() => partitionNonceRange(32), /0 to 31/);
  assert.throws(() => partitionNonceRange(-1), /0 to 31/);
  assert.throws(() => partitionNonceRange(1.5), /0 to 31/);
});

test("two partitions never hand one account the same nonce, though neither sees the other's orders", () => {
  const a = createApiKeyNonces(fresh, partitionNonceRange(0));
  const b = createApiKeyNonces(fresh, partitionNonceRange(1));
  const fromA = Array.from({ length: 100 }, () => a.next(trader));
  const fromB = Array.from({ length: 100 }, () => b.next(trader));
  assert.equal(fromA[0], API_KEY_NONCE_BASE);
  assert.equal(fromB[0], API_KEY_NONCE_BASE + PARTITION_NONCE_SPAN);
  assert.equal(new Set([...fromA, ...fromB]).size, 200);
  // the default is the whole range from 2^63: partition 0's start
  assert.equal(createApiKeyNonces(fresh).next(trader), API_KEY_NONCE_BASE);
});

test("a partition's range ends at its end: the last nonce is handed out, then INVALID_NONCE", () => {
  const r = partitionNonceRange(3);
  // the chain retired every nonce below the range's last one
  const nearEnd: NonceSource = { isNonceUsed: () => false, minNonceOf: () => r.end - 1n };
  const n = createApiKeyNonces(nearEnd, r);
  assert.equal(n.next(trader), r.end - 1n);
  assert.throws(
    () => n.next(trader),
    (e: PipelineError) => e instanceof PipelineError && e.code === "INVALID_NONCE",
  );
  // a minimum inside the next partition's range exhausts this one at once (never a nonce of the next)
  const past = createApiKeyNonces({ isNonceUsed: () => false, minNonceOf: () => r.end }, r);
  assert.throws(
    () => past.next(trader),
    (e: PipelineError) => e.code === "INVALID_NONCE",
  );
});
