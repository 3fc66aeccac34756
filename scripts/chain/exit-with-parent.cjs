// Preloaded (node --require) into every chain child process: when the parent dies, even by SIGKILL, the
// pipe on our stdin closes and we exit too, so `npm start` never leaves an orphan Hardhat node behind.
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
process.stdin.resume();
