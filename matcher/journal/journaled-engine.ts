// The engine behind a write-ahead journal (log.ts). submit() applies the command at once (so commands are
// ordered by arrival) and resolves with its events only once the command's record is on disk (group
// commit: one fsync acknowledges a whole batch). A record may carry facts beside the command that its
// owner needs on replay (`meta`: the pipeline's signed order, a cancel's reason...).
// Restart = newest valid snapshot + replay of the journal records after it: the same book and, command
// by command, the same events.
import { MatchingEngine } from "../core/engine";
import { restoreSnapshot, takeSnapshot, type EngineSnapshot } from "../core/snapshot";
import { NULL_SINK } from "../core/collector";
import type { Command, EngineEvent, MarketConfig } from "../core/types";
import { encodeFrame, type JournalRecord } from "./frames";
import { openRecordLog, type LegacyJsonLines, type OpenRecordLog, type RecoveryReport } from "./log";

export type { RecoveryReport } from "./log";

export interface JournaledEngineOptions<M = unknown> {
  dir: string;
  /** Markets to open; markets already in the snapshot keep their stored config. */
  markets: MarketConfig[];
  /** fdatasync each batch before acknowledging it (default true). false only for tests and benchmarks. */
  fsync?: boolean;
  /** Take a snapshot (and start a new segment) after this many commands; 0 = never (default). A snapshot
   *  holds the engine, and the owner's state when `owner` is given: an owner that rebuilds more state from
   *  the records' meta must give `owner` to set it. */
  snapshotEvery?: number;
  /** The owner's state beside the engine, kept in the same snapshot (JSON-safe): `state()` is taken at the
   *  snapshot's command index; `restore()` is called at open, before the replay, with the newest
   *  snapshot's (undefined without one). */
  owner?: { state(): unknown; restore(state: unknown | undefined): void };
  /** Order nodes the engine allocates at start, also when it is restored from a snapshot (EngineOptions.reserveOrders). */
  reserveOrders?: number;
  /** Called at open with the engine (restored or new, its markets added) before the owner's state is
   *  restored and before the replay: what is no part of a snapshot (resale gates) is installed here. */
  onEngine?(engine: MatchingEngine): void;
  /** Called at open for every replayed record with the events it produced (without it, replay discards them). */
  onReplay?(record: JournalRecord<Command, M>, events: EngineEvent[]): void;
  /** A previous version's JSON-lines journal in `dir`, carried into this one once (log.ts). */
  legacy?: LegacyJsonLines<Command, M>;
  /** Opens the record log under the engine (default: the local files of log.ts); a replicated log gives its own. */
  openLog?: OpenRecordLog;
}

export interface JournaledEngine<M = unknown> {
  /** Read access (depth, orders). Commands must go through submit() or apply(). */
  readonly engine: MatchingEngine;
  /** Commands applied so far (acknowledged or still waiting for their fsync). */
  readonly commandCount: number;
  readonly recovery: RecoveryReport;
  /** How long the record log's write on its way has waited (RecordLog.stalledMs; 0 for a log that never stalls). */
  stalledMs(): number;
  /** Applies the command now; resolves with its events once it is durable. */
  submit(cmd: Command, meta?: M): Promise<EngineEvent[]>;
  /** Applies the command now and returns its events at once; `durable` resolves once its record (and
   *  every record before it) is on disk. Throws, applying nothing, when the command cannot be journaled;
   *  applies nothing either when the journal is closed or failed (`durable` rejects). */
  apply(cmd: Command, meta?: M): { events: EngineEvent[]; durable: Promise<void> };
  /** Writes a snapshot at the current command index and starts a new journal segment. */
  snapshot(): Promise<void>;
  /** Waits for every pending write, then closes the journal. */
  close(): Promise<void>;
}

/** Whether JSON reads `cmd` back as a plain copy of itself: own keys only, each a string, a boolean or a
 *  finite number other than -0 (JSON has no undefined, NaN, Infinity or -0; nested values are not looked at). */
