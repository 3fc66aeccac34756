// startStack: chains -> compiled artifacts -> deployments (first start) or their re-use -> components.
// Used by `npm start` (scripts/start.ts) and by the end-to-end tests, which pass their own config
// (free ports, a temporary data dir) and their own component list.
import pino, { type Logger } from "pino";
import { DeployerSecret, servingConfig, type Config } from "../../config";
import { redactUrl, rpcCall, type RunningChain } from "../chain";
import { createNonceLanes } from "../../runtime/nonces";
import { defaultComponents } from "./components";
import type { CompileOutcome } from "./compile";
import { beginStack, type StackBeginning } from "./begin";
import { deployOrReuse } from "./deploy";
import { lockDeployments } from "./deployments-lock";
import { readDeployments, writeDeployments, type Deployments } from "./deployments";
import { createProvisioner } from "./provisioner";
import type { SeededBalance } from "./seed";
import type { Component, ComponentHandle, ProvisionContext, StackChains, StackContext } from "./types";
import { SupervisedComponent } from "./supervisor";
import { metrics, onScrape } from "../../runtime/metrics";

export interface StartStackOptions {
  config: Config;
  /** Wipe the data dir first (`npm start -- --reset`). */
  reset?: boolean;
  /** Components to run after the chains and deployments; default `defaultComponents(config.stackComponents)`. */
  components?: readonly Component[];
  /**
   * A component that fails to start: "fail" stops everything and throws (tests); "continue" logs it,
   * reports it down on /health, starts the rest, and starts it again with a backoff until it runs; one that
   * exits is started again the same way (`npm start`: scripts/stack/supervisor.ts).
   */
  onComponentError?: "fail" | "continue";
  logger?: Logger;
  /**
   * The deployer's (admin) key, taken out of the launcher's environment (`DeployerSecret.takeFrom`): it
   * reaches the provisioning children's environment only, and is disposed of before any component
   * starts. Default: none (the provisioning child uses the sandbox's dev key).
   */
  deployerSecret?: DeployerSecret;
  /** Each start step as it begins and ends (with its milliseconds): `npm start`'s progress lines. */
  onPhase?(step: string, event: "begin" | "end", ms?: number): void;
  /** The chains and the compile check, already begun by the caller (`beginStack`, before it loaded the
   *  rest of the stack's modules); with it, `reset` is beginStack's. */
  begun?: StackBeginning;
  /** When the start began (wall clock ms; default: this call); `npm start` gives its process's start. */
  startedAtMs?: number;
  /** A stop asked while the stack starts (`npm start`'s Ctrl-C): looked at after each start step; the start
   *  then stops what it made, as a failed start does, and throws the signal's reason. */
  signal?: AbortSignal;
}

export interface ComponentStatus {
  readonly name: string;
  readonly handle?: ComponentHandle;
  readonly error?: string;
}

export interface HealthReport {
  status: "ok" | "degraded";
  components: { name: string; ok: boolean; detail?: string; urls?: Record<string, string> }[];
  error?: string;
}

export interface RunningStack {
  readonly config: Config;
  readonly chains: StackChains;
  readonly deployments: Deployments;
  /** True when this start deployed and seeded; false when it re-used a previous start's deployments. */
  readonly deployedNow: boolean;
  readonly seeded: readonly SeededBalance[];
  readonly components: readonly ComponentStatus[];
  /** The provisioning jobs this start ran in a child process ("exchange", "bridge"); empty on a re-use. */
  readonly provisioned: readonly string[];
  /** Milliseconds spent in each phase of the start. */
  readonly timingsMs: Readonly<Record<string, number>>;
  health(): Promise<HealthReport>;
  /** Stops components in reverse order, then the chains; idempotent. */
  stop(): Promise<void>;
}

async function chainHealth(name: string, chain: RunningChain): Promise<HealthReport["components"][number]> {
  const s = chain.status();
  if (s.state === "down") {
    return {
      name,
      ok: false,
      detail: `chain ${chain.chainId} down since ${new Date(s.sinceMs).toISOString()} (${s.reason ?? "restarting"}); restarting, expected within ${s.expectedRestartMs} ms`,
      urls: { rpc: chain.rpcUrl },
    };
  }
  // an external node (HOME_/REMOTE_CHAIN_RPC_URL): reported by what it answers now, its URL without credentials
  const urls = { rpc: chain.external ? redactUrl(chain.rpcUrl) : chain.rpcUrl };
  const kind = chain.external ? "external node, " : "";
  try {
    const id = Number(await rpcCall<string>(chain.rpcUrl, "eth_chainId", [], 5_000));
    const block = Number(await rpcCall<string>(chain.rpcUrl, "eth_blockNumber", [], 5_000));
    return { name, ok: id === chain.chainId, detail: `${kind}chain ${id}, block ${block}`, urls };
  } catch (e) {
    return { name, ok: false, detail: `${kind}${String(e)}`, urls };
  }
}

