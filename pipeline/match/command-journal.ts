// The engine behind a write-ahead journal whose records carry, beside each command, the signed order it
// places (so that after a crash the batcher still has every signature it needs). Commands apply to the
// in-memory engine synchronously and in order; `durable` resolves once the record (and every record before
// it) is fsynced: only then are the command's effects acknowledged or its trades settled.
// Replay applies the same commands to a fresh engine: the engine is deterministic (time is in the command),
// so the book and the event sequence (trade seqs included) come back identical.
import { join } from "node:path";
import { MatchingEngine } from "../../matcher/core/engine";
import type { Command, EngineEvent, MarketConfig } from "../../matcher/core/types";
import { openDurableLog, type DurableLog } from "./durable-log";
import type { OrderJson } from "../order";

export interface JournalMeta {
  /** the signed order a place command carries */
  order?: OrderJson;
  signature?: `0x${string}`;
  /** extra facts the service needs on replay (e.g. the agent that signed, a cancel's reason) */
  signer?: string;
  reason?: string;
  /** intent fields the API gave (client order id, api key id, ...) */
  info?: Record<string, unknown>;
}

export interface JournalRecord {
  cmd: Command;
  meta?: JournalMeta;
}

export interface CommandJournal {
  readonly engine: MatchingEngine;
  submit(cmd: Command, meta?: JournalMeta): { events: EngineEvent[]; durable: Promise<void> };
  /** Applies every recorded command again (at open), calling `onRecord` with its events. */
  replay(onRecord: (rec: JournalRecord, events: EngineEvent[]) => void): number;
  close(): void;
}

export function openCommandJournal(opts: { dir: string; markets: MarketConfig[]; fsync?: boolean; reserveOrders?: number }): CommandJournal {
  const engine = new MatchingEngine({ markets: opts.markets, reserveOrders: opts.reserveOrders });
  const log: DurableLog<JournalRecord> = openDurableLog<JournalRecord>(join(opts.dir, "commands.jsonl"), { fsync: opts.fsync ?? true });
  let replayed = false;
  return {
    engine,
    replay(onRecord) {
      if (replayed) throw new Error("journal already replayed");
      replayed = true;
      for (const rec of log.records) onRecord(rec, engine.apply(rec.cmd));
      return log.records.length;
    },
    submit(cmd, meta) {
      if (!replayed) throw new Error("replay the journal before submitting");
      const events = engine.apply(cmd);
      const durable = log.append(meta ? { cmd, meta } : { cmd });
      return { events, durable };
    },
    close() {
      log.close();
    },
  };
}
