// Crash test: a child process applies a command stream through the journal and prints each
// acknowledgement; it is SIGKILLed at random moments, several rounds, each restart recovering
// from the journal. In the end the recovered book must equal the book a fresh engine builds from
// the first N commands of the stream, where N covers every acknowledged command (commands that
// were journaled but not yet acknowledged when the process died are kept: they are in the journal),
// and every acknowledged command's events must equal the fresh engine's events for it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MatchingEngine } from "../core/engine";
import { takeSnapshot } from "../core/snapshot";
import { createJournaledEngine } from "./journaled-engine";
import { CRASH_MARKETS, commandAt } from "../testing/crash-commands";

const SEED = 7;
const TOTAL = 12_000;
const ROUNDS = 5;

/** Kills the child once it has acknowledged `killAfterAcks` commands since it was ready (a random point in
 *  the stream, not in time: the journal got fast enough that a timer fired after the stream had ended). */
function runChild(
  dir: string,
  killAfterAcks: number | undefined,
): Promise<{ acks: [number, string][]; ready: number; done: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(__dirname, "..", "testing", "crash-child.ts"), dir, String(SEED), String(TOTAL)],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    let acksSeen = 0;
    let killed = false;
    child.stdout.on("data", (d: Buffer) => {
      const text = d.toString();
      out += text;
      acksSeen += text.split("ack ").length - 1;
      if (!killed && killAfterAcks !== undefined && out.includes("ready") && acksSeen >= killAfterAcks) {
        killed = true;
        child.kill("SIGKILL");
      }
    });
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code !== 0 && signal !== "SIGKILL") return reject(new Error(`child failed (${code}): ${err}`));
      const lines = out.split("\n");
      // A line cut by the kill is incomplete: only whole lines count.
      const whole = out.endsWith("\n") ? lines : lines.slice(0, -1);
      const acks = whole
        .filter((l) => l.startsWith("ack "))
        .map((l) => l.split(" "))
        .filter((p) => p.length === 3 && p[2].length === 64)
        .map((p): [number, string] => [Number(p[1]), p[2]]);
      const ready = Number(whole.find((l) => l.startsWith("ready "))?.split(" ")[1] ?? -1);
      resolve({ acks, ready, done: whole.includes("done") });
    });
  });
}

test("SIGKILL at random points loses no acknowledged command and recovery rebuilds the same book", {
  timeout: 120_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), "matcher-crash-"));
  try {
    const acked = new Map<number, string>();
    let kills = 0;
    for (let round = 0; round <= ROUNDS; round++) {
      const last = round === ROUNDS;
      const { acks, ready, done } = await runChild(
        dir,
        last ? undefined : 1 + Math.floor(Math.random() * (TOTAL / (ROUNDS + 1))),
      );
      // Recovery starts at or after every command acknowledged before.
      const maxAcked = Math.max(-1, ...acked.keys());
      assert.ok(ready > maxAcked, `round ${round}: recovered ${ready} commands but ${maxAcked} was acknowledged`);
      for (const [i, hash] of acks) {
        assert.ok(!acked.has(i), `command ${i} acknowledged twice`);
        acked.set(i, hash);
      }
      if (!done) kills++;
      console.log(
        `round ${round}: recovered ${ready} commands, ${acks.length} acknowledged, ${done ? "finished" : "killed"}`,
      );
      if (done) break;
    }
    assert.ok(kills >= 3, `only ${kills} of the rounds were killed mid-stream`);

    const recovered = await createJournaledEngine({ dir, markets: CRASH_MARKETS });
    const n = recovered.commandCount;
    assert.equal(n, TOTAL);
    const fresh = new MatchingEngine({ markets: CRASH_MARKETS });
    for (let i = 0; i < n; i++) {
      const hash = createHash("sha256")
        .update(JSON.stringify(fresh.apply(commandAt(SEED, i))))
        .digest("hex");
      if (acked.has(i)) assert.equal(acked.get(i), hash, `events of acknowledged command ${i}`);
    }
    assert.ok(acked.size > 0);
    assert.deepEqual(takeSnapshot(recovered.engine), takeSnapshot(fresh));
    await recovered.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
