// Worker-thread entry of the recover pool: recovers a batch of signers and answers with their addresses.
import { parentPort } from "node:worker_threads";
import type { Hex } from "viem";
import { recoverSigner } from "./recover";

parentPort!.on("message", (m: { id: number; digests: Hex[]; signatures: Hex[] }) => {
  parentPort!.postMessage({ id: m.id, signers: m.digests.map((d, i) => recoverSigner(d, m.signatures[i])) });
});
