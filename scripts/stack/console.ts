// `npm start`'s console: on a terminal, short lines for people (`12:03:04 WARN  indexer: message key=value`);
// JSON lines (pino's own) when the output is not a terminal, or with `--json`. `--pretty` forces the short
// lines. Progress of every start step that runs longer than PROGRESS_AFTER_MS. (docs/decisions/stack.md
// "Console".)
import pino, { type Logger } from "pino";

const LEVEL_NAMES: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO ",
  40: "WARN ",
  50: "ERROR",
  60: "FATAL",
};
/** pino's fields that the short line shows in its own way, or not at all */
const SHOWN_APART = new Set(["level", "time", "pid", "hostname", "msg", "component", "surface"]);
const MAX_VALUE_CHARS = 120;

function shortValue(v: unknown): string {
  const text = typeof v === "string" ? v : JSON.stringify(v);
  const one = (text ?? String(v)).replace(/\s+/g, " ");
  return one.length > MAX_VALUE_CHARS ? `${one.slice(0, MAX_VALUE_CHARS - 1)}…` : one;
}

/** One of pino's JSON lines as a short human-readable line (the line itself when it is not JSON). */
export function formatLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = new Date(typeof entry.time === "number" ? entry.time : Date.now()).toTimeString().slice(0, 8);
  const level = LEVEL_NAMES[entry.level as number] ?? String(entry.level);
  const who = entry.component ?? entry.surface;
  const extra = Object.entries(entry)
    .filter(([k, v]) => !SHOWN_APART.has(k) && v !== undefined)
    .map(
      ([k, v]) =>
        `${k}=${shortValue(k === "err" && v && typeof v === "object" && "message" in v ? (v as { message: unknown }).message : v)}`,
    );
  return [time, level, `${who ? `${String(who)}: ` : ""}${String(entry.msg ?? "")}`, ...extra].join(" ").trimEnd();
}

/** The console's logger: short lines on a terminal, JSON otherwise (`json` decides when given). */
export function createConsoleLogger(options: {
  level: string;
  json?: boolean;
  out?: NodeJS.WritableStream & { isTTY?: boolean };
}): Logger {
  const out = options.out ?? process.stdout;
  const json = options.json ?? !out.isTTY;
  if (json) return pino({ level: options.level }, pino.destination({ dest: 1, sync: true }));
  const stream = { write: (line: string) => void out.write(`${formatLine(line.trimEnd())}\n`) };
  return pino({ level: options.level }, stream);
}

/** `--json` / `--pretty` on the command line; undefined: decided by whether stdout is a terminal. */
export function consoleFormatFlag(argv: readonly string[]): boolean | undefined {
  if (argv.includes("--json")) return true;
  if (argv.includes("--pretty")) return false;
  return undefined;
}

export const PROGRESS_AFTER_MS = 2_000;
const PROGRESS_EVERY_MS = 5_000;

/** Start steps' progress: a step still running after PROGRESS_AFTER_MS is announced, then every
 *  PROGRESS_EVERY_MS, and its end is told with its duration; shorter steps say nothing. */
export function stepProgress(logger: Logger): (step: string, event: "begin" | "end", ms?: number) => void {
  const timers = new Map<string, { timer: NodeJS.Timeout; announced: boolean; startedMs: number }>();
  return (step, event, ms) => {
    if (event === "begin") {
      const entry = { timer: undefined as unknown as NodeJS.Timeout, announced: false, startedMs: performance.now() };
      const tick = () => {
        entry.announced = true;
        logger.info(
          { step, elapsedS: Math.round((performance.now() - entry.startedMs) / 1000) },
          `${step}: still under way`,
        );
        entry.timer = setTimeout(tick, PROGRESS_EVERY_MS).unref();
      };
      entry.timer = setTimeout(tick, PROGRESS_AFTER_MS).unref();
      timers.set(step, entry);
      return;
    }
    const entry = timers.get(step);
    if (!entry) return;
    clearTimeout(entry.timer);
    timers.delete(step);
    if (entry.announced) logger.info({ step, ms }, `${step}: done`);
  };
}
