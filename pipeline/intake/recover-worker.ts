// Child-process entry of the recover pool: recovers a batch of signers and answers with their addresses.
// Exits when its parent does (the stdin pipe closes) or when the IPC channel goes away.
import type { Hex } from "viem";
import { recoverSigner } from "./recover";

process.on("message", (m: { id: number; digests: Hex[]; signatures: Hex[] }) => {
  process.send!({ id: m.id, signers: m.digests.map((d, i) => recoverSigner(d, m.signatures[i])) });
});
process.on("disconnect", () => process.exit(0));
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
process.stdin.resume();
