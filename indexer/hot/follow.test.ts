// The follower against a synthetic node (testing/syntheticChain.ts, no EVM): the transactions of a read's
// BatchSettled logs are fetched in ONE JSON-RPC batch (one HTTP request whatever the number of logs, never
// one after another per log), their trades reach the tail in chain order, and a batch whose transaction
// calls another contract than the settlement is refused loudly (onError names the rule; the cursor stays
// below its block, so nothing of it is served).
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { poll } from "../../test/support/poll";
import { type JsonRpcRequest, SyntheticChain, syntheticFollowing } from "../testing/syntheticChain";
import { followSettlement } from "./follow";
import { HotTail } from "./tail";

/** The chain over HTTP; `requests` gets each HTTP request's JSON-RPC methods. */
async function serve(chain: SyntheticChain, requests: string[][]) {
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const parsed = JSON.parse(body) as JsonRpcRequest | JsonRpcRequest[];
      const calls = Array.isArray(parsed) ? parsed : [parsed];
      requests.push(calls.map((c) => c.method));
      const answers = calls.map((c) => chain.answer(c));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { server, rpcUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

test("a read's transactions in one JSON-RPC batch; a batch not sent to the settlement is refused", async () => {
  const chain = new SyntheticChain();
  const keys = [
    ...chain.mine([{ count: 2 }, { count: 1 }]).keys, // two batches in one block
    ...chain.mine([{ count: 3 }]).keys,
    ...chain.mine([]).keys,
  ];
  const requests: string[][] = [];
  const { server, rpcUrl } = await serve(chain, requests);
  const tail = new HotTail(0);
  const errors: string[] = [];
  const follower = followSettlement({
    ...syntheticFollowing(rpcUrl, tail),
    pollMs: 10,
    maxRange: 100,
    maxTailTrades: 1_000_000,
    onError: (e) => errors.push(String(e)),
  });
  try {
    await poll("the tail at block 3", async () => (tail.cursor.number === 3 ? true : undefined), 20_000, 10);
    const served = tail.select({ above: 0, order: "asc", limit: 100 });
    assert.deepEqual(
      served.map((t) => t.baseAmount.toString()),
      keys,
      "every trade, in block, log and trade order",
    );
    assert.deepEqual(
      served.map((t) => [t.blockNumber, t.json.logIndex, t.json.tradeIndex]),
      [
        [1, 0, 0],
        [1, 0, 1],
        [1, 1, 0],
        [2, 0, 0],
        [2, 0, 1],
        [2, 0, 2],
      ],
    );
    // the three logs' transactions: asked together, in one HTTP request
    const txRequests = requests.filter((r) => r.includes("eth_getTransactionByHash"));
    assert.deepEqual(txRequests, [Array(3).fill("eth_getTransactionByHash")]);
    assert.deepEqual(errors, []);

    // a batch whose transaction calls another contract: refused, never served
    chain.mine([{ count: 1, to: `0x${"00".repeat(19)}01` }]);
    await poll("the refusal", async () => (errors.length > 0 ? true : undefined), 20_000, 10);
    assert.match(errors[0]!, /calls 0x0{38}01, not the settlement .* direct call only/);
    assert.equal(tail.cursor.number, 3, "the cursor stays below the refused block");
    assert.equal(tail.tradeCount, keys.length);
  } finally {
    await follower.stop();
    server.close();
  }
});