function flatJsonExact(cmd: Command): boolean {
  if (Object.getPrototypeOf(cmd) !== Object.prototype) return false;
  const o = cmd as unknown as Record<string, unknown>;
  for (const k in o) {
    if (!Object.hasOwn(o, k)) return false;
    const v = o[k];
    const t = typeof v;
    if (t === "string" || t === "boolean") continue;
    if (t === "number" && Number.isFinite(v) && !Object.is(v, -0)) continue;
    return false;
  }
  return true;
}

export async function createJournaledEngine<M = unknown>(
  options: JournaledEngineOptions<M>,
): Promise<JournaledEngine<M>> {
  let engine!: MatchingEngine;
  const { owner } = options;
  // with an owner, a snapshot is {engine, owner}; without, the engine's snapshot alone (as before)
  type Stored = EngineSnapshot | { engine: EngineSnapshot; owner: unknown };
  const log = await (options.openLog ?? openRecordLog)<Command, M, Stored>({
    dir: options.dir,
    fsync: options.fsync,
    snapshotEvery: options.snapshotEvery,
    legacy: options.legacy,
    restore(snapshot) {
      const stored = snapshot?.state;
      const engineState =
        stored && owner ? (stored as { engine: EngineSnapshot }).engine : (stored as EngineSnapshot | undefined);
      engine = engineState
        ? restoreSnapshot(engineState, { reserveOrders: options.reserveOrders })
        : new MatchingEngine({ markets: [], reserveOrders: options.reserveOrders });
      for (const m of options.markets) if (!engine.markets.has(m.symbol)) engine.addMarket(m);
      options.onEngine?.(engine);
      owner?.restore(stored ? (stored as { owner: unknown }).owner : undefined);
    },
    replay(r) {
      if (options.onReplay) options.onReplay(r, engine.apply(r.c));
      else engine.process(r.c, NULL_SINK);
    },
    state: () => (owner ? { engine: takeSnapshot(engine), owner: owner.state() } : takeSnapshot(engine)),
  });

  /** The command's frame and the command as replay will read it back; throws when JSON cannot carry it. */
  const encode = (cmd: Command, meta?: M): { frame: Buffer; applied: Command } => {
    let frame: Buffer;
    let applied: Command;
    try {
      const c = JSON.stringify(cmd);
      frame = encodeFrame(`{"i":${log.count},"c":${c}${meta === undefined ? "" : `,"m":${JSON.stringify(meta)}`}}`);
      // Apply exactly what replay will read back (JSON drops undefined, turns NaN into null...): a flat
      // command of strings, booleans and finite numbers reads back as its own copy, anything else is parsed.
      applied = flatJsonExact(cmd) ? { ...cmd } : (JSON.parse(c) as Command);
    } catch (err) {
      throw new Error(`command cannot be journaled: ${(err as Error).message}`);
    }
    return { frame, applied };
  };

  const apply = (cmd: Command, meta?: M): { events: EngineEvent[]; durable: Promise<void> } => {
    const refused = log.refusal();
    if (refused) return { events: [], durable: Promise.reject(refused) };
    const { frame, applied } = encode(cmd, meta);
    const events = engine.apply(applied);
    return { events, durable: log.appendFrame(frame) };
  };

  return {
    engine,
    get recovery() {
      return log.recovery;
    },
    get commandCount() {
      return log.count;
    },
    stalledMs: () => log.stalledMs?.() ?? 0,
    apply,
    submit(cmd: Command, meta?: M): Promise<EngineEvent[]> {
      const refused = log.refusal();
      if (refused) return Promise.reject(refused);
      let encoded: { frame: Buffer; applied: Command };
      try {
        encoded = encode(cmd, meta);
      } catch (err) {
        return Promise.reject(err as Error);
      }
      return log.appendFrame(encoded.frame, engine.apply(encoded.applied));
    },
    snapshot: () => log.snapshot(),
    close: () => log.close(),
  };
}
