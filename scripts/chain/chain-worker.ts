// Worker-thread entry of startChainInWorker: runs startChain (the node child process, the journalling
// proxy and its recorder, the supervisor) on this thread's own event loop, tells the parent every change
// of the supervisor's status (with the node's pid and URL) and answers the parent's "stop".
import { parentPort, workerData } from "node:worker_threads";
import { startChain, type RunningChain, type StartChainOptions } from "./start-chain";

async function main(): Promise<void> {
  let chain: RunningChain;
  try {
    chain = await startChain(workerData as StartChainOptions);
  } catch (e) {
    const err = e as Error;
    parentPort!.postMessage({ error: { name: err.name, message: err.message, stack: err.stack } });
    return;
  }
  const { chainId, node, rpcUrl, wsUrl, port, nodePid, nodeRpcUrl, restored } = chain;
  parentPort!.postMessage({
    ready: { chainId, node, rpcUrl, wsUrl, port, nodePid, nodeRpcUrl, restored, status: chain.status() },
  });
  chain.onStatus((status) => parentPort!.postMessage({ status, nodePid: chain.nodePid, nodeRpcUrl: chain.nodeRpcUrl }));
  parentPort!.on("message", (m: unknown) => {
    const snap = (m as { snapshot?: number } | null)?.snapshot;
    if (typeof snap === "number") {
      void chain.snapshot().then((file) => parentPort!.postMessage({ snapshotTaken: snap, file }));
      return;
    }
    if (m !== "stop") return;
    chain.stop().then(
      () => parentPort!.postMessage({ stopped: true }),
      (e: unknown) => parentPort!.postMessage({ stopped: true, error: String(e) }),
    );
  });
}

void main();
