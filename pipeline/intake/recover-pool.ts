// Signature recovery off the matching thread. Recovery is ~90 us of the ~150 us an order costs the main
// thread; under load, runs of hundreds of recoveries kept that thread busy for 40-200 ms at a time, and
// the batcher's confirmations (what acceptance-to-settlement latency waits for) queued behind them
// (docs/decisions.md, "Pipeline throughput"). The pool's threads recover in parallel with matching.
// Requests made in the same turn of the event loop travel as one message; answers come back in request
// order. If a helper dies, its requests and all later ones are recovered inline (never lost, never wrong).
// The helpers are child processes, not worker threads: the native secp256k1 addon keeps a process-wide
// static constructor reference, and loading it in a second thread corrupted the heap at exit
// ("free(): invalid next size" in the e2e tests).
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
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

interface Slot {
  worker: ChildProcess;
  pending: Map<number, Waiter[]>;
}

/** Whether the helper keeps this process alive: only while an answer is owed. */
function hold(child: ChildProcess, on: boolean): void {
  const channel = (child as unknown as { channel?: { ref(): void; unref(): void } }).channel;
  if (on) {
    child.ref();
    channel?.ref();
  } else {
    child.unref();
    channel?.unref();
  }
}

function inline(ws: Waiter[]): void {
  for (const w of ws) w.resolve(recoverSigner(w.digest, w.signature));
}

/** One helper process; `failed` runs once it errs or exits, after its owed requests were recovered inline. */
function spawnSlot(entry: string, failed: () => boolean): Slot {
  // TypeScript entry through tsx's loader; stdin is a pipe only so that the helper exits with us
  const worker = fork(entry, [], { execArgv: ["--import", "tsx"], stdio: ["pipe", "inherit", "inherit", "ipc"] });
  hold(worker, false); // idle: never what keeps a process alive
  const slot: Slot = { worker, pending: new Map<number, Waiter[]>() };
  worker.on("message", (m: { id: number; signers: (Address | null)[] }) => {
    const ws = slot.pending.get(m.id);
    if (!ws) return;
    slot.pending.delete(m.id);
    if (slot.pending.size === 0) hold(worker, false);
    ws.forEach((w, i) => w.resolve(m.signers[i]));
  });
  const fail = () => {
    if (!failed()) return;
    for (const ws of slot.pending.values()) inline(ws);
    slot.pending.clear();
  };
  worker.on("error", fail);
  worker.on("exit", fail);
  return slot;
}

export function createRecoverPool(threads: number): RecoverPool {
  const entry = path.join(__dirname, "recover-worker.ts");
  const workers: Slot[] = [];
  let broken = false;
  let closed = false;
  let queue: Waiter[] = [];
  let scheduled = false;
  let nextId = 1;
  let turn = 0;

  /** the first failure breaks the pool: it and every later request are recovered inline */
  const breaks = () => {
    if (broken) return false;
    broken = true;
    return true;
  };
  const start = () => {
    for (let i = 0; i < threads; i++) workers.push(spawnSlot(entry, breaks));
  };

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
    hold(slot.worker, true); // an answer is owed: keep the process up for it
    slot.worker.send({ id, digests: batch.map((w) => w.digest), signatures: batch.map((w) => w.signature) });
  }

  // the helpers boot now (tsx in each takes ~0.5 s on a loaded machine), while the caller's start goes on:
  // the first order after a restart does not wait for them; idle, they keep nothing alive
  start();

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
        worker.kill();
      }
      workers.length = 0;
    },
  };
}
