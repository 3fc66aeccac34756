// What the code relies on from a chain node, on each node program behind the same proxy: the chain id,
// the genesis date, the 60M block gas limit, Hardhat's 20 funded dev accounts, a send and its receipt in
// one WebSocket batch (the settle sender's path), and the settle sender's reading of a revert: Hardhat
// refuses a reverting transaction with the revert data, Anvil mines it with status 0 and the sender
// replays it as a call; both must end in the same FatalChainError naming the contract's error. A nonce
// race is retryable on both.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { WebSocket } from "ws";
import { createPublicClient, encodeErrorResult, http, keccak256, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config";
import { settlementAbi } from "../../sdk/abi";
import type { SettleArgs } from "../../sdk/settle-batch";
import { classifySettleError, createSettleSender } from "../../pipeline/settle/settle-sender";
import { FatalChainError, RetryableChainError } from "../../pipeline/errors";
import { CHAIN_NODE_KINDS, type ChainNodeKind } from "./node-process";
import { createRpcClient, sendBatch } from "./rpc-client";
import { startChain } from "./start-chain";

const CHAIN_ID = 31337;
const WALLET = "0x68B1D87F95878fE05B998F19b66F4baba5De1aed" as Address;
const REVERTER = "0x00000000000000000000000000000000000000bb" as Address;
const OPERATOR_KEY = HARDHAT_DEV_PRIVATE_KEYS[1] as Hex;
const sender = privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[9]);

/** Runtime code that reverts with `data` (CODECOPY it to memory, REVERT). */
function revertingCode(data: Hex): Hex {
  const bytes = (data.length - 2) / 2;
  assert.ok(bytes < 256);
  const len = bytes.toString(16).padStart(2, "0");
  return `0x60${len}600c60003960${len}6000fd${data.slice(2)}` as Hex;
}

const order = (n: number, side: 0 | 1) => ({
  trader: `0x${(0x100 + n).toString(16).padStart(40, "0")}` as Address,
  baseToken: `0x${"b1".padStart(40, "0")}` as Address,
  quoteToken: `0x${"c1".padStart(40, "0")}` as Address,
  side,
  price: 2_000n * 10n ** 6n,
  amount: 10n ** 18n,
  expiry: 2n ** 40n,
  nonce: BigInt(n),
  flags: 0,
});
const ARGS: SettleArgs = {
  orders: [order(1, 0), order(2, 1)],
  signatures: [`0x${"11".repeat(65)}`, `0x${"11".repeat(65)}`],
  fills: [{ makerIndex: 1, takerIndex: 0, baseAmount: 10n ** 17n, price: 2_000n * 10n ** 6n }],
};

