// The chain follower's prefetch: history read early (a start's round trips overlap its journal replay)
// is applied only by catchUp, in the chain's order, as history (live = false); a failed read fails that
// catchUp; the polling after it starts at the block after the prefetched head. The client is a stand-in
// answering eth_blockNumber / eth_getLogs from a list of logs (the pipeline's e2e tests run it on real chains).
import { test } from "node:test";
import assert from "node:assert/strict";
import { encodeAbiParameters, encodeEventTopics, type Address, type Hex, type PublicClient } from "viem";
import { settlementAbi } from "../../sdk/abi";
import { createChainFollower, type SettlementEvent } from "./chain-follower";

const SETTLEMENT = "0x00000000000000000000000000000000000000aa" as Address;
const TOKEN = "0x00000000000000000000000000000000000000bb" as Address;
const trader = (i: number) => `0x${i.toString(16).padStart(40, "0")}` as Address;

function depositLog(block: number, i: number, amount: bigint) {
  return {
    address: SETTLEMENT,
    topics: encodeEventTopics({
      abi: settlementAbi,
      eventName: "Deposited",
      args: { trader: trader(i), token: TOKEN },
    }) as Hex[],
    data: encodeAbiParameters([{ type: "uint256" }], [amount]),
    blockNumber: `0x${block.toString(16)}` as Hex,
    logIndex: "0x0" as Hex,
  };
}

function chainStandIn() {
  const state = {
    head: 10n,
    logs: [depositLog(3, 1, 5n), depositLog(7, 2, 6n)],
    fail: false,
    requests: [] as string[],
  };
  const client = {
    async getBlockNumber() {
      state.requests.push("blockNumber");
      return state.head;
    },
    async request({ method, params }: { method: string; params: [{ fromBlock: Hex; toBlock: Hex }] }) {
      state.requests.push(`${method} ${BigInt(params[0].fromBlock)}-${BigInt(params[0].toBlock)}`);
      if (state.fail) throw new Error("node unreachable");
      const [from, to] = [BigInt(params[0].fromBlock), BigInt(params[0].toBlock)];
      return state.logs.filter((l) => BigInt(l.blockNumber) >= from && BigInt(l.blockNumber) <= to);
    },
  } as unknown as PublicClient;
  return { state, client };
}

function follower(client: PublicClient, seen: [SettlementEvent, boolean][]) {
  return createChainFollower({
    client,
    address: SETTLEMENT,
    abi: settlementAbi,
    fromBlock: 2n,
    eventNames: ["Deposited"],
    pollMs: 5,
    onEvent: (e, live) => void seen.push([e, live]),
  });
}

test("prefetch reads the history without applying it; catchUp applies it in order as history and returns its head; polling resumes after it", async () => {
  const { state, client } = chainStandIn();
  const seen: [SettlementEvent, boolean][] = [];
  const f = follower(client, seen);
  f.prefetch();
  f.prefetch(); // a second call reads nothing more
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(seen.length, 0, "nothing applied before catchUp");
  // a deposit after the prefetched head: not part of this catchUp
  state.logs.push(depositLog(11, 3, 7n));
  state.head = 11n;
  assert.equal(await f.catchUp(), 10n);
  assert.deepEqual(
    seen.map(([e, live]) => [e.name, e.args.trader, e.args.amount, e.blockNumber, live]),
    [
      ["Deposited", trader(1), 5n, 3n, false],
      ["Deposited", trader(2), 6n, 7n, false],
    ],
  );
  assert.equal(f.lastBlock, 10n);
  assert.deepEqual(
    state.requests.filter((r) => r.startsWith("eth_getLogs")),
    ["eth_getLogs 2-10"],
  );
  // the live poll takes block 11 on, once
  f.start();
  const by = Date.now() + 30_000;
  while (seen.length < 3 && Date.now() < by) await new Promise((r) => setTimeout(r, 5));
  await f.stop();
  assert.deepEqual(
    seen.slice(2).map(([e, live]) => [e.args.trader, e.blockNumber, live]),
    [[trader(3), 11n, true]],
  );
  assert.equal(
    state.requests.filter((r) => r.startsWith("eth_getLogs") && r !== "eth_getLogs 2-10")[0],
    "eth_getLogs 11-11",
  );
});

test("a prefetch whose read fails fails the catchUp that takes it (no unhandled rejection before); the next catchUp reads again", async () => {
  const { state, client } = chainStandIn();
  const seen: [SettlementEvent, boolean][] = [];
  const f = follower(client, seen);
  state.fail = true;
  f.prefetch();
  await new Promise((r) => setTimeout(r, 10));
  await assert.rejects(f.catchUp(), /node unreachable/);
  assert.equal(seen.length, 0);
  state.fail = false;
  assert.equal(await f.catchUp(), 10n);
  assert.equal(seen.length, 2);
});
