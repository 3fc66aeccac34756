// The entry of a bench run as a script: prints the machine's load average, then the figures, and exits
// non-zero when the run failed (its check) or threw.
import os from "node:os";

export function runBenchMain<F>(bench: () => Promise<F>, format: (f: F) => string, passed: (f: F) => boolean): void {
  bench().then(
    (f) => {
      const load = os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(" ");
      console.log(`load average ${load} on ${os.cpus().length} cores`);
      console.log(format(f));
      process.exit(passed(f) ? 0 : 1);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