/** A `node` chain in a fresh temp dir and an RPC client on it; both stop, and the dir goes, after the test. */
async function chainFor(t: TestContext, node: ChainNodeKind, prefix: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}${node}-`));
  const chain = await startChain({ chainId: CHAIN_ID, port: 0, dataDir: dir, node, fsync: false });
  const rpc = createRpcClient(chain.rpcUrl);
  t.after(async () => {
    rpc.close();
    await chain.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { dir, chain, rpc };
}

for (const node of CHAIN_NODE_KINDS) {
  test(`${node}: chain id, genesis date, block gas limit, the funded dev accounts; send + receipt in one WebSocket batch`, async (t) => {
    const { dir, chain, rpc } = await chainFor(t, node, "compat-");
    assert.equal(chain.node, node);
    assert.equal(await rpc.call("eth_chainId"), "0x7a69");
    const genesis = await rpc.call<{ timestamp: string; gasLimit: string }>("eth_getBlockByNumber", ["0x0", false]);
    const recorded = JSON.parse(fs.readFileSync(path.join(dir, "genesis.json"), "utf8")) as {
      genesisTimestampS: number;
      node: string;
    };
    assert.equal(recorded.node, node);
    assert.equal(Number(genesis.timestamp), recorded.genesisTimestampS);
    assert.equal(BigInt(genesis.gasLimit), 60_000_000n);
    const accounts = (await rpc.call<string[]>("eth_accounts")).map((a) => a.toLowerCase());
    assert.equal(accounts.length, 20);
    HARDHAT_DEV_PRIVATE_KEYS.forEach((k, i) =>
      assert.equal(accounts[i], privateKeyToAccount(k).address.toLowerCase(), `account #${i}`),
    );
    assert.equal(BigInt(await rpc.call<string>("eth_getBalance", [accounts[19], "latest"])), 10_000n * 10n ** 18n);

    const raw = await sender.signTransaction({
      chainId: CHAIN_ID,
      type: "eip1559",
      to: WALLET,
      value: 5n,
      gas: 50_000n,
      nonce: 0,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
    });
    const answer = await new Promise<{ id: number; result?: unknown }[]>((resolve, reject) => {
      const ws = new WebSocket(chain.wsUrl);
      ws.on("open", () =>
        ws.send(
          JSON.stringify([
            { jsonrpc: "2.0", id: 1, method: "eth_sendRawTransaction", params: [raw] },
            { jsonrpc: "2.0", id: 2, method: "eth_getTransactionReceipt", params: [keccak256(raw)] },
          ]),
        ),
      );
      ws.on("message", (m) => {
        resolve(JSON.parse(m.toString()));
        ws.close();
      });
      ws.on("error", reject);
    });
    assert.equal(answer[0].result, keccak256(raw));
    const receipt = answer[1].result as { status: string; blockNumber: string } | null;
    assert.ok(receipt, "the receipt is there in the same batch (the block exists when the send answers)");
    assert.equal(receipt.status, "0x1");
    assert.equal(Number(receipt.blockNumber), 1, "one block per transaction");
  });

  test(`${node}: a settle that reverts is fatal and names the contract's error; a used nonce is retryable`, async (t) => {
    const { chain, rpc } = await chainFor(t, node, "compat-revert-");
    const settle = createSettleSender({
      rpcUrl: chain.rpcUrl,
      chainId: CHAIN_ID,
      settlement: REVERTER,
      operatorKey: OPERATOR_KEY,
    });
    t.after(() => settle.close?.());
    const data = encodeErrorResult({
      abi: settlementAbi,
      errorName: "SettlementContractSignatureInvalid",
      args: [WALLET],
    } as never) as Hex;
    await rpc.call("hardhat_setCode", [REVERTER, revertingCode(data)]);
    await rpc.call("evm_mine"); // the code is in a mined block: the sender's replay runs at the block before the revert

    const failed = await settle.send(1n, ARGS).then(
      () => assert.fail("the settle must fail"),
      (e: unknown) => e,
    );
    assert.ok(failed instanceof FatalChainError, `fatal, got ${String(failed)}`);
    assert.equal(failed.revertName, "SettlementContractSignatureInvalid");
    assert.deepEqual(failed.revertArgs, [WALLET]);
    const blocks = Number(await rpc.call<string>("eth_blockNumber"));
    assert.equal(blocks, 2, "the reverted transaction was mined (evm_mine's block, then the revert's)");

    // a nonce already used (another sender of the same key was first): each node's own refusal, as viem
    // reports it, is retryable
    const operator = privateKeyToAccount(OPERATOR_KEY);
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    const nonce = Number(await rpc.call<string>("eth_getTransactionCount", [operator.address, "latest"]));
    assert.ok(nonce >= 1, "the reverted settle used a nonce");
    const stale = await operator.signTransaction({
      chainId: CHAIN_ID,
      type: "legacy",
      to: WALLET,
      value: 1n,
      gas: 30_000n,
      gasPrice: 10_000_000_000n,
      nonce: nonce - 1,
    });
    const refused = await client.sendRawTransaction({ serializedTransaction: stale }).then(
      () => assert.fail("a used nonce must be refused"),
      (e: unknown) => e,
    );
    const c = classifySettleError(refused);
    assert.ok(c instanceof RetryableChainError, `retryable, got ${String(c)}`);
    assert.match(c.message, /nonce/i);
  });

  test(`${node}: the gas price suggestion is the base fee + 1 gwei, whatever recent blocks paid (the settle sender pays 1.5 x it)`, async (t) => {
    const { rpc } = await chainFor(t, node, "compat-gas-");
    const gwei = 1_000_000_000n;
    assert.equal(BigInt(await rpc.call<string>("eth_maxPriorityFeePerGas")), gwei);
    for (let i = 0; i < 8; i++) {
      const price = BigInt(await rpc.call<string>("eth_gasPrice"));
      const latest = await rpc.call<{ baseFeePerGas: string }>("eth_getBlockByNumber", ["latest", false]);
      // (Hardhat answers the next block's base fee + 1 gwei: within one block's change of the latest's)
      assert.ok(
        price >= gwei && price <= (BigInt(latest.baseFeePerGas) * 9n) / 8n + gwei,
        `block ${i}: ${price} against base ${BigInt(latest.baseFeePerGas)}`,
      );
      const raw = await sender.signTransaction({
        chainId: CHAIN_ID,
        type: "legacy",
        to: WALLET,
        value: 1n,
        gas: 21_000n,
        gasPrice: (price * 3n) / 2n,
        nonce: i,
      });
      await rpc.call("eth_sendRawTransaction", [raw]);
    }
    // and in a batch beside other calls, as viem's batching transports send it
    const batch = await sendBatch<{ id: number; result: string }>(rpc, [
      ["eth_chainId", []],
      ["eth_gasPrice", []],
    ]);
    assert.deepEqual(
      batch.map((r) => r.id),
      [1, 2],
    );
    assert.ok(BigInt(batch[1].result) < 2n * gwei, `gas price ${BigInt(batch[1].result)} after 8 blocks paid at 1.5 x`);
  });
}
