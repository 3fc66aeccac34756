// npm start's console: pino's JSON lines as short lines on a terminal; JSON otherwise or with --json.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Writable } from "node:stream";
import { consoleFormatFlag, createConsoleLogger, formatLine } from "./console";

test("a JSON line becomes time, level, component: message, then the other fields, long values cut", () => {
  const time = new Date(2026, 10, 28, 12, 3, 4).getTime();
  const line = formatLine(
    JSON.stringify({
      level: 40,
      time,
      pid: 1,
      hostname: "h",
      component: "indexer",
      msg: "restarting",
      attempt: 2,
      err: { message: "x".repeat(300) },
    }),
  );
  assert.match(line, /^12:03:04 WARN {2}indexer: restarting attempt=2 err=x{119}…$/);
  assert.equal(formatLine("not json"), "not json");
});

test("short lines on a terminal, JSON when not one or with --json; --pretty forces short lines", () => {
  const lines: string[] = [];
  const out = Object.assign(new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }), { isTTY: true });
  createConsoleLogger({ level: "info", out }).info({ step: "deploy" }, "deploy: done");
  assert.match(lines[0]!, /^\d\d:\d\d:\d\d INFO {2}deploy: done step=deploy\n$/);
  assert.equal(consoleFormatFlag(["--json"]), true);
  assert.equal(consoleFormatFlag(["--pretty"]), false);
  assert.equal(consoleFormatFlag([]), undefined);
});
