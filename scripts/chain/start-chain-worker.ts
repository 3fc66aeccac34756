// startChain on a worker thread. The proxy in front of each node journals every state-changing call and
// relays every read; on the main thread its callbacks queue behind whatever else that thread runs (order
// intake, matching, the bench's clients), and each settle batch crosses it four times. On its own thread
// it answers at once (docs/decisions.md, "Pipeline throughput"). Same options and handle as startChain.
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { RunningChain, StartChainOptions } from "./start-chain";

type Ready = Omit<RunningChain, "stop">;

export function startChainInWorker(options: StartChainOptions): Promise<RunningChain> {
  // The entry is TypeScript: the worker registers tsx's CommonJS loader itself (a worker does not inherit
  // the loader hooks of the `tsx` CLI that started the main thread).
  const entry = path.join(__dirname, "chain-worker.ts");
  const worker = new Worker(`require("tsx/cjs"); require(${JSON.stringify(entry)});`, { eval: true, workerData: options, execArgv: [] });
  let stopping: Promise<void> | undefined;
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  return new Promise<RunningChain>((resolve, reject) => {
    let settled = false;
    worker.on("error", (e) => {
      if (!settled) {
        settled = true;
        reject(e);
      }
    });
    void exited.then(() => {
      if (!settled) {
        settled = true;
        reject(new Error(`chain ${options.chainId}: its worker thread exited before the chain was up`));
      }
    });
    worker.once("message", (m: { ready?: Ready; error?: { name: string; message: string; stack?: string } }) => {
      settled = true;
      if (m.error) {
        const e = new Error(m.error.message);
        e.name = m.error.name;
        e.stack = m.error.stack;
        void worker.terminate();
        reject(e);
        return;
      }
      const stop = (): Promise<void> => {
        stopping ??= (async () => {
          const done = new Promise<void>((r) => worker.once("message", () => r()));
          worker.postMessage("stop");
          await Promise.race([done, exited]);
          await worker.terminate();
        })();
        return stopping;
      };
      resolve({ ...m.ready!, stop });
    });
  });
}
