// The one WebSocket the settle sends travel on, in call order (so they reach the chain in nonce order;
// HTTP requests on separate connections could overtake each other). Each send is eth_sendRawTransaction
// + eth_getTransactionReceipt of its hash in ONE JSON-RPC batch message: the chain proxy runs a batch's
// items in order and Hardhat automines, so the receipt exists by the time the second item runs.
import { formatTransactionReceipt, RpcRequestError, type Hex } from "viem";
import { WebSocket } from "ws";

type Rpc = {
  id: number;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

type Waiter = { resolve: (r: Rpc[]) => void; reject: (e: Error) => void };

/** The receipt of a send once its batch answer is in: null when the node had none yet (poll for it); a
 *  refused send throws viem's RpcRequestError (with the revert data when the node gives it). */
export type SendAnswer = () => Promise<ReturnType<typeof formatTransactionReceipt> | null>;

export class SettleSocket {
  private socket: WebSocket | undefined;
  private opening: Promise<WebSocket> | undefined;
  /** send rpc id -> the waiter of its batch answer */
  private readonly pending = new Map<number, Waiter>();
  private nextRpcId = 1;

  /** `onBroken`: the connection closed with sends in flight (nothing more may be sent until a reset). */
  constructor(
    readonly url: string,
    private readonly onBroken: (reason: string) => void,
  ) {}

  /** The open socket (opened on first use, again after a close); a failure to open is a "socket hang up". */
  connect(): Promise<WebSocket> {
    if (this.socket?.readyState === WebSocket.OPEN) return Promise.resolve(this.socket);
    this.opening ??= new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(this.url);
      ws.once("open", () => {
        this.socket = ws;
        this.opening = undefined;
        resolve(ws);
      });
      ws.once("error", (e) => {
        this.opening = undefined;
        reject(new Error(`socket hang up: ${e.message}`));
      });
      ws.on("message", (data) => this.onAnswer(data.toString()));
      ws.on("close", () => {
        if (this.socket === ws) this.socket = undefined;
        if (this.pending.size > 0) this.onBroken("the connection closed with sends in flight");
        this.rejectAll("socket hang up");
      });
    });
    return this.opening;
  }

  private onAnswer(text: string): void {
    let answer: Rpc[];
    try {
      const parsed = JSON.parse(text) as Rpc | Rpc[];
      answer = Array.isArray(parsed) ? parsed : [parsed];
    } catch {
      return;
    }
    for (const item of answer) {
      const waiter = this.pending.get(item.id);
      if (waiter) {
        this.pending.delete(item.id);
        waiter.resolve(answer);
      }
    }
  }

  /** Sends the raw transaction and asks for its receipt in one batch message (the answer waits 30 s at most). */
  sendWithReceipt(ws: WebSocket, raw: Hex, txHash: Hex): SendAnswer {
    const id = this.nextRpcId;
    this.nextRpcId += 2;
    const body = [
      { jsonrpc: "2.0", id, method: "eth_sendRawTransaction", params: [raw] },
      {
        jsonrpc: "2.0",
        id: id + 1,
        method: "eth_getTransactionReceipt",
        params: [txHash],
      },
    ];
    const answer = new Promise<Rpc[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const timer = setTimeout(() => {
        if (this.pending.delete(id)) reject(new Error("timed out waiting for the send's answer"));
      }, 30_000);
      timer.unref();
    });
    ws.send(JSON.stringify(body));
    return async () => {
      const out = await answer;
      const sent = out.find((r) => r.id === id);
      const rec = out.find((r) => r.id === id + 1);
      if (!sent) throw new Error("HTTP request failed: no answer to eth_sendRawTransaction");
      if (sent.error) {
        const d = sent.error.data as { data?: unknown } | string | undefined;
        const data = typeof d === "string" ? d : typeof d?.data === "string" ? d.data : d;
        throw new RpcRequestError({
          body,
          error: { ...sent.error, data },
          url: this.url,
        });
      }
      if (!rec?.result) return null;
      return formatTransactionReceipt(rec.result as never);
    };
  }

  private rejectAll(reason: string): void {
    for (const w of this.pending.values()) w.reject(new Error(reason));
    this.pending.clear();
  }

  /** Fails every send waiting for its answer and closes the socket. */
  close(): void {
    this.rejectAll("sender closed");
    this.socket?.close();
    this.socket = undefined;
  }
}
