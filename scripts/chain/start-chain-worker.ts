// startChain on a worker thread. The proxy in front of each node journals every state-changing call and
// relays every read; on the main thread its callbacks queue behind whatever else that thread runs (order
// intake, matching, the bench's clients), and each settle batch crosses it four times. On its own thread
// it answers at once (docs/decisions.md, "Pipeline throughput"). Same options and handle as startChain;
// the supervisor's status changes (and the restarted node's pid) arrive as messages.
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { ChainNodeKind } from "./node-process";
import type { ChainRestored, ChainStatus, RunningChain, StartChainOptions } from "./start-chain";

interface Ready {
  chainId: number;
  node: ChainNodeKind;
  rpcUrl: string;
  wsUrl: string;
  port: number;
  nodePid: number;
  nodeRpcUrl: string;
  restored: ChainRestored;
  status: ChainStatus;
}

type WorkerMessage =
  | { ready: Ready }
  | { error: { name: string; message: string; stack?: string } }
  | { status: ChainStatus; nodePid: number; nodeRpcUrl: string }
  | { stopped: true; error?: string }
  | { snapshotTaken: number; file?: string };

export function startChainInWorker(options: StartChainOptions): Promise<RunningChain> {
  // The entry is TypeScript: the worker registers tsx's CommonJS loader itself (a worker does not inherit
  // the loader hooks of the `tsx` CLI that started the main thread).
  const entry = path.join(__dirname, "chain-worker.ts");
  const worker = new Worker(`require("tsx/cjs"); require(${JSON.stringify(entry)});`, {
    eval: true,
    workerData: options,
    execArgv: [],
  });
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
    worker.once("message", (m: WorkerMessage) => {
      settled = true;
      if ("error" in m && !("stopped" in m)) {
        const e = new Error(m.error.message);
        e.name = m.error.name;
        e.stack = m.error.stack;
        void worker.terminate();
        reject(e);
        return;
      }
      resolve(chainOfWorker(worker, (m as { ready: Ready }).ready, exited));
    });
  });
}

/** The running chain's handle on the main thread: its status as the worker reports it, snapshot and stop. */
function chainOfWorker(worker: Worker, ready: Ready, exited: Promise<void>): RunningChain {
  let status = ready.status;
  let nodePid = ready.nodePid;
  let nodeRpcUrl = ready.nodeRpcUrl;
  const listeners = new Set<(s: ChainStatus) => void>();
  worker.on("message", (u: WorkerMessage) => {
    if (!("status" in u)) return;
    status = u.status;
    nodePid = u.nodePid;
    nodeRpcUrl = u.nodeRpcUrl;
    for (const fn of listeners) {
      try {
        fn({ ...status });
      } catch {
        /* the listener's problem */
      }
    }
  });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      const done = new Promise<void>((r) => worker.on("message", (u: WorkerMessage) => "stopped" in u && r()));
      worker.postMessage("stop");
      await Promise.race([done, exited]);
      await worker.terminate();
    })();
    return stopping;
  };
  let nextSnapshot = 1;
  const snapshot = (): Promise<string | undefined> => {
    const id = nextSnapshot++;
    return new Promise((res) => {
      const on = (u: WorkerMessage) => {
        if (!("snapshotTaken" in u) || u.snapshotTaken !== id) return;
        worker.off("message", on);
        res(u.file);
      };
      worker.on("message", on);
      worker.postMessage({ snapshot: id });
    });
  };
  return {
    chainId: ready.chainId,
    node: ready.node,
    snapshot,
    rpcUrl: ready.rpcUrl,
    wsUrl: ready.wsUrl,
    port: ready.port,
    restored: ready.restored,
    get nodePid() {
      return nodePid;
    },
    get nodeRpcUrl() {
      return nodeRpcUrl;
    },
    status: () => ({ ...status }),
    onStatus(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    stop,
  };
}
