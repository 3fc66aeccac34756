// The settle sender against an in-process fake chain (pipeline/testing/fake-rpc.ts): what it signs (nonce,
// gas, gas price, calldata), how it keeps its nonce and gas price, how each failure is sorted (retryable or
// fatal, with the contract's error decoded), that nothing leaves after a failure until reset(), and the
// transport's corner cases (receipt lost, answer in pieces or garbage, connection dropped or refused).
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { encodeErrorResult, encodeFunctionData, keccak256, numberToHex, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config/dev-accounts";
import { encodePackedBatch, type SettleArgs } from "../../sdk/settle-batch";
import { FatalChainError, RetryableChainError } from "../errors";
import {
  createSettleSender,
  ERC1271_SETTLE_GAS,
  GAS_PRICE_MAX_AGE_MS,
  SETTLE_TIP_WEI,
  settleGasLimit,
  type SettleSender,
} from "./settle-sender";
import { settlementAbi } from "../../sdk/abi";
import { startFakeRpc, type FakeRpc } from "../testing/fake-rpc";
import { settleAccessList } from "./access-list";

const OPERATOR_KEY = HARDHAT_DEV_PRIVATE_KEYS[1] as Hex;
const OPERATOR = privateKeyToAccount(OPERATOR_KEY).address;
const SETTLEMENT = "0x5fbdb2315678afecb367f032d93f642f64180aa3" as Address;
const abi = settlementAbi;
const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Address;

const order = (n: number, side: 0 | 1, price = 2_000n * 10n ** 6n) => ({
  trader: addr(0x100 + n),
  baseToken: addr(0xb1),
  quoteToken: addr(0xc1),
  side,
  price,
  amount: 10n ** 18n,
  expiry: 2n ** 40n,
  nonce: BigInt(n),
  flags: 0,
});
const SIG = `0x${"11".repeat(65)}` as Hex;
const ARGS: SettleArgs = {
  orders: [order(1, 0), order(2, 1)],
  signatures: [SIG, SIG],
  fills: [{ makerIndex: 1, takerIndex: 0, baseAmount: 10n ** 17n, price: 2_000n * 10n ** 6n }],
};
const ARGS3: SettleArgs = {
  orders: [order(1, 0), order(2, 1), order(3, 1)],
  signatures: [SIG, SIG, SIG],
  fills: [
    { makerIndex: 1, takerIndex: 0, baseAmount: 1n, price: 1n },
    { makerIndex: 2, takerIndex: 0, baseAmount: 2n, price: 1n },
  ],
};
const calldata = (batchId: bigint, args: SettleArgs) =>
  encodeFunctionData({ abi, functionName: "settlePacked", args: [batchId, encodePackedBatch(args)] });
const revertData = (errorName: string, args: readonly unknown[]) =>
  encodeErrorResult({ abi, errorName, args } as never) as Hex;
const NONCE_USED = () => revertData("SettlementOrderNonceUsed", [addr(0x101), 1n]);

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a rejection");
}

let chain: FakeRpc;
let senders: SettleSender[] = [];
function sender(
  extra: { wsUrl?: string; pollingIntervalMs?: number; isContractWallet?: (a: Address) => boolean } = {},
): SettleSender {
  const s = createSettleSender({
    rpcUrl: chain.url,
    chainId: chain.chainId,
    settlement: SETTLEMENT,
    operatorKey: OPERATOR_KEY,
    pollingIntervalMs: 2,
    ...extra,
  });
  senders.push(s);
  return s;
}

/** Runs `fn` with Date.now frozen at the real now (`t0`) until `fn` moves it (`at(ms)`); the real clock after. */
async function withClock(fn: (at: (ms: number) => void, t0: number) => Promise<void>): Promise<void> {
  const realNow = Date.now;
  let now = realNow();
  Date.now = () => now;
  try {
    await fn((ms) => {
      now = ms;
    }, now);
  } finally {
    Date.now = realNow;
  }
}

