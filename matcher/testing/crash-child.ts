// Child process of the crash test: recovers the journal in `dir`, then submits the stream from where
// the journal ends, up to `total` commands, in bursts so that group commit batches them. Prints
// "ready <count>" and then "ack <index> <sha256 of the events>" for every acknowledged command.
import { createHash } from "node:crypto";
import { createJournaledEngine } from "../journal/journaled-engine";
import { CRASH_MARKETS, commandAt } from "./crash-commands";

async function main() {
  const [dir, seedArg, totalArg] = process.argv.slice(2);
  const seed = Number(seedArg);
  const total = Number(totalArg);
  const j = await createJournaledEngine({ dir, markets: CRASH_MARKETS, snapshotEvery: 250 });
  // stdout on a pipe is synchronous on Linux: a printed ack has left the process before the next line runs.
  process.stdout.write(`ready ${j.commandCount}\n`);
  let next = j.commandCount;
  while (next < total) {
    const burst: Promise<void>[] = [];
    const size = 1 + ((next * 7) % 32);
    for (let k = 0; k < size && next < total; k++) {
      const index = next++;
      burst.push(
        j.submit(commandAt(seed, index)).then((events) => {
          process.stdout.write(`ack ${index} ${createHash("sha256").update(JSON.stringify(events)).digest("hex")}\n`);
        }),
      );
    }
    await Promise.all(burst);
  }
  await j.close();
  process.stdout.write("done\n");
}

void main();
