// Spawns one Hardhat 2 JSON-RPC node (`hardhat node`) as a child process on a private port.
import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "../../config/base";
import { cpuAffinityPrefix } from "../../runtime/cpu-affinity";
import { AppError } from "../../runtime/errors";

const HARDHAT_CLI = path.join(REPO_ROOT, "node_modules", "hardhat", "internal", "cli", "cli.js");
const NODE_CONFIG = path.join(__dirname, "hardhat-node.config.js");
const EXIT_WITH_PARENT = path.join(__dirname, "exit-with-parent.cjs");
const READY_LINE = /Started HTTP and WebSocket JSON-RPC server at http:\/\/([^:/]+):(\d+)\//;

export interface HardhatNodeOptions {
  chainId: number;
  /** The genesis block's timestamp: fixed so that a replayed chain has the same block hashes. */
  genesisTimestampS: number;
  readyTimeoutMs?: number;
  /** pin the node to these CPUs (taskset list, see cpu-affinity.ts); none when absent */
  cpus?: string;
}

/** Which program runs a chain: Hardhat 2's `hardhat node` (EDR) or Foundry's Anvil (anvil-process.ts). */
export type ChainNodeKind = "hardhat" | "anvil";
export const CHAIN_NODE_KINDS: readonly ChainNodeKind[] = ["hardhat", "anvil"];

export interface ChainNodeProcess {
  readonly kind: ChainNodeKind;
  readonly rpcUrl: string;
  readonly wsUrl: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves once the process has exited (SIGTERM, then SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

export type HardhatNodeProcess = ChainNodeProcess;

export class ChainStartError extends AppError<"CHAIN_START_FAILED"> {
  constructor(message: string) {
    super("CHAIN_START_FAILED", message);
    this.name = "ChainStartError";
  }
}

/** Raises a chain node's scheduling priority (CHAIN_NODE_NICE, default -5) where that is permitted. */
export function prioritizeNode(child: ChildProcess): void {
  const nice = Number(process.env.CHAIN_NODE_NICE ?? -5);
  if (child.pid !== undefined && Number.isInteger(nice) && nice !== 0) {
    try {
      os.setPriority(child.pid, nice);
    } catch {
      // not permitted here
    }
  }
}

/** `exited` resolves once the node's process has exited; `stop` sends SIGTERM, then SIGKILL after `graceMs`. */
export function nodeStopper(child: ChildProcess): { exited: Promise<void>; stop(graceMs?: number): Promise<void> } {
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async (graceMs = 5_000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return { exited, stop };
}

export function spawnHardhatNode(options: HardhatNodeOptions): Promise<HardhatNodeProcess> {
  const pin = cpuAffinityPrefix(options.cpus);
  const child = spawn(
    pin[0] ?? process.execPath,
    [
      ...pin.slice(1),
      ...(pin.length ? [process.execPath] : []),
      ...(process.env.CHAIN_NODE_FLAGS ?? "").split(" ").filter(Boolean),
      "--require",
      EXIT_WITH_PARENT,
      HARDHAT_CLI,
      "--config",
      NODE_CONFIG,
      "node",
      "--hostname",
      "127.0.0.1",
      "--port",
      "0",
    ],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        HARDHAT_CHAIN_ID: String(options.chainId),
        CHAIN_GENESIS_TIMESTAMP_S: String(options.genesisTimestampS),
        // Hardhat asks to send telemetry on first use and would wait on an interactive prompt.
        HARDHAT_DISABLE_TELEMETRY_PROMPT: "true",
      },
      stdio: ["pipe", "pipe", "pipe"],
      // Its own process group: a terminal's Ctrl-C reaches only `npm start`, which stops the services
      // first and the chains last. If the parent dies instead, exit-with-parent.cjs ends the node.
      detached: true,
    },
  );
  // The node executes every settle batch: it runs ahead of the API, the matcher's intake and the indexer
  // when the cores are contended. Set before Hardhat starts its EDR threads, which inherit it. Raising a
  // priority needs CAP_SYS_NICE (root has it): without it the node keeps the default.
  prioritizeNode(child);
  const { stop } = nodeStopper(child);
  let output = "";

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop(0);
      reject(new ChainStartError(`hardhat node (chain ${options.chainId}) not ready in time:\n${output.slice(-2000)}`));
    }, options.readyTimeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const m = READY_LINE.exec(output);
      if (!m) return;
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      // Keep draining the pipes so the node never blocks on a full one.
      child.stdout?.resume();
      resolve({
        kind: "hardhat",
        rpcUrl: `http://127.0.0.1:${m[2]}`,
        wsUrl: `ws://127.0.0.1:${m[2]}`,
        pid: child.pid!,
        child,
        stop,
      });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (c: Buffer) => {
      output = (output + c.toString("utf8")).slice(-8_000);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(
        new ChainStartError(
          `hardhat node (chain ${options.chainId}) exited (${code ?? signal}):\n${output.slice(-2000)}`,
        ),
      );
    });
  });
}
