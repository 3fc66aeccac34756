// Spawns one Anvil node (Foundry's Rust EVM node) as a child process on a private port, configured as the
// Hardhat nodes are (chain id, genesis date, 60M block gas limit, the Osaka hardfork, the 20 funded dev
// accounts of Hardhat's mnemonic, 10,000 ETH each, no CREATE2 deployer Hardhat lacks). It is started with
// --no-mining: blocks are made only by the recorder (one `evm_mine` after each accepted transaction, see
// node-kind.ts), so each block holds exactly one transaction, as under Hardhat's automine, and a send's
// answer comes after its block. The binary comes from the npm platform package (@foundry-rs/anvil-<os>-<arch>,
// pinned in package.json); npm's install scripts are not needed (nor run) to find it.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../../config/base";
import { HARDHAT_DEV_MNEMONIC } from "../../config/dev-accounts";
import { cpuAffinityPrefix } from "../../runtime/cpu-affinity";
import { ChainStartError, nodeStopper, prioritizeNode, type ChainNodeProcess } from "./node-process";

const READY_LINE = /Listening on ([0-9.]+):(\d+)/;

/** The platform package's name for this machine (Foundry publishes linux/darwin x64+arm64, win32 x64). */
export function anvilPlatformPackage(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): string | undefined {
  const cpu = arch === "x64" ? "amd64" : arch === "arm64" ? "arm64" : undefined;
  if (!cpu || !["linux", "darwin", "win32"].includes(platform) || (platform === "win32" && cpu !== "amd64"))
    return undefined;
  return `@foundry-rs/anvil-${platform}-${cpu}`;
}

/**
 * The Anvil binary: the platform package's `bin/anvil`, or the copy @foundry-rs/anvil's own postinstall
 * downloads beside itself when the platform package is missing. Throws a ChainStartError naming the
 * package to install when neither is there or the file is not executable.
 */
export function anvilBinary(resolveFrom: string = REPO_ROOT): string {
  const pkg = anvilPlatformPackage();
  const exe = process.platform === "win32" ? "anvil.exe" : "anvil";
  const candidates: string[] = [];
  const tryResolve = (request: string) => {
    try {
      candidates.push(require.resolve(request, { paths: [resolveFrom] }));
    } catch {
      // not installed
    }
  };
  if (pkg) tryResolve(`${pkg}/bin/${exe}`);
  try {
    candidates.push(
      path.join(path.dirname(require.resolve("@foundry-rs/anvil/package.json", { paths: [resolveFrom] })), exe),
    );
  } catch {
    // not installed
  }
  for (const file of candidates) {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // missing or not executable: the next one
    }
  }
  const wanted = pkg ?? `an Anvil binary for ${process.platform}-${process.arch} (Foundry publishes none)`;
  throw new ChainStartError(
    `CHAIN_NODE=anvil: the Anvil binary was not found or is not executable (looked in: ${candidates.join(", ") || "nothing installed"}); ` +
      `install ${wanted} (npm install --no-save ${pkg ?? "<platform package>"}@1.7.1) or set CHAIN_NODE=hardhat`,
  );
}

export interface AnvilNodeOptions {
  chainId: number;
  genesisTimestampS: number;
  readyTimeoutMs?: number;
  cpus?: string;
  /** a state file to load before listening (a snapshot: scripts/chain/snapshot.ts) */
  loadStateFile?: string;
}

/** The flags every Anvil of ours runs with (the stack's and a test's "external" node): Hardhat's chain id,
 *  accounts, gas limit and hardfork, no request size limit, no colours. */
export function anvilNodeArgs(chainId: number): string[] {
  return [
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--chain-id",
    String(chainId),
    "--gas-limit",
    "60000000",
    "--hardfork",
    "osaka",
    "--mnemonic",
    HARDHAT_DEV_MNEMONIC,
    "--accounts",
    "20",
    "--balance",
    "10000",
    "--disable-default-create2-deployer",
    // requests over 2 MB (large anvil_setCode / anvil_loadState calls) are not refused (snapshots load by --load-state)
    "--no-request-size-limit",
    "--color",
    "never",
  ];
}

/** Anvil's flags for a node that matches the Hardhat nodes: the common ones, its genesis time, no automining,
 *  a bounded state history. */
export function anvilArgs(options: AnvilNodeOptions): string[] {
  return [
    ...anvilNodeArgs(options.chainId),
    "--timestamp",
    String(options.genesisTimestampS),
    "--no-mining",
    // the state of the last 64 blocks in memory, none written to disk: the default also persists older states
    // to disk, 2.95-3.11 vs 1.95-2.19 CPU-ms of the node a block (measured, docs/measurements.md 2026-11-24
    // B2); nothing here reads state further back (the settle sender's replay of a revert reads block - 1)
    "--prune-history",
    "64",
    ...(options.loadStateFile ? ["--load-state", options.loadStateFile] : []),
  ];
}

export function spawnAnvilNode(options: AnvilNodeOptions): Promise<ChainNodeProcess> {
  const binary = anvilBinary();
  const pin = cpuAffinityPrefix(options.cpus);
  const child = spawn(pin[0] ?? binary, [...pin.slice(1), ...(pin.length ? [binary] : []), ...anvilArgs(options)], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    // its own process group, as the Hardhat nodes: a terminal's Ctrl-C reaches npm start only
    detached: true,
  });
  // A Rust binary cannot preload exit-with-parent.cjs: a shell watchdog holds a pipe from us and ends the
  // node when that pipe closes (this process died, even by SIGKILL). Stopped with the node.
  const watchdog =
    child.pid === undefined
      ? undefined
      : spawn(
          "/bin/sh",
          [
            "-c",
            'while read -r _; do :; done; kill -TERM "$1" 2>/dev/null; sleep 3; kill -KILL "$1" 2>/dev/null',
            "anvil-watchdog",
            String(child.pid),
          ],
          {
            stdio: ["pipe", "ignore", "ignore"],
            detached: true,
          },
        );
  watchdog?.on("error", () => undefined);
  watchdog?.unref();
  prioritizeNode(child);
  const { exited, stop } = nodeStopper(child);
  void exited.then(() => watchdog?.kill("SIGKILL"));
  let output = "";

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop(0);
      reject(new ChainStartError(`anvil (chain ${options.chainId}) not ready in time:\n${output.slice(-2000)}`));
    }, options.readyTimeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-8_000);
      const m = READY_LINE.exec(output);
      if (!m) return;
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stdout?.resume();
      const rpcUrl = `http://127.0.0.1:${m[2]}`;
      resolve({ kind: "anvil", rpcUrl, wsUrl: `ws://127.0.0.1:${m[2]}`, pid: child.pid!, child, stop });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (c: Buffer) => {
      output = (output + c.toString("utf8")).slice(-8_000);
    });
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(new ChainStartError(`anvil (chain ${options.chainId}) could not start: ${e.message}`));
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(
        new ChainStartError(`anvil (chain ${options.chainId}) exited (${code ?? signal}):\n${output.slice(-2000)}`),
      );
    });
  });
}
