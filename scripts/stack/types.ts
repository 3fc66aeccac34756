// The stack's extension points: each service of `npm start` is a Component the stack starts in order
// once the chains run and the contracts are deployed, and stops in reverse order.
import type { Logger } from "pino";
import type { Config } from "../../config";
import type { NonceLanes } from "../../runtime/nonces";
import type { RunningChain } from "../chain";
import type { Deployments } from "./deployments";
import type { ProvisionJob, ProvisionResult } from "./provision-job";

export interface StackChains {
  readonly home: RunningChain;
  readonly remote: RunningChain;
}

/** What every component receives: explicit dependencies, no globals. */
export interface StackContext {
  readonly config: Config;
  readonly logger: Logger;
  readonly chains: StackChains;
  /** Chains, contract addresses and tokens, as also written to `config.deploymentsFile`. */
  readonly deployments: Deployments;
  readonly deploymentsFile: string;
  /**
   * For components that deploy contracts themselves (the bridge needs the signer nodes' key first):
   * merges their addresses into the deployments, rewrites the file, and later components see them.
   * A component re-used on restart should find its contracts already recorded and skip deploying.
   */
  updateDeployments(update: (current: Deployments) => Deployments): Deployments;
  /** Handles of the components started before this one, by name (a later one may depend on them). */
  readonly started: ReadonlyMap<string, ComponentHandle>;
  /** The process's one nonce lane per (chain, account): every component that sends transactions takes
   *  the lane of its sending account here, so two senders of one account never race for a nonce. */
  readonly nonceLanes: NonceLanes;
  /** What the component's `prepare` gave (it rejects if prepare failed); undefined without a prepare. */
  readonly prepared?: Promise<unknown>;
  /** When the stack's start began (wall clock ms; `npm start`: its process's start): the simulator's history
   *  budget counts from it. */
  readonly startedAtMs: number;
}

export interface ComponentHealth {
  readonly ok: boolean;
  readonly detail?: string;
}

export interface ComponentHandle {
  /** Stops the component and everything it spawned; idempotent. */
  stop(): Promise<void>;
  /** URLs to print and to report on /health, e.g. `{ graphql: "http://127.0.0.1:42069/graphql" }`. */
  readonly urls?: Readonly<Record<string, string>>;
  /** Extra lines for the start banner (addresses, credentials), label -> value. */
  readonly info?: Readonly<Record<string, string>>;
  /** Liveness for /health; without it a started component counts as up. */
  health?(): Promise<ComponentHealth>;
  /** A stop's first step, on every component at once before any stops: stop accepting connections and
   *  answer every request already received (its listeners stay closed; stop() follows). */
  drain?(): Promise<void>;
  /** Settles when the component ended on its own (a child process exited), with why: the stack then starts
   *  it again (scripts/stack/supervisor.ts). Never settles for a stop the stack asked for. */
  readonly exited?: Promise<string>;
}

/** What a component's provisioning step receives: no key, but a way to run a job in the provisioning
 *  child (the one process that holds the deployer's key). */
export interface ProvisionContext {
  readonly config: Config;
  readonly logger: Logger;
  readonly chains: StackChains;
  readonly deployments: Deployments;
  /** Runs the job in a fresh provisioning child, then re-reads the deployments file it wrote. */
  provision(job: ProvisionJob): Promise<ProvisionResult>;
}

export interface Component {
  readonly name: string;
  /** A serving component (order flow, internet-facing): it receives `servingConfig(config)`. No
   *  component's config holds the deployer / admin private key any more. */
  readonly serving?: boolean;
  /**
   * Deploys what the component needs with the admin key, through `ctx.provision` (a child process).
   * Every component's provisioning runs before any component starts, and the stack drops the key after;
   * a component whose contracts are already recorded returns at once.
   */
  provision?(ctx: ProvisionContext): Promise<void>;
  /**
   * Work that needs neither the chains nor another component (opening its own database): it runs while
   * the chains start, so a restart does not wait for it afterwards; `start` receives it as `ctx.prepared`
   * and owns it from then. If the stack fails before this component starts, `release` frees it.
   */
  prepare?(config: Config): Promise<unknown>;
  release?(prepared: unknown): Promise<void>;
  /**
   * The stack goes on with the next components while this one starts (a long start that no later component
   * needs at its own start: they read its handle from `ctx.started` when asked); the stack's start ends once
   * this one's has too.
   */
  readonly alongside?: boolean;
  start(ctx: StackContext): Promise<ComponentHandle>;
}
