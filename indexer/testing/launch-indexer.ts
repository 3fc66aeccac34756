// A launcher of the indexer in its own process, for the crash tests: starts it with the options given as
// JSON in argv[2] (its log lines to the file argv[3]), prints one line `ready <url> <ponderUrl> <ponderPid>`, and runs until it is killed (a
// SIGKILL of this process orphans Ponder, as a killed `npm start` does).
import { appendFileSync } from "node:fs";
import { startIndexer, type StartIndexerOptions } from "../run";

const options = JSON.parse(process.argv[2]!) as StartIndexerOptions;
// argv[3]: a file that receives Ponder's lines at warn and above, and every line that is not JSON (PGlite's)
const logFile = process.argv[3];
if (logFile) options.onLog = (line) => appendFileSync(logFile, `${line}\n`);
startIndexer(options).then(
  (indexer) => {
    process.stdout.write(`ready ${indexer.url} ${indexer.ponderUrl} ${indexer.pid}\n`);
    setInterval(() => undefined, 1 << 30);
  },
  (e: unknown) => {
    process.stderr.write(`${String(e)}\n`);
    process.exit(1);
  },
);