/** What a component's context carries as its config (no config holds the admin key any more). */
export function contextConfigFor(component: Component, config: Config): Config {
  return component.serving ? servingConfig(config) : config;
}

/** One start under way: what every step of startStack reads and what it has made so far. */
interface StackRun {
  readonly options: StartStackOptions;
  readonly config: Config;
  readonly logger: Logger;
  readonly startedAtMs: number;
  readonly components: readonly Component[];
  /** what each component's `prepare` gives, until its start takes it (or the stack fails and releases it) */
  readonly prepared: Map<string, Promise<unknown>>;
  readonly timingsMs: Record<string, number>;
  readonly statuses: ComponentStatus[];
  chains?: StackChains;
  stopChainMetrics?: () => void;
}

/** Throws the signal's reason when a stop was asked during the start (`StartStackOptions.signal`). */
function throwIfStopped(run: StackRun): void {
  run.options.signal?.throwIfAborted();
}

/** Runs one start step, timed into `timingsMs` and announced through `onPhase`; then, if a stop was asked
 *  meanwhile, throws the signal's reason. */
async function phase<T>(run: StackRun, name: string, fn: () => Promise<T>): Promise<T> {
  const t = performance.now();
  run.options.onPhase?.(name, "begin");
  let out: T;
  try {
    out = await fn();
  } finally {
    run.timingsMs[name] = Math.round(performance.now() - t);
    run.options.onPhase?.(name, "end", run.timingsMs[name]);
  }
  throwIfStopped(run);
  return out;
}

/** Components' own preparation (their databases), begun while the chains start (issue #13). */
function prepareComponents(run: StackRun): void {
  for (const component of run.components) {
    if (!component.prepare) continue;
    const p = component.prepare(contextConfigFor(component, run.config));
    p.catch(() => undefined); // its start sees the rejection
    run.prepared.set(component.name, p);
  }
}

/** Releases what was prepared and no start took over (the stack failed first). */
async function releasePrepared(run: StackRun): Promise<void> {
  for (const component of run.components) {
    const p = run.prepared.get(component.name);
    if (!p) continue;
    run.prepared.delete(component.name);
    await p
      .then(
        (v) => component.release?.(v),
        () => undefined,
      )
      .catch((e) =>
        run.logger.error({ component: component.name, err: e }, "component failed to release what it prepared"),
      );
  }
}

/** The compile check and both chains (begun by the caller, or here); on a failure, stops what started. */
async function awaitChains(run: StackRun, begun: StackBeginning): Promise<StackChains> {
  const [compiled, home, remote] = await phase(run, "chains+compile", () => begun.settled);
  const startedChains = [home, remote].flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const failed = [compiled, home, remote].find((r) => r.status === "rejected") as PromiseRejectedResult | undefined;
  if (failed) {
    await Promise.all(startedChains.map((c) => c.stop()));
    await releasePrepared(run);
    throw failed.reason;
  }
  const compileOutcome = (compiled as PromiseFulfilledResult<CompileOutcome>).value;
  if (compileOutcome.status === "stale") {
    run.logger.warn(
      { error: compileOutcome.error?.slice(0, 2000) },
      "hardhat compile failed: deploying from the existing (older) artifacts",
    );
  }
  const chains: StackChains = {
    home: (home as PromiseFulfilledResult<RunningChain>).value,
    remote: (remote as PromiseFulfilledResult<RunningChain>).value,
  };
  for (const c of [chains.home, chains.remote]) {
    run.logger.info(
      { chainId: c.chainId, rpcUrl: c.rpcUrl, replayed: c.restored.entries, replayMs: c.restored.ms },
      "chain up",
    );
  }
  return chains;
}

