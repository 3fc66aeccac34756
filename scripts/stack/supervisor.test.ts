// A supervised component: a failed start is retried after a backoff (health down meanwhile, naming the
// error and the next try); a component that ends on its own is started again; a held one is never restarted.
import assert from "node:assert/strict";
import { test } from "node:test";
import pino from "pino";
import { SupervisedComponent } from "./supervisor";
import type { Component, ComponentHandle, StackContext } from "./types";

const logger = pino({ level: "silent" });
const ctx = () => ({}) as StackContext;
const waitFor = async (check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  assert.ok(check());
};

test("a failed first start is retried after a backoff, and health says so meanwhile", async () => {
  let starts = 0;
  const component: Component = {
    name: "flaky",
    async start(): Promise<ComponentHandle> {
      starts++;
      if (starts === 1) throw new Error("port taken");
      return { stop: async () => undefined };
    },
  };
  const started = new Map<string, ComponentHandle>();
  const s = new SupervisedComponent(component, ctx, logger, started);
  await s.start();
  assert.equal(s.state, "retrying");
  const h = await s.health();
  assert.equal(h.ok, false);
  assert.match(h.detail ?? "", /port taken; next try in 1 s/);
  await waitFor(() => s.state === "up");
  assert.equal(starts, 2);
  assert.ok(started.has("flaky"));
  assert.equal((await s.health()).ok, true);
  await s.stop();
});

test("a component that exits is started again; once held (a stop), it is not", async () => {
  let starts = 0;
  const exits: ((why: string) => void)[] = [];
  let stops = 0;
  const component: Component = {
    name: "child",
    async start(): Promise<ComponentHandle> {
      starts++;
      return { stop: async () => void stops++, exited: new Promise<string>((r) => exits.push(r)) };
    },
  };
  const s = new SupervisedComponent(component, ctx, logger, new Map());
  await s.start();
  exits[0]!("exited (1)");
  await waitFor(() => s.state === "retrying");
  assert.match((await s.health()).detail ?? "", /exited \(1\)/);
  await waitFor(() => starts === 2 && s.state === "up");
  s.hold();
  exits[1]!("killed");
  await new Promise((r) => setTimeout(r, 1_500));
  assert.equal(starts, 2, "no restart once held");
  await s.stop();
  assert.ok(stops >= 2);
});

test("without retry (tests' fail mode) a failed start stays failed and keeps the thrown error", async () => {
  const boom = new Error("boom");
  const s = new SupervisedComponent(
    { name: "x", start: async () => Promise.reject(boom) },
    ctx,
    logger,
    new Map(),
    false,
  );
  await s.start();
  assert.equal(s.state, "stopped");
  assert.equal(s.failure, boom);
});
