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

/** The p-th percentile (0 < p <= 100) of ascending `sorted`: the nearest-rank sample. */
export const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