/** dex_chain_head_age_seconds: each chain's head block's age, read when /metrics is scraped. */
function watchChainMetrics(chains: StackChains): () => void {
  return onScrape(async () => {
    await Promise.all(
      (["home", "remote"] as const).map(async (name) => {
        const head = await rpcCall<{ timestamp: string }>(
          chains[name].rpcUrl,
          "eth_getBlockByNumber",
          ["latest", false],
          1_000,
        );
        metrics.chainHeadAge.set({ chain: name }, Math.max(0, Date.now() / 1000 - Number(head.timestamp)));
      }),
    );
  });
}

/** No restart from now on; every surface stops accepting and answers what it received; then each stops in
 *  reverse order, then the chains. */
async function stopAll(run: StackRun): Promise<void> {
  const { logger, statuses } = run;
  const supervised = statuses.filter((s): s is SupervisedComponent => s instanceof SupervisedComponent);
  for (const s of supervised) s.hold();
  await Promise.all(
    supervised.map((s) =>
      s.handle?.drain?.().catch((e) => logger.error({ component: s.name, err: e }, "component failed to drain")),
    ),
  );
  for (const s of [...statuses].reverse()) {
    try {
      await s.handle?.stop();
    } catch (e) {
      logger.error({ component: s.name, err: e }, "component failed to stop");
    }
  }
  run.stopChainMetrics?.();
  if (run.chains) await Promise.all([run.chains.home.stop(), run.chains.remote.stop()]);
  await releasePrepared(run);
}

/** The deployments as the components see them: re-read after each provisioning, rewritten by updates. */
class DeploymentsCell {
  constructor(
    public current: Deployments,
    private readonly file: string,
  ) {}

  update = (update: (current: Deployments) => Deployments): Deployments => {
    this.current = update(this.current);
    writeDeployments(this.file, this.current);
    return this.current;
  };
}

/** Every use of the admin key, before anything serves; returns the components whose provisioning failed
 *  (with `onComponentError: "continue"`), with why. The components' provisioning steps run side by side (the
 *  bridge's signer keys are made while the asset tokens deploy); their jobs run one at a time, in the order
 *  asked (the provisioner's queue: one deployer nonce, one deployments file). */
