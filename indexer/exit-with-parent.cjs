// Preloaded (node --require) into the Ponder child that run.ts spawns (and the tests' Hardhat nodes): when the parent dies, even by
// SIGKILL, the pipe on our stdin closes; we then shut Ponder down as if stopped (SIGTERM, so it unlocks
// its schema) and exit for good after 10 s. No orphan indexer is ever left behind.
function parentGone() {
  process.kill(process.pid, "SIGTERM");
  setTimeout(() => process.exit(0), 10_000).unref();
}
process.stdin.on("end", parentGone);
process.stdin.on("error", parentGone);
process.stdin.resume();
