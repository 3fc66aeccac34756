// Signature recovery off the matching thread. Recovery is ~90 us of the ~150 us an order costs the main
// thread; under load, runs of hundreds of recoveries kept that thread busy for 40-200 ms at a time, and
// the batcher's confirmations (what acceptance-to-settlement latency waits for) queued behind them
// (docs/decisions.md, "Pipeline throughput"). The pool's threads recover in parallel with matching.
// Requests made in the same turn of the event loop travel as one message; answers come back in request
// order. If a thread dies, its requests and all later ones are recovered inline (never lost, never wrong).
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { Address, Hex } from "viem";
import { recoverSigner } from "./recover";

export interface RecoverPool {
  recover(digest: Hex, signature: Hex): Promise<Address | null>;
  close(): Promise<void>;
}

interface Waiter {
  digest: Hex;
  signature: Hex;
  resolve(a: Address | null): void;
}

export function createRecoverPool(threads: number): RecoverPool {
  const entry = path.join(__dirname, "recover-worker.ts");
  const workers: { worker: Worker; pending: Map<number, Waiter[]> }[] = [];
  let broken = false;
  let closed = false;
  let queue: Waiter[] = [];
  let scheduled = false;
  let nextId = 1;
  let turn = 0;

  const inline = (ws: Waiter[]) => {
    for (const w of ws) w.resolve(recoverSigner(w.digest, w.signature));
  };

  function start(): void {
    for (let i = 0; i < threads; i++) {
      // TypeScript entry: the thread registers tsx's CommonJS loader itself
      const worker = new Worker(`require("tsx/cjs"); require(${JSON.stringify(entry)});`, { eval: true, execArgv: [] });
      worker.unref(); // never what keeps a process alive
      const slot = { worker, pending: new Map<number, Waiter[]>() };
      worker.on("message", (m: { id: number; signers: (Address | null)[] }) => {
        const ws = slot.pending.get(m.id);
        if (!ws) return;
        slot.pending.delete(m.id);
        ws.forEach((w, i) => w.resolve(m.signers[i]));
      });
      const fail = () => {
        broken = true;
        for (const ws of slot.pending.values()) inline(ws);
        slot.pending.clear();
      };
      worker.on("error", fail);
      worker.on("exit", fail);
      workers.push(slot);
    }
  }

  function flush(): void {
    scheduled = false;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    if (broken || closed) return inline(batch);
    if (workers.length === 0) start();
    const slot = workers[turn++ % workers.length];
    const id = nextId++;
    slot.pending.set(id, batch);
    slot.worker.postMessage({ id, digests: batch.map((w) => w.digest), signatures: batch.map((w) => w.signature) });
  }

  return {
    recover(digest, signature) {
      if (closed || broken) return Promise.resolve(recoverSigner(digest, signature));
      return new Promise((resolve) => {
        queue.push({ digest, signature, resolve });
        if (!scheduled) {
          scheduled = true;
          queueMicrotask(flush);
        }
      });
    },
    async close() {
      closed = true;
      for (const { worker, pending } of workers) {
        for (const ws of pending.values()) inline(ws);
        pending.clear();
        worker.removeAllListeners("exit");
        await worker.terminate();
      }
      workers.length = 0;
    },
  };
}
