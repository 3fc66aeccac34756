// One component under supervision (`npm start`): a start that fails, or a component that ends on its own
// (its handle's `exited`), is started again after a backoff (1 s, doubling, at most 30 s), until the stack
// stops. Meanwhile /health reports it down, with the last error and the next try. (docs/decisions/stack.md
// "Supervision".)
import type { Logger } from "pino";
import type { Component, ComponentHandle, ComponentHealth, StackContext } from "./types";

export const BACKOFF_FIRST_MS = 1_000;
export const BACKOFF_MAX_MS = 30_000;
/** A component that ran this long before it ended starts again after the first backoff step. */
const STABLE_AFTER_MS = 60_000;

export type SupervisedState = "starting" | "up" | "retrying" | "stopped";

export class SupervisedComponent {
  state: SupervisedState = "starting";
  handle?: ComponentHandle;
  /** the last start's failure, or why the component ended */
  error?: string;
  attempts = 0;
  private nextTryAtMs = 0;
  private timer?: NodeJS.Timeout;
  private starting?: Promise<void>;
  private upSinceMs = 0;

  constructor(
    private readonly component: Component,
    private readonly ctx: () => StackContext,
    private readonly logger: Logger,
    private readonly started: Map<string, ComponentHandle>,
    /** false: a failed first start is not retried (tests: the stack then stops and throws `failure`) */
    private readonly retry = true,
  ) {}

  /** the first start's error, as thrown */
  failure?: unknown;

  get name(): string {
    return this.component.name;
  }

  /** The first start: resolves once it succeeded or failed (a failure is retried in the background). */
  start(): Promise<void> {
    this.starting = this.attempt();
    return this.starting;
  }

  private async attempt(): Promise<void> {
    this.attempts++;
    try {
      const handle = await this.component.start(this.ctx());
      if (this.state === "stopped") {
        await handle.stop();
        return;
      }
      this.handle = handle;
      this.started.set(this.name, handle);
      this.state = "up";
      this.upSinceMs = performance.now();
      if (this.attempts > 1)
        this.logger.info({ component: this.name, attempts: this.attempts }, "component started after retrying");
      void handle.exited?.then((why) => this.ended(handle, why));
    } catch (e) {
      if (this.state === "stopped") return;
      this.failure = e;
      this.error = e instanceof Error ? e.message : String(e);
      if (this.retry) this.retryLater("component failed to start; retrying");
      else this.state = "stopped";
    }
  }

  private async ended(handle: ComponentHandle, why: string): Promise<void> {
    if (this.state === "stopped" || this.handle !== handle) return;
    this.error = why;
    this.handle = undefined;
    this.started.delete(this.name);
    await handle.stop().catch(() => undefined);
    if (this.stopped()) return;
    if (performance.now() - this.upSinceMs > STABLE_AFTER_MS) this.attempts = 0;
    this.retryLater("component exited; restarting");
  }

  private retryLater(message: string): void {
    this.state = "retrying";
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.max(0, this.attempts - 1));
    this.nextTryAtMs = Date.now() + delay;
    this.logger.error(
      { component: this.name, attempt: this.attempts, retryInMs: delay, err: this.error?.slice(0, 2000) },
      message,
    );
    this.timer = setTimeout(() => {
      if (this.state === "stopped") return;
      this.starting = this.attempt();
    }, delay);
  }

  /** (a method: the compiler would keep its narrowing of `state` across an await) */
  private stopped(): boolean {
    return this.state === "stopped";
  }

  /** What /health says of it. */
  async health(): Promise<ComponentHealth & { urls?: Record<string, string> }> {
    if (this.state === "up" && this.handle) {
      const h = this.handle.health ? await this.handle.health() : { ok: true, detail: "started" };
      return { ...h, ...(this.handle.urls ? { urls: { ...this.handle.urls } } : {}) };
    }
    if (this.state === "retrying") {
      const inS = Math.max(0, Math.ceil((this.nextTryAtMs - Date.now()) / 1000));
      return { ok: false, detail: `down after ${this.attempts} attempt(s): ${this.error}; next try in ${inS} s` };
    }
    return { ok: false, detail: this.state === "starting" ? "starting" : "stopped" };
  }

  /** No more restarts from now on (the first thing a stop does). */
  hold(): void {
    this.state = "stopped";
    clearTimeout(this.timer);
  }

  async stop(): Promise<void> {
    this.hold();
    await this.starting?.catch(() => undefined);
    const handle = this.handle;
    this.handle = undefined;
    await handle?.stop();
  }
}
