// The durable side of the matcher: write-ahead journal, snapshots, recovery.
export { createJournaledEngine, type JournaledEngine, type JournaledEngineOptions, type RecoveryReport } from "./journaled-engine";
