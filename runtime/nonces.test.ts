import { test } from "node:test";
import assert from "node:assert/strict";
import { createNonceLane, createNonceLanes } from "./nonces";

const A = "0x00000000000000000000000000000000000000aA";

test("concurrent sends get consecutive nonces from one read of the pending count, and run one at a time in nonce order", async () => {
  let reads = 0;
  const lane = createNonceLane(1, A, async () => (reads++, 7));
  const started: number[] = [];
  let running = 0;
  const nonces = await Promise.all(
    Array.from({ length: 20 }, () =>
      lane.send(async (nonce) => {
        started.push(nonce);
        running++;
        assert.equal(running, 1, "one send at a time");
        await new Promise((r) => setTimeout(r, Math.random() * 3));
        running--;
        return nonce;
      }),
    ),
  );
  assert.deepEqual(
    nonces,
    Array.from({ length: 20 }, (_, i) => 7 + i),
  );
  assert.deepEqual(started, nonces);
  assert.equal(reads, 1);
});

test("a failed send makes the lane read the count again (so does resync); the error reaches its caller, the next send goes on", async () => {
  const counts = [3, 5, 9];
  const lane = createNonceLane(1, A, async () => counts.shift()!);
  assert.equal(await lane.send(async (n) => n), 3);
  await assert.rejects(
    lane.send(async () => {
      throw new Error("nonce too low");
    }),
    /nonce too low/,
  );
  assert.equal(await lane.send(async (n) => n), 5);
  assert.equal(await lane.send(async (n) => n), 6);
  // resync: someone outside the lane sent from the account
  lane.resync();
  assert.equal(await lane.send(async (n) => n), 9);
});

test("a failed read of the count fails that send only", async () => {
  let fail = true;
  const lane = createNonceLane(1, A, async () => {
    if (fail) {
      fail = false;
      throw new Error("node down");
    }
    return 0;
  });
  const [a, b] = await Promise.allSettled([lane.send(async (n) => n), lane.send(async (n) => n)]);
  assert.equal(a.status, "rejected");
  assert.deepEqual(b, { status: "fulfilled", value: 0 });
});

test("one lane per (chain, account): the same lane for the same account whatever its case, another for another chain", () => {
  const lanes = createNonceLanes();
  const read = async () => 0;
  const one = lanes.lane(1, A, read);
  assert.equal(lanes.lane(1, A.toLowerCase() as `0x${string}`, read), one);
  assert.notEqual(lanes.lane(2, A, read), one);
});