async function provisionAll(
  run: StackRun,
  chains: StackChains,
  deployments: DeploymentsCell,
  provisioner: ReturnType<typeof createProvisioner>,
): Promise<Map<string, string>> {
  const { config, logger } = run;
  const failures = new Map<string, string>();
  const provisionOne = async (component: Component) => {
    if (!component.provision) return;
    const pctx: ProvisionContext = {
      config,
      logger: logger.child({ component: component.name }),
      chains,
      get deployments() {
        return deployments.current;
      },
      async provision(job) {
        const result = await provisioner.run(job);
        const written = readDeployments(config.deploymentsFile);
        if (!written) throw new Error(`provisioning (${job.kind}) left no deployments file`);
        deployments.current = written;
        return result;
      },
    };
    try {
      await phase(run, `provision ${component.name}`, () => component.provision!(pctx));
    } catch (e) {
      if (run.options.onComponentError !== "continue" || run.options.signal?.aborted) throw e;
      logger.error({ component: component.name, err: e }, "component failed to provision; continuing without it");
      failures.set(component.name, `provisioning: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const all = await Promise.allSettled(run.components.map(provisionOne));
  const failed = all.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return failures;
}

/** Starts each component in order, supervised; with `onComponentError: "fail"` the first failure throws. */
async function startComponents(
  run: StackRun,
  chains: StackChains,
  deployments: DeploymentsCell,
  provisionFailures: ReadonlyMap<string, string>,
): Promise<void> {
  const { config, logger } = run;
  const started = new Map<string, ComponentHandle>();
  const nonceLanes = createNonceLanes();
  const context = (component: Component, p: Promise<unknown> | undefined): StackContext => ({
    config: contextConfigFor(component, config),
    logger: logger.child({ component: component.name }),
    chains,
    get deployments() {
      return deployments.current;
    },
    deploymentsFile: config.deploymentsFile,
    started,
    updateDeployments: deployments.update,
    nonceLanes,
    prepared: p,
    startedAtMs: run.startedAtMs,
  });
  const retry = run.options.onComponentError === "continue";
  // the starts under way beside the next ones (Component.alongside): each ends before the stack's start does,
  // also when a later one fails (the stop then finds their handles)
  const alongside: Promise<void>[] = [];
  try {
    for (const component of run.components) {
      const provisionError = provisionFailures.get(component.name);
      if (provisionError !== undefined) {
        run.statuses.push({ name: component.name, error: provisionError });
        continue;
      }
      const starting = startComponent(run, component, context, started, retry);
      if (!component.alongside) await starting;
      else {
        starting.catch(() => undefined); // awaited below
        alongside.push(starting);
      }
    }
  } finally {
    await Promise.allSettled(alongside);
  }
  await Promise.all(alongside);
}

/** One component's supervised start: its first start gets what it prepared, a later one (a retry, a restart)
 *  prepares afresh. Throws its failure when failures are not retried. */
async function startComponent(
  run: StackRun,
  component: Component,
  context: (component: Component, prepared: Promise<unknown> | undefined) => StackContext,
  started: Map<string, ComponentHandle>,
  retry: boolean,
): Promise<void> {
  const preparedOnce = run.prepared.get(component.name);
  run.prepared.delete(component.name); // its start owns it now
  let first = true;
  const contextOnce = () => context(component, first ? ((first = false), preparedOnce) : undefined);
  const s = new SupervisedComponent(component, contextOnce, run.logger, started, retry);
  run.statuses.push(s);
  await phase(run, component.name, () => s.start());
  if (!retry && s.state !== "up") throw s.failure;
}

/** Every chain's and component's health, in one report. */
async function stackHealth(chains: StackChains, statuses: readonly ComponentStatus[]): Promise<HealthReport> {
  const parts = await Promise.all([
    chainHealth("home-chain", chains.home),
    chainHealth("remote-chain", chains.remote),
    ...statuses.map(async (s) => {
      if (s instanceof SupervisedComponent) return { name: s.name, ...(await s.health()) };
      if (!s.handle) return { name: s.name, ok: false, detail: `failed to start: ${s.error}` };
      const h = s.handle.health ? await s.handle.health() : { ok: true, detail: "started" };
      return { name: s.name, ...h, ...(s.handle.urls ? { urls: { ...s.handle.urls } } : {}) };
    }),
  ]);
  return { status: parts.every((p) => p.ok) ? "ok" : "degraded", components: parts };
}

export async function startStack(options: StartStackOptions): Promise<RunningStack> {
  const { config } = options;
  const logger = options.logger ?? pino({ level: config.logLevel });
  const run: StackRun = {
    options,
    config,
    logger,
    startedAtMs: options.startedAtMs ?? Date.now(),
    components: options.components ?? defaultComponents(config.stackComponents),
    prepared: new Map(),
    timingsMs: {},
    statuses: [],
  };
  const begun =
    options.begun ??
    beginStack(config, {
      reset: options.reset,
      onReset: () => logger.info({ dataDir: config.dataDir }, "reset: wiping the data dir"),
    });
  prepareComponents(run);
  const chains = await awaitChains(run, begun);
  run.chains = chains;
  run.stopChainMetrics = watchChainMetrics(chains);

  const secret = options.deployerSecret ?? DeployerSecret.none();
  // a shared DEPLOYMENTS_FILE: one process at a time deploys and provisions; the others then reuse its file
  let unlockDeployments: (() => void) | undefined;
  try {
    throwIfStopped(run);
    if (config.deploymentsFileShared) {
      unlockDeployments = await phase(run, "deployments lock", () =>
        lockDeployments(config.deploymentsFile, {
          onWait: (owner) =>
            logger.info(
              { file: config.deploymentsFile, owner },
              "another process is deploying: waiting for its deployments file",
            ),
        }),
      );
    }
    const provisioner = createProvisioner({ secret, logger });
    const deployed = await phase(run, "deploy", () => deployOrReuse({ config, logger, chains, provisioner }));
    const deployments = new DeploymentsCell(deployed.deployments, config.deploymentsFile);
    const provisionFailures = await provisionAll(run, chains, deployments, provisioner);
    secret.dispose();
    unlockDeployments?.();
    await startComponents(run, chains, deployments, provisionFailures);

    let stopping: Promise<void> | undefined;
    return {
      config,
      chains,
      get deployments() {
        return deployments.current;
      },
      deployedNow: deployed.deployedNow,
      seeded: deployed.seeded,
      provisioned: [...provisioner.runs],
      components: run.statuses,
      timingsMs: run.timingsMs,
      health: () => stackHealth(chains, run.statuses),
      stop() {
        stopping ??= stopAll(run);
        return stopping;
      },
    };
  } catch (e) {
    secret.dispose();
    unlockDeployments?.();
    await stopAll(run);
    throw e;
  }
}
