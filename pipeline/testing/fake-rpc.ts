// An in-process JSON-RPC chain for the settle sender's unit tests: HTTP and WebSocket on one port, the
// methods the sender uses (eth_chainId, eth_getTransactionCount, eth_gasPrice, eth_getBlockByNumber, eth_blockNumber, eth_call,
// eth_sendRawTransaction, eth_getTransactionReceipt, eth_getTransactionByHash), and knobs for what a real
// node does on a bad day: refuse a transaction ("nonce too low"), revert it, lose its receipt, answer in
// pieces or with garbage, drop the connection, hold the answer, fail a read. Raw transactions are decoded
// (viem parseTransaction) so that tests check the nonce, gas, gas price and calldata the sender signed.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  decodeFunctionData,
  encodeFunctionResult,
  keccak256,
  numberToHex,
  parseTransaction,
  recoverTransactionAddress,
  type Abi,
  type Address,
  type Hex,
  type AccessList,
  type TransactionSerialized,
} from "viem";
import { WebSocketServer, type WebSocket } from "ws";
import { settlementAbi } from "../../sdk/abi";

export interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

/** One raw transaction as the fake chain received it. */
export interface SentTx {
  raw: Hex;
  hash: Hex;
  from: Address;
  to: Address;
  nonce: number;
  gas: bigint;
  gasPrice: bigint;
  chainId: number;
  data: Hex;
  accessList: AccessList;
  /** the decoded settlePacked arguments (batch id, packed batch) */
  batchId: bigint;
  packed: Hex;
}

/** What happens to one eth_sendRawTransaction. */
export interface SendPlan {
  /** the chain mines it ("success"), mines it reverted ("reverted"), or refuses it with a JSON-RPC error */
  result?: "success" | "reverted" | { error: RpcErrorBody };
  /** mined, but the batch answer carries a null receipt (HTTP has it) */
  loseReceipt?: boolean;
  /** how the answer travels back: one batch message (default), one message per item, a garbage message and
   *  an answer for an unknown id first, nothing at all ("hold"), or the connection closed ("drop") */
  answer?: "batch" | "separate" | "garbage-first" | "hold" | "drop";
}

/** An eth_call as the fake chain received it. */
export interface CallRecord {
  from?: Address;
  to: Address;
  data: Hex;
  gas?: bigint;
  block: string;
}

export interface FakeRpc {
  url: string;
  wsUrl: string;
  chainId: number;
  /** the operator's next nonce, the gas price, Settlement's nextBatchId, the chain head */
  state: {
    nonce: number;
    gasPrice: bigint;
    nextBatchId: bigint;
    blockNumber: bigint /** null: a chain without a base fee (pre-London) */;
    baseFeePerGas: bigint | null;
  };
  sent: SentTx[];
  calls: CallRecord[];
  /** every request: method, params and transport */
  requests: { method: string; params: unknown[]; via: "http" | "ws" }[];
  count(method: string, via?: "http" | "ws"): number;
  /** WebSocket connections accepted so far */
  connections(): number;
  /** decides each send's fate (default: mined, answered in one batch message) */
  onSend?: (tx: SentTx) => SendPlan | undefined;
  /** answers an eth_call (undefined: the default, nextBatchId or a successful settle) */
  onCall?: (call: CallRecord) => { result: Hex } | { error: RpcErrorBody } | undefined;
  /** a JSON-RPC error for every HTTP request of these methods */
  httpErrors: Map<string, RpcErrorBody>;
  /** WebSocket upgrades to refuse (HTTP 503) before accepting again */
  refuseConnections: number;
  /** closes every open WebSocket from the server side */
  dropConnections(): void;
  /** answers every held send now (as a batch message) */
  releaseHeld(): void;
  close(): Promise<void>;
}

type RpcRequest = { jsonrpc: "2.0"; id: number; method: string; params?: unknown[] };
type RpcAnswer = { jsonrpc: "2.0"; id: number; result?: unknown; error?: RpcErrorBody };

const abi = settlementAbi as Abi;

