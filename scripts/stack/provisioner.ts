// The serving process's side of provisioning: each job runs in a fresh child (./provision.ts) that gets
// the deployer's key in its environment and nothing else of it. The serving process never holds the key
// in its config; it hands the `DeployerSecret` it took from its own environment to the children, and
// disposes of it once the stack's provisioning phase is over (before any component serves).
import { spawn } from "node:child_process";
import path from "node:path";
import type { Logger } from "pino";
import { REPO_ROOT, type DeployerSecret } from "../../config";
import { DEPLOYER_KEY_VARIABLE } from "../../config/deployer-secret";
import {
  provisionJobSchema,
  provisionResultSchema,
  RESULT_PREFIX,
  type ProvisionJob,
  type ProvisionResult,
} from "./provision-job";

export const PROVISION_ENTRY = path.join(REPO_ROOT, "scripts", "stack", "provision.ts");

export interface Provisioner {
  /** Runs one job in a new child process, after the jobs asked before it have ended (one at a time: one
   *  deployer nonce, one deployments file); rejects with the child's last log lines when it fails. */
  run(job: ProvisionJob): Promise<ProvisionResult>;
  /** The kinds of the jobs run so far, in order. */
  readonly runs: readonly string[];
}

export function createProvisioner(deps: { secret: DeployerSecret; logger: Logger }): Provisioner {
  const runs: string[] = [];
  let tail: Promise<unknown> = Promise.resolve();
  return {
    runs,
    // async: a bad job rejects (as a failed child does); the queue is joined before the first await
    async run(job) {
      provisionJobSchema.parse(job); // a bad job fails here, not after a process start
      const result = tail.then(() => runChild(deps, job, runs));
      tail = result.catch(() => undefined);
      return await result;
    },
  };
}

/** One job's child process: the deployer's key in its environment, the job on its stdin, its result read from
 *  its last stdout line. */
async function runChild(
  deps: { secret: DeployerSecret; logger: Logger },
  job: ProvisionJob,
  runs: string[],
): Promise<ProvisionResult> {
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  delete inherited[DEPLOYER_KEY_VARIABLE];
  const env = { ...inherited, ...deps.secret.childEnv() };
  runs.push(job.kind);
  const log = deps.logger.child({ provision: job.kind });
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", PROVISION_ENTRY], {
    cwd: REPO_ROOT,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => {
    err += c.toString();
    for (const line of c.toString().split("\n")) if (line.trim()) log.info(line.trim());
  });
  child.stdin.end(JSON.stringify(job));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (c) => resolve(c));
  });
  const line = out
    .split("\n")
    .reverse()
    .find((l) => l.startsWith(RESULT_PREFIX));
  if (code !== 0 || !line) {
    throw new Error(
      `provisioning (${job.kind}) failed, exit code ${code}: ${err.trim().split("\n").slice(-5).join(" | ")}`,
    );
  }
  log.info({ ms: Math.round(performance.now() - started) }, "provisioning child done");
  return provisionResultSchema.parse(JSON.parse(line.slice(RESULT_PREFIX.length)));
}
