// A stack for one e2e test: a fresh data dir, a test config (free ports), the chosen components started with
// "fail" on a component error; stopped and removed afterwards whatever the test did.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Config } from "../../config";
import { createTestConfig, defaultComponents, startStack, type RunningStack } from "../../scripts/stack";
import type { PipelineHandle } from "../../scripts/stack/components/pipeline";
import type { DexService } from "../../pipeline/service";

export interface TestStack {
  config: Config;
  stack: RunningStack;
  dataDir: string;
  /** stops the stack and starts the same components again on the same data (the one stopped at the end) */
  restart(): Promise<RunningStack>;
  /** `fn` runs at the end, before the stack stops (the last deferred first): sockets and clients a test opened */
  defer(fn: () => unknown): void;
}

/** Runs `fn` over a stack of `components` (names as in defaultComponents) on a temporary data dir. */
export async function withTestStack(
  prefix: string,
  components: readonly string[],
  fn: (s: TestStack) => Promise<void>,
  overrides: Record<string, string> = {},
): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  let stack: RunningStack | undefined;
  const deferred: (() => unknown)[] = [];
  try {
    const { config } = await createTestConfig(dataDir, overrides);
    const start = () => startStack({ config, components: defaultComponents(components), onComponentError: "fail" });
    stack = await start();
    const restart = async () => {
      await stack?.stop();
      stack = undefined;
      stack = await start();
      return stack;
    };
    await fn({ config, stack, dataDir, restart, defer: (f) => void deferred.push(f) });
  } finally {
    for (const f of deferred.reverse()) await f();
    await stack?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The handle of the running component `name` (throws when the stack does not run it). */
export function componentHandle<H>(stack: RunningStack, name: string): H {
  const c = stack.components.find((x) => x.name === name);
  if (!c) throw new Error(`the stack runs no ${name}`);
  return c.handle as H;
}

/** The pipeline component's DEX service. */
export const dexServiceOf = (stack: RunningStack): DexService =>
  componentHandle<PipelineHandle>(stack, "pipeline").dexService;