export async function startFakeRpc(
  opts: { chainId?: number; gasPrice?: bigint; nonce?: number; nextBatchId?: bigint } = {},
): Promise<FakeRpc> {
  const chainId = opts.chainId ?? 31337;
  const receipts = new Map<Hex, Record<string, unknown>>();
  const txs = new Map<Hex, SentTx & { blockNumber: bigint }>();
  const sockets = new Set<WebSocket>();
  const held: { ws: WebSocket; answers: RpcAnswer[] }[] = [];
  let accepted = 0;

  const fake: FakeRpc = {
    url: "",
    wsUrl: "",
    chainId,
    state: {
      nonce: opts.nonce ?? 0,
      gasPrice: opts.gasPrice ?? 1_000_000_000n,
      nextBatchId: opts.nextBatchId ?? 0n,
      blockNumber: 100n,
      baseFeePerGas: null,
    },
    sent: [],
    calls: [],
    requests: [],
    count: (method, via) =>
      fake.requests.filter((r) => r.method === method && (via === undefined || r.via === via)).length,
    connections: () => accepted,
    httpErrors: new Map(),
    refuseConnections: 0,
    dropConnections() {
      for (const ws of sockets) ws.terminate();
    },
    releaseHeld() {
      for (const h of held.splice(0)) h.ws.send(JSON.stringify(h.answers));
    },
    async close() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };

  const ok = (id: number, result: unknown): RpcAnswer => ({ jsonrpc: "2.0", id, result });
  const fail = (id: number, error: RpcErrorBody): RpcAnswer => ({ jsonrpc: "2.0", id, error });

  async function receive(raw: Hex): Promise<{ tx: SentTx; plan: SendPlan }> {
    const p = parseTransaction(raw as TransactionSerialized);
    const from = await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized });
    const call = decodeFunctionData({ abi, data: p.data! });
    const [batchId, packed] = call.args as [bigint, Hex];
    const tx: SentTx = {
      raw,
      hash: keccak256(raw),
      from,
      to: p.to!,
      nonce: p.nonce!,
      gas: p.gas!,
      gasPrice: p.gasPrice!,
      chainId: p.chainId!,
      data: p.data!,
      accessList: "accessList" in p ? (p.accessList ?? []) : [],
      batchId,
      packed,
    };
    fake.sent.push(tx);
    return { tx, plan: fake.onSend?.(tx) ?? {} };
  }

  /** Mines `tx` (status 1 or 0) and keeps its receipt. */
  function mine(tx: SentTx, success: boolean): void {
    fake.state.nonce += 1;
    fake.state.blockNumber += 1n;
    const blockNumber = fake.state.blockNumber;
    txs.set(tx.hash, { ...tx, blockNumber });
    receipts.set(tx.hash, {
      transactionHash: tx.hash,
      transactionIndex: "0x0",
      blockHash: keccak256(numberToHex(blockNumber, { size: 32 })),
      blockNumber: numberToHex(blockNumber),
      from: tx.from,
      to: tx.to,
      cumulativeGasUsed: numberToHex(100_000n + BigInt(tx.nonce)),
      gasUsed: numberToHex(100_000n + BigInt(tx.nonce)),
      effectiveGasPrice: numberToHex(tx.gasPrice),
      contractAddress: null,
      logs: [],
      logsBloom: `0x${"00".repeat(256)}`,
      status: success ? "0x1" : "0x0",
      type: "0x0",
    });
  }

  function answerCall(id: number, params: unknown[]): RpcAnswer {
    const [c, block] = params as [
      { from?: Address; to: Address; data?: Hex; input?: Hex; gas?: Hex },
      string | undefined,
    ];
    const rec: CallRecord = {
      from: c.from,
      to: c.to,
      data: (c.data ?? c.input)!,
      gas: c.gas === undefined ? undefined : BigInt(c.gas),
      block: block ?? "latest",
    };
    fake.calls.push(rec);
    const custom = fake.onCall?.(rec);
    if (custom) return "error" in custom ? fail(id, custom.error) : ok(id, custom.result);
    const fn = decodeFunctionData({ abi, data: rec.data });
    if (fn.functionName === "nextBatchId")
      return ok(id, encodeFunctionResult({ abi, functionName: "nextBatchId", result: fake.state.nextBatchId }));
    return ok(id, "0x");
  }

  /** Answers one request; a send's plan is returned for the transport to act on. */
  async function answer(
    req: RpcRequest,
    via: "http" | "ws",
    lostReceipts: Set<Hex>,
  ): Promise<{ answer: RpcAnswer; plan?: SendPlan }> {
    fake.requests.push({ method: req.method, params: req.params ?? [], via });
    const params = req.params ?? [];
    const id = req.id;
    const httpError = via === "http" ? fake.httpErrors.get(req.method) : undefined;
    if (httpError) return { answer: fail(id, httpError) };
    switch (req.method) {
      case "eth_chainId":
        return { answer: ok(id, numberToHex(chainId)) };
      case "eth_blockNumber":
        return { answer: ok(id, numberToHex(fake.state.blockNumber)) };
      case "eth_gasPrice":
        return { answer: ok(id, numberToHex(fake.state.gasPrice)) };
      case "eth_getBlockByNumber": {
        const n = fake.state.blockNumber;
        const block: Record<string, unknown> = {
          number: numberToHex(n),
          hash: `0x${n.toString(16).padStart(64, "0")}`,
          parentHash: `0x${"00".repeat(32)}`,
          timestamp: numberToHex(1_700_000_000n + n),
          gasLimit: numberToHex(30_000_000n),
          gasUsed: "0x0",
          miner: `0x${"00".repeat(20)}`,
          extraData: "0x",
          transactions: [],
          uncles: [],
        };
        if (fake.state.baseFeePerGas !== null) block.baseFeePerGas = numberToHex(fake.state.baseFeePerGas);
        return { answer: ok(id, block) };
      }
      case "eth_getTransactionCount":
        return { answer: ok(id, numberToHex(fake.state.nonce)) };
      case "eth_call":
        return { answer: answerCall(id, params) };
      case "eth_sendRawTransaction": {
        const { tx, plan } = await receive(params[0] as Hex);
        const result = plan.result ?? "success";
        if (typeof result === "object") return { answer: fail(id, result.error), plan };
        if (tx.nonce < fake.state.nonce)
          return {
            answer: fail(id, {
              code: -32000,
              message: `nonce too low: next nonce ${fake.state.nonce}, tx nonce ${tx.nonce}`,
            }),
            plan,
          };
        if (tx.nonce > fake.state.nonce)
          return {
            answer: fail(id, {
              code: -32000,
              message: `nonce too high: next nonce ${fake.state.nonce}, tx nonce ${tx.nonce}`,
            }),
            plan,
          };
        mine(tx, result === "success");
        if (plan.loseReceipt) lostReceipts.add(tx.hash);
        return { answer: ok(id, tx.hash), plan };
      }
      case "eth_getTransactionReceipt": {
        const hash = params[0] as Hex;
        return { answer: ok(id, lostReceipts.has(hash) ? null : (receipts.get(hash) ?? null)) };
      }
      case "eth_getTransactionByHash": {
        const t = txs.get(params[0] as Hex);
        if (!t) return { answer: ok(id, null) };
        const r = receipts.get(t.hash)!;
        return {
          answer: ok(id, {
            hash: t.hash,
            nonce: numberToHex(t.nonce),
            blockHash: r.blockHash,
            blockNumber: r.blockNumber,
            transactionIndex: "0x0",
            from: t.from,
            to: t.to,
            value: "0x0",
            gas: numberToHex(t.gas),
            gasPrice: numberToHex(t.gasPrice),
            input: t.data,
            type: "0x0",
            chainId: numberToHex(chainId),
            v: "0x1b",
            r: `0x${"11".repeat(32)}`,
            s: `0x${"22".repeat(32)}`,
          }),
        };
      }
      default:
        return { answer: fail(id, { code: -32601, message: `method ${req.method} not supported` }) };
    }
  }

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString()) as RpcRequest | RpcRequest[];
    const items = Array.isArray(body) ? body : [body];
    const out: RpcAnswer[] = [];
    for (const item of items) out.push((await answer(item, "http", new Set())).answer);
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(Array.isArray(body) ? out : out[0]));
  }

  async function handleWs(ws: WebSocket, data: string): Promise<void> {
    const body = JSON.parse(data) as RpcRequest | RpcRequest[];
    const items = Array.isArray(body) ? body : [body];
    const lost = new Set<Hex>();
    const out: RpcAnswer[] = [];
    let plan: SendPlan = {};
    for (const item of items) {
      const a = await answer(item, "ws", lost);
      if (a.plan) plan = a.plan;
      out.push(a.answer);
    }
    switch (plan.answer ?? "batch") {
      case "drop":
        ws.terminate();
        return;
      case "hold":
        held.push({ ws, answers: out });
        return;
      case "separate":
        for (const a of out) ws.send(JSON.stringify(a));
        return;
      case "garbage-first":
        ws.send("this is not JSON");
        ws.send(JSON.stringify([{ jsonrpc: "2.0", id: 987_654_321, result: "0x" }]));
        ws.send(JSON.stringify(out));
        return;
      case "batch":
        ws.send(JSON.stringify(Array.isArray(body) ? out : out[0]));
    }
  }

  const server = createServer((req, res) => {
    handleHttp(req, res).catch((e: unknown) => {
      res.statusCode = 500;
      res.end(String(e));
    });
  });
  const wss = new WebSocketServer({
    server,
    verifyClient: (_info, done) => {
      if (fake.refuseConnections > 0) {
        fake.refuseConnections -= 1;
        done(false, 503);
      } else done(true);
    },
  });
  wss.on("connection", (ws) => {
    accepted += 1;
    sockets.add(ws);
    ws.on("close", () => sockets.delete(ws));
    // one message at a time, in arrival order (a node runs a connection's requests in order)
    let tail: Promise<void> = Promise.resolve();
    ws.on("message", (data) => {
      tail = tail.then(() => handleWs(ws, data.toString())).catch(() => undefined);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  fake.url = `http://127.0.0.1:${port}`;
  fake.wsUrl = `ws://127.0.0.1:${port}`;
  return fake;
}
