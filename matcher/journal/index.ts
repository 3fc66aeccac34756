// The durable side of the matcher (and of every journal of the venue): write-ahead log, snapshots, recovery.
export { createJournaledEngine, type JournaledEngine, type JournaledEngineOptions } from "./journaled-engine";
export {
  openRecordLog,
  type OpenRecordLog,
  type RecordLog,
  type RecordLogOptions,
  type RecoveryReport,
  type LegacyJsonLines,
} from "./log";
export type { JournalRecord } from "./frames";