describe("settle sender against a fake chain", () => {
  before(async () => {
    chain = await startFakeRpc({ nonce: 7, gasPrice: 1_000_000_001n, nextBatchId: 5n });
  });
  beforeEach(() => {
    for (const s of senders) s.close?.();
    senders = [];
    chain.dropConnections();
    chain.state.nonce = 7;
    chain.state.gasPrice = 1_000_000_001n;
    chain.state.blockNumber = 100n;
    chain.state.baseFeePerGas = null;
    chain.state.nextBatchId = 5n;
    chain.sent.length = 0;
    chain.calls.length = 0;
    chain.requests.length = 0;
    chain.onSend = undefined;
    chain.onCall = undefined;
    chain.httpErrors.clear();
    chain.refuseConnections = 0;
  });
  after(async () => {
    for (const s of senders) s.close?.();
    await chain.close();
  });

  test("nextBatchId reads the contract; a failed read is retryable and says what failed", async () => {
    const s = sender();
    chain.state.nextBatchId = 42n;
    assert.equal(await s.nextBatchId(), 42n);
    assert.equal(chain.calls[0].to.toLowerCase(), SETTLEMENT);
    chain.httpErrors.set("eth_call", { code: -32603, message: "node restarting" });
    const e = await rejection(s.nextBatchId());
    assert.ok(e instanceof RetryableChainError);
    assert.match(e.message, /^nextBatchId: .*node restarting/s);
  });

  test("send signs one EIP-2930 tx: the chain's pending nonce, 1.5x the gas price (rounded down), the formula's gas, settlePacked(batchId, packed), the batch's access list", async () => {
    const s = sender();
    const r = await s.send(5n, ARGS);
    assert.equal(chain.sent.length, 1);
    const tx = chain.sent[0];
    assert.equal(tx.nonce, 7);
    assert.equal(tx.gasPrice, 1_500_000_001n);
    assert.equal(tx.gas, settleGasLimit(2, 1));
    assert.equal(tx.chainId, chain.chainId);
    assert.equal(tx.to.toLowerCase(), SETTLEMENT);
    assert.equal(tx.from, OPERATOR);
    assert.equal(tx.batchId, 5n);
    assert.equal(tx.packed, encodePackedBatch(ARGS));
    assert.equal(tx.data, calldata(5n, ARGS));
    assert.deepEqual(tx.accessList, settleAccessList(SETTLEMENT, ARGS));
    const { sentAtMs, answeredAtMs, ...rest } = r;
    assert.deepEqual(rest, { txHash: keccak256(tx.raw), gasUsed: 100_007n, blockNumber: 101n });
    // the stage times: on the socket, then its answer (the sender's clock)
    assert.ok(
      typeof sentAtMs === "number" && typeof answeredAtMs === "number" && sentAtMs <= answeredAtMs,
      `${sentAtMs} <= ${answeredAtMs}`,
    );
    // the nonce is asked for the pending block, over HTTP; the send travels on the WebSocket
    const nonceReq = chain.requests.filter((q) => q.method === "eth_getTransactionCount");
    assert.deepEqual(
      nonceReq.map((q) => [q.via, q.params[0], q.params[1]]),
      [["http", OPERATOR, "pending"]],
    );
    assert.equal(chain.count("eth_sendRawTransaction", "ws"), 1);
    assert.equal(chain.count("eth_sendRawTransaction", "http"), 0);
    // the receipt came with the send: no polling over HTTP
    assert.equal(chain.count("eth_getTransactionReceipt", "http"), 0);
  });

  test("the nonce and the gas price are kept: a second send reads neither, uses the next nonce and the same connection", async () => {
    const c0 = chain.connections();
    const s = sender();
    await s.send(5n, ARGS);
    const r2 = await s.send(6n, ARGS3);
    assert.deepEqual(
      chain.sent.map((t) => [t.nonce, t.batchId, t.gas]),
      [
        [7, 5n, settleGasLimit(2, 1)],
        [8, 6n, settleGasLimit(3, 2)],
      ],
    );
    assert.equal(chain.count("eth_getTransactionCount"), 1);
    assert.equal(chain.count("eth_gasPrice"), 1);
    assert.equal(chain.connections() - c0, 1, "one WebSocket for every send");
    assert.equal(r2.blockNumber, 102n);
    assert.equal(r2.gasUsed, 100_008n);
  });

  test("sends made together leave in call order with consecutive nonces", async () => {
    const s = sender();
    const rs = await Promise.all([s.send(5n, ARGS), s.send(6n, ARGS3), s.send(7n, ARGS)]);
    assert.deepEqual(
      chain.sent.map((t) => [t.nonce, t.batchId]),
      [
        [7, 5n],
        [8, 6n],
        [9, 7n],
      ],
    );
    assert.deepEqual(
      rs.map((r) => r.blockNumber),
      [101n, 102n, 103n],
    );
    assert.equal(chain.count("eth_getTransactionCount"), 1);
  });

  test("the gas price is read again only when older than 2 s (kept at exactly 2,000 ms, re-read at 2,001 ms in the background, still kept at exactly 10 s; waited for past it)", async () => {
    await withClock(async (at, t0) => {
      const s = sender();
      await s.send(5n, ARGS);
      chain.state.gasPrice = 4_000_000_000n;
      at(t0 + 2_000);
      await s.send(6n, ARGS);
      assert.equal(chain.count("eth_gasPrice"), 1);
      assert.equal(chain.sent[1].gasPrice, 1_500_000_001n);
      at(t0 + 2_001);
      // the send does not wait for the new reading: it goes at the old price, the read runs meanwhile
      await s.send(7n, ARGS);
      assert.equal(chain.sent[2].gasPrice, 1_500_000_001n);
      // the sends after it take the new price once it is in, with no second read
      // sends 5 ms apart (at most 200) until one goes at `price`; returns the next batch id
      const sendUntilPriced = async (price: bigint, from: bigint) => {
        let next = from;
        for (let i = 0; i < 200 && chain.sent.at(-1)!.gasPrice !== price; i++) {
          await new Promise((r) => setTimeout(r, 5));
          await s.send(next++, ARGS);
        }
        return next;
      };
      let id = await sendUntilPriced(6_000_000_000n, 8n);
      assert.equal(chain.sent.at(-1)!.gasPrice, 6_000_000_000n);
      assert.equal(chain.count("eth_gasPrice"), 2);
      // the new reading is dated: 2,000 ms after it, still kept
      chain.state.gasPrice = 8_000_000_000n;
      at(t0 + 4_001);
      await s.send(id++, ARGS);
      assert.equal(chain.count("eth_gasPrice"), 2);
      assert.equal(chain.sent.at(-1)!.gasPrice, 6_000_000_000n);
      // exactly GAS_PRICE_MAX_AGE_MS old: still kept for this send, read again in the background
      at(t0 + 2_001 + GAS_PRICE_MAX_AGE_MS);
      await s.send(id++, ARGS);
      assert.equal(chain.sent.at(-1)!.gasPrice, 6_000_000_000n);
      id = await sendUntilPriced(12_000_000_000n, id);
      assert.equal(chain.sent.at(-1)!.gasPrice, 12_000_000_000n);
      assert.equal(chain.count("eth_gasPrice"), 3);
      // older than GAS_PRICE_MAX_AGE_MS: the send waits for the reading
      chain.state.gasPrice = 10_000_000_000n;
      at(t0 + 2_001 + 2 * GAS_PRICE_MAX_AGE_MS + 1);
      await s.send(id++, ARGS);
      assert.equal(chain.count("eth_gasPrice"), 4);
      assert.equal(chain.sent.at(-1)!.gasPrice, 15_000_000_000n);
    });
  });

  test("on a chain with a base fee the price is 1.5 x (latest base fee + 1 gwei tip), and eth_gasPrice is not read", async () => {
    chain.state.baseFeePerGas = 3_000_000_001n;
    chain.state.gasPrice = 999_000_000_000n;
    const s = sender();
    await s.send(5n, ARGS);
    assert.equal(chain.sent[0].gasPrice, ((3_000_000_001n + SETTLE_TIP_WEI) * 3n) / 2n);
    assert.equal(chain.count("eth_gasPrice"), 0);
    assert.equal(chain.count("eth_getBlockByNumber"), 1);
  });

  test("a node whose suggestion follows recent tips (Anvil) does not drive the price up: ten refreshes, one price", async () => {
    await withClock(async (at) => {
      chain.state.baseFeePerGas = 1_000_000_000n;
      // the node suggests what the last transaction paid, as a tip-following oracle does when we are its only traffic
      chain.onSend = (tx) => {
        chain.state.gasPrice = tx.gasPrice;
        return undefined;
      };
      const s = sender();
      for (let i = 0; i < 10; i++) {
        await s.send(5n + BigInt(i), ARGS);
        at(Date.now() + 2_001);
      }
      assert.equal(chain.sent.length, 10);
      assert.deepEqual(new Set(chain.sent.map((t) => t.gasPrice)), new Set([3_000_000_000n]));
    });
  });

  test("a batch that does not fit the packed layout is fatal, nothing is sent, and the sender stays open", async () => {
    const s = sender();
    const tooBig: SettleArgs = { ...ARGS, orders: [order(1, 0, 1n << 128n), order(2, 1)] };
    const e = await rejection(s.send(5n, tooBig));
    assert.ok(e instanceof FatalChainError);
    assert.match(e.message, /^settle 5: cannot encode the batch: encodePackedBatch: price/);
    assert.equal(chain.sent.length, 0);
    const r = await s.send(5n, ARGS);
    assert.equal(r.blockNumber, 101n);
  });

  test("a node refusal (nonce too low) is retryable; nothing more leaves until reset(), which reads the nonce again", async () => {
    const s = sender();
    await s.send(5n, ARGS);
    chain.state.nonce += 3; // the key was used elsewhere
    const e = await rejection(s.send(6n, ARGS));
    assert.ok(e instanceof RetryableChainError);
    assert.match(e.message, /nonce too low/);
    const e2 = await rejection(s.send(6n, ARGS));
    assert.ok(e2 instanceof RetryableChainError);
    assert.match(e2.message, /^not sent: .*nonce too low/s);
    assert.equal(chain.sent.length, 2, "the refused send was not followed by another");
    s.reset!();
    const r = await s.send(6n, ARGS);
    assert.equal(chain.sent[2].nonce, 11);
    assert.equal(chain.count("eth_getTransactionCount"), 2);
    assert.equal(r.blockNumber, 102n);
  });

  test("a send refused with the contract's error data is fatal and decoded (the data as a string or nested as Hardhat gives it)", async () => {
    for (const shape of ["string", "nested"] as const) {
      const s = sender();
      const data = NONCE_USED();
      chain.onSend = () => ({
        result: {
          error: { code: 3, message: "execution reverted", data: shape === "string" ? data : { message: "x", data } },
        },
      });
      const e = await rejection(s.send(5n, ARGS));
      assert.ok(e instanceof FatalChainError, shape);
      assert.equal(e.revertName, "SettlementOrderNonceUsed", shape);
      assert.deepEqual(
        e.revertArgs!.map((x) => String(x).toLowerCase()),
        [addr(0x101), "1"],
        shape,
      );
      const e2 = await rejection(s.send(5n, ARGS));
      assert.match(e2.message, /^not sent: settle reverted: SettlementOrderNonceUsed/, shape);
      s.close!();
    }
  });

  test("a send refused with data that is no hex string: fatal when the node says it reverted, without an error name", async () => {
    const s = sender();
    chain.onSend = () => ({ result: { error: { code: 3, message: "execution reverted", data: { reason: 7 } } } });
    const e = await rejection(s.send(5n, ARGS));
    assert.ok(e instanceof FatalChainError);
    assert.equal(e.revertName, undefined);
    assert.match(e.message, /^settle reverted: /);
  });

  test("a transaction mined reverted: replayed as a call at the block before, with its gas, to learn the error; the sender then stays shut", async () => {
    const s = sender();
    chain.onSend = () => ({ result: "reverted" });
    chain.onCall = (c) =>
      c.data.startsWith(calldata(5n, ARGS).slice(0, 10))
        ? { error: { code: 3, message: "execution reverted", data: NONCE_USED() } }
        : undefined;
    const e = await rejection(s.send(5n, ARGS));
    assert.ok(e instanceof FatalChainError);
    assert.equal(e.revertName, "SettlementOrderNonceUsed");
    assert.equal(chain.calls.length, 1);
    const c = chain.calls[0];
    assert.equal(c.block, numberToHex(100n), "the replay runs on the state before the transaction's block (101)");
    assert.equal(c.gas, settleGasLimit(2, 1));
    assert.equal(c.from?.toLowerCase(), OPERATOR.toLowerCase());
    assert.equal(c.to.toLowerCase(), SETTLEMENT);
    assert.equal(c.data, calldata(5n, ARGS));
    const e2 = await rejection(s.send(6n, ARGS));
    assert.ok(e2 instanceof RetryableChainError);
    assert.equal(e2.message, "not sent: batch 5 reverted");
    assert.equal(chain.sent.length, 1);
  });

  test("a reverted transaction whose replay succeeds (out of gas?), or fails without a revert, is still fatal", async () => {
    const s = sender();
    chain.onSend = () => ({ result: "reverted" });
    const e = await rejection(s.send(5n, ARGS));
    assert.ok(e instanceof FatalChainError);
    assert.equal(e.message, "settle 5 reverted on chain but its replay succeeds (out of gas?)");
    assert.equal(e.revertName, undefined);

    const s2 = sender();
    chain.onCall = () => ({ error: { code: -32603, message: "internal failure" } });
    const e2 = await rejection(s2.send(9n, ARGS));
    assert.ok(e2 instanceof FatalChainError);
    assert.match(e2.message, /^settle 9 reverted: .*internal failure/s);
  });

  test("a receipt missing from the send's answer is fetched over HTTP", async () => {
    const s = sender();
    chain.onSend = () => ({ loseReceipt: true });
    const r = await s.send(5n, ARGS);
    assert.deepEqual(
      { ...r, sentAtMs: undefined, answeredAtMs: undefined },
      {
        txHash: chain.sent[0].hash,
        gasUsed: 100_007n,
        blockNumber: 101n,
        sentAtMs: undefined,
        answeredAtMs: undefined,
      },
    );
    assert.ok(chain.count("eth_getTransactionReceipt", "http") >= 1);
  });

  test("a reverted transaction found by polling is diagnosed the same", async () => {
    const s = sender();
    chain.onSend = () => ({ loseReceipt: true, result: "reverted" });
    chain.onCall = () => ({ error: { code: 3, message: "execution reverted", data: NONCE_USED() } });
    const e = await rejection(s.send(5n, ARGS));
    assert.ok(e instanceof FatalChainError);
    assert.equal(e.revertName, "SettlementOrderNonceUsed");
  });

  test("answers in pieces, garbage and answers to unknown ids do not confuse the sender", async () => {
    const c0 = chain.connections();
    const s = sender();
    chain.onSend = () => ({ answer: "separate" });
    const r = await s.send(5n, ARGS);
    assert.equal(r.txHash, chain.sent[0].hash);
    assert.equal(r.blockNumber, 101n);
    chain.onSend = () => ({ answer: "garbage-first" });
    const r2 = await s.send(6n, ARGS);
    assert.equal(r2.txHash, chain.sent[1].hash);
    assert.equal(r2.gasUsed, 100_008n);
    assert.equal(chain.connections() - c0, 1);
  });

  test("the connection dropped with a send in flight: retryable, the sender shuts until reset(), then a new connection", async () => {
    const c0 = chain.connections();
    const s = sender();
    chain.onSend = () => ({ answer: "drop" });
    const e = await rejection(s.send(5n, ARGS));
    assert.ok(e instanceof RetryableChainError);
    assert.match(e.message, /socket hang up/);
    const e2 = await rejection(s.send(6n, ARGS));
    assert.equal(e2.message, "not sent: the connection closed with sends in flight");
    chain.onSend = undefined;
    s.reset!();
    const r = await s.send(6n, ARGS);
    assert.equal(r.txHash, chain.sent[1].hash);
    assert.equal(chain.connections() - c0, 2);
    assert.equal(chain.sent[1].nonce, 8, "the dropped send landed: the nonce is read again");
  });

  test("an idle connection the node closed is opened again without a reset", async () => {
    const c0 = chain.connections();
    const s = sender();
    await s.send(5n, ARGS);
    chain.dropConnections();
    await new Promise((r) => setTimeout(r, 20));
    const r = await s.send(6n, ARGS);
    assert.equal(r.blockNumber, 102n);
    assert.equal(chain.connections() - c0, 2);
  });

  test("a refused connection is retryable; after reset() the sender connects again", async () => {
    const s = sender();
    chain.refuseConnections = 1;
    const e = await rejection(s.send(5n, ARGS));
    assert.ok(e instanceof RetryableChainError);
    assert.match(e.message, /socket hang up: /);
    s.reset!();
    const r = await s.send(5n, ARGS);
    assert.equal(r.blockNumber, 101n);
  });

  test("wsUrl is used for the sends when given; by default it is rpcUrl with ws://", async () => {
    const s = sender({ wsUrl: chain.wsUrl.replace("127.0.0.1", "localhost") });
    await s.send(5n, ARGS);
    assert.equal(chain.count("eth_sendRawTransaction", "ws"), 1);
    const dead = sender({ wsUrl: "ws://127.0.0.1:1" });
    const e = await rejection(dead.send(6n, ARGS));
    assert.ok(e instanceof RetryableChainError);
    assert.match(e.message, /socket hang up: .*ECONNREFUSED/);
  });

  /** A send while the node fails `method` with `message`: refused as retryable, naming the failure. */
  async function assertReadFailureRetryable(s: SettleSender, method: string, message: string): Promise<void> {
    chain.httpErrors.set(method, { code: -32603, message });
    const e = await rejection(s.send(5n, ARGS));
    assert.ok(e instanceof RetryableChainError);
    assert.ok(e.message.includes(message), e.message);
  }

  test("a failed read of the nonce is retryable and shuts the sender until reset()", async () => {
    const s = sender();
    await assertReadFailureRetryable(s, "eth_getTransactionCount", "header not found");
    chain.httpErrors.clear();
    const e2 = await rejection(s.send(5n, ARGS));
    assert.match(e2.message, /^not sent: /);
    s.reset!();
    assert.equal((await s.send(5n, ARGS)).blockNumber, 101n);
  });

  test("a failed read of the gas price is retryable", async () => {
    const s = sender();
    await assertReadFailureRetryable(s, "eth_gasPrice", "gas oracle down");
    assert.equal(chain.sent.length, 0);
  });

  test("close(): a send in flight fails with 'sender closed', and so does any later send", async () => {
    const s = sender();
    chain.onSend = () => ({ answer: "hold" });
    const inFlight = s.send(5n, ARGS);
    while (chain.sent.length === 0) await new Promise((r) => setTimeout(r, 2));
    s.close!();
    const e = await rejection(inFlight);
    assert.ok(e instanceof RetryableChainError);
    assert.equal(e.message, "sender closed");
    const e2 = await rejection(s.send(6n, ARGS));
    assert.ok(e2 instanceof RetryableChainError);
    assert.equal(e2.message, "sender closed");
    chain.releaseHeld();
  });

  test("simulate: null when the batch would settle (a call with the formula's gas from the operator), the decoded error when it reverts", async () => {
    const s = sender();
    assert.equal(await s.simulate!(5n, ARGS3), null);
    const c = chain.calls[0];
    assert.equal(c.gas, settleGasLimit(3, 2));
    assert.equal(c.from?.toLowerCase(), OPERATOR.toLowerCase());
    assert.equal(c.to.toLowerCase(), SETTLEMENT);
    assert.equal(c.data, calldata(5n, ARGS3));
    assert.equal(c.block, "latest");
    chain.onCall = () => ({ error: { code: 3, message: "execution reverted", data: NONCE_USED() } });
    const r = await s.simulate!(5n, ARGS);
    assert.ok(r instanceof FatalChainError);
    assert.equal(r.revertName, "SettlementOrderNonceUsed");
  });

  test("simulate: a failed read (no revert) is thrown as retryable", async () => {
    const s = sender();
    chain.onCall = () => ({ error: { code: -32603, message: "node restarting" } });
    const e = await rejection(s.simulate!(5n, ARGS));
    assert.ok(e instanceof RetryableChainError);
  });

  test("orders of contract wallets add the ERC-1271 stipend each to the gas limit, in sends and simulations", async () => {
    // stipend 200,000 + the 1/64 kept back (200,000 / 63 = 3,174) + 5,000 of reserve around the call
    assert.equal(ERC1271_SETTLE_GAS, 208_174n);
    assert.equal(settleGasLimit(2, 1, 1), 320_000n + 208_174n);
    assert.equal(settleGasLimit(2, 1, 0), 320_000n);
    assert.equal(settleGasLimit(300, 0, 1000), 16_000_000n);
    const wallets = new Set([ARGS3.orders[1].trader.toLowerCase(), ARGS3.orders[2].trader.toLowerCase()]);
    const s = sender({ isContractWallet: (a) => wallets.has(a.toLowerCase()) });
    await s.send(5n, ARGS3);
    assert.equal(chain.sent[0].gas, settleGasLimit(3, 2, 2));
    await s.simulate!(6n, ARGS3);
    assert.equal(chain.calls[0].gas, settleGasLimit(3, 2, 2));
    const plain = sender({ isContractWallet: () => false });
    await plain.simulate!(6n, ARGS3);
    assert.equal(chain.calls[1].gas, settleGasLimit(3, 2));
  });

  test("a send whose answer never comes times out (30 s) as retryable and shuts the sender", async () => {
    const s = sender();
    await s.send(5n, ARGS); // nonce and gas price known: the next send reads nothing over HTTP
    const realSetTimeout = globalThis.setTimeout;
    globalThis.setTimeout = ((fn: () => void, ms?: number, ...rest: unknown[]) =>
      (realSetTimeout as (f: () => void, t?: number, ...a: unknown[]) => NodeJS.Timeout)(
        fn,
        ms === 30_000 ? 1 : ms,
        ...rest,
      )) as typeof setTimeout;
    chain.onSend = () => ({ answer: "hold" });
    let caught: Promise<Error>;
    try {
      // the handler is attached at once: the 1 ms timer may fire before the fake chain has seen the send
      caught = rejection(s.send(6n, ARGS));
      for (let i = 0; i < 2_000 && chain.sent.length < 2; i++) await new Promise((r) => realSetTimeout(r, 1));
    } finally {
      globalThis.setTimeout = realSetTimeout;
    }
    const e = await caught;
    assert.ok(e instanceof RetryableChainError);
    assert.equal(e.message, "timed out waiting for the send's answer");
    const e2 = await rejection(s.send(7n, ARGS));
    assert.equal(e2.message, "not sent: timed out waiting for the send's answer");
    chain.releaseHeld();
  });

  test("a lost receipt whose polling fails is retryable and shuts the sender until reset()", async () => {
    const s = sender();
    chain.onSend = () => ({ loseReceipt: true });
    chain.httpErrors.set("eth_getTransactionReceipt", { code: -32603, message: "receipt store offline" });
    const e = await rejection(s.send(5n, ARGS));
    assert.ok(e instanceof RetryableChainError);
    assert.match(e.message, /receipt store offline/);
    chain.httpErrors.clear();
    chain.onSend = undefined;
    const e2 = await rejection(s.send(6n, ARGS));
    assert.match(e2.message, /^not sent: .*receipt store offline/s);
    assert.equal(chain.sent.length, 1);
  });

  test("PIPELINE_TRACE prints one line per batch with its timings, fills and gas; unset, nothing is printed", async () => {
    const realLog = console.log;
    const lines: string[] = [];
    console.log = (...a: unknown[]) => void lines.push(a.join(" "));
    const prev = process.env.PIPELINE_TRACE;
    try {
      delete process.env.PIPELINE_TRACE;
      const s = sender();
      await s.send(5n, ARGS);
      assert.deepEqual(lines, []);
      process.env.PIPELINE_TRACE = "1";
      await s.send(6n, ARGS3);
      assert.equal(lines.length, 1);
      assert.match(
        lines[0],
        /^\d+ settle 6: encode\+sign \d+\.\d ms, send\+receipt \d+\.\d ms, receipt polling \d+\.\d ms, 2 fills, 100008 gas$/,
      );
    } finally {
      console.log = realLog;
      if (prev === undefined) delete process.env.PIPELINE_TRACE;
      else process.env.PIPELINE_TRACE = prev;
    }
  });
});
