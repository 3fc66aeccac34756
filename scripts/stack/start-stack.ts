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

export async function startStack(options: StartStackOptions): Promise<RunningStack> {
  const { config } = options;
  const logger = options.logger ?? pino({ level: config.logLevel });
  const timingsMs: Record<string, number> = {};
  const phase = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    options.onPhase?.(name, "begin");
    try {
      return await fn();
    } finally {
      timingsMs[name] = Math.round(performance.now() - t);
      options.onPhase?.(name, "end", timingsMs[name]);
    }
  };

  const begun =
    options.begun ??
    beginStack(config, {
      reset: options.reset,
      onReset: () => logger.info({ dataDir: config.dataDir }, "reset: wiping the data dir"),
    });

  // Components' own preparation (their databases) runs while the chains start (issue #13)
  const components = options.components ?? defaultComponents(config.stackComponents);
  const prepared = new Map<string, Promise<unknown>>();
  for (const component of components) {
    if (!component.prepare) continue;
    const p = component.prepare(contextConfigFor(component, config));
    p.catch(() => undefined); // its start sees the rejection
    prepared.set(component.name, p);
  }
  // what no start took over (the stack failed first)
  const releasePrepared = async () => {
    for (const component of components) {
      const p = prepared.get(component.name);
      if (!p) continue;
      prepared.delete(component.name);
      await p
        .then(
          (v) => component.release?.(v),
          () => undefined,
        )
        .catch((e) =>
          logger.error({ component: component.name, err: e }, "component failed to release what it prepared"),
        );
    }
  };
  // the compile check and both chains (begun above, or by the caller before it loaded the stack's modules)
  const [compiled, home, remote] = await phase("chains+compile", () => begun.settled);
  const startedChains = [home, remote].flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const failed = [compiled, home, remote].find((r) => r.status === "rejected") as PromiseRejectedResult | undefined;
  if (failed) {
    await Promise.all(startedChains.map((c) => c.stop()));
    await releasePrepared();
    throw failed.reason;
  }
  const compileOutcome = (compiled as PromiseFulfilledResult<CompileOutcome>).value;
  if (compileOutcome.status === "stale") {
    logger.warn(
      { error: compileOutcome.error?.slice(0, 2000) },
      "hardhat compile failed: deploying from the existing (older) artifacts",
    );
  }
  const chains: StackChains = {
    home: (home as PromiseFulfilledResult<RunningChain>).value,
    remote: (remote as PromiseFulfilledResult<RunningChain>).value,
  };
  for (const c of [chains.home, chains.remote]) {
    logger.info(
      { chainId: c.chainId, rpcUrl: c.rpcUrl, replayed: c.restored.entries, replayMs: c.restored.ms },
      "chain up",
    );
  }

  // dex_chain_head_age_seconds: each chain's head block's age, read when /metrics is scraped
  const stopChainMetrics = onScrape(async () => {
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
  const statuses: ComponentStatus[] = [];
  const supervised = () => statuses.filter((s): s is SupervisedComponent => s instanceof SupervisedComponent);
  const stopAll = async () => {
    // no restart from now on; every surface stops accepting and answers what it received; then each stops
    for (const s of supervised()) s.hold();
    await Promise.all(
      supervised().map((s) =>
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
    stopChainMetrics();
    await Promise.all([chains.home.stop(), chains.remote.stop()]);
    await releasePrepared();
  };

  const secret = options.deployerSecret ?? DeployerSecret.none();
  // a shared DEPLOYMENTS_FILE: one process at a time deploys and provisions; the others then reuse its file
  let unlockDeployments: (() => void) | undefined;
  try {
    if (config.deploymentsFileShared) {
      unlockDeployments = await phase("deployments lock", () =>
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
    const deployed = await phase("deploy", () => deployOrReuse({ config, logger, chains, provisioner }));
    let deployments = deployed.deployments;
    const updateDeployments = (update: (current: Deployments) => Deployments) => {
      deployments = update(deployments);
      writeDeployments(config.deploymentsFile, deployments);
      return deployments;
    };
    // Every use of the admin key, before anything serves: then the key is dropped.
    const provisionFailures = new Map<string, string>();
    for (const component of components) {
      if (!component.provision) continue;
      const pctx: ProvisionContext = {
        config,
        logger: logger.child({ component: component.name }),
        chains,
        get deployments() {
          return deployments;
        },
        async provision(job) {
          const result = await provisioner.run(job);
          const written = readDeployments(config.deploymentsFile);
          if (!written) throw new Error(`provisioning (${job.kind}) left no deployments file`);
          deployments = written;
          return result;
        },
      };
      try {
        await phase(`provision ${component.name}`, () => component.provision!(pctx));
      } catch (e) {
        if (options.onComponentError !== "continue") throw e;
        logger.error({ component: component.name, err: e }, "component failed to provision; continuing without it");
        provisionFailures.set(component.name, `provisioning: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    secret.dispose();
    unlockDeployments?.();

    const started = new Map<string, ComponentHandle>();
    const nonceLanes = createNonceLanes();
    for (const component of components) {
      const provisionError = provisionFailures.get(component.name);
      if (provisionError !== undefined) {
        statuses.push({ name: component.name, error: provisionError });
        continue;
      }
      const contextWith = (p: Promise<unknown> | undefined): StackContext => ({
        config: contextConfigFor(component, config),
        logger: logger.child({ component: component.name }),
        chains,
        get deployments() {
          return deployments;
        },
        deploymentsFile: config.deploymentsFile,
        started,
        updateDeployments,
        nonceLanes,
        prepared: p,
      });
      const preparedOnce = prepared.get(component.name);
      prepared.delete(component.name); // its start owns it now
      // a later start (a retry, a restart) prepares afresh: what was prepared went to the first
      let first = true;
      const contextOnce = () => contextWith(first ? ((first = false), preparedOnce) : undefined);
      const retry = options.onComponentError === "continue";
      const s = new SupervisedComponent(component, contextOnce, logger, started, retry);
      statuses.push(s);
      await phase(component.name, () => s.start());
      if (!retry && s.state !== "up") throw s.failure;
    }

    let stopping: Promise<void> | undefined;
    return {
      config,
      chains,
      get deployments() {
        return deployments;
      },
      deployedNow: deployed.deployedNow,
      seeded: deployed.seeded,
      provisioned: [...provisioner.runs],
      components: statuses,
      timingsMs,
      async health() {
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
      },
      stop() {
        stopping ??= stopAll();
        return stopping;
      },
    };
  } catch (e) {
    secret.dispose();
    unlockDeployments?.();
    await stopAll();
    throw e;
  }
}
