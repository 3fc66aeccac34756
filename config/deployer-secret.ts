// The deployer's private key is the contracts' admin (Settlement's DEFAULT_ADMIN_ROLE; the owner of the
// bridge's guardian Safes). It is a provisioning secret: only the short-lived provisioning child
// (scripts/stack/provision.ts: deploy, role grants, demo mints, bridge deploy) signs with it. The serving
// process parses nothing but the deployer's address into its `Config`, takes the variable out of its own
// environment at start (`DeployerSecret.takeFrom(process.env)`) and passes it on to the child's
// environment only, until the provisioning is done (`dispose()`).
import { inspect } from "node:util";
import { privateKeyToAccount } from "viem/accounts";
import type { Address, Hex } from "viem";
import { DEV_ACCOUNT_ROLES, HARDHAT_DEV_PRIVATE_KEYS } from "./dev-accounts";
import { ConfigError } from "./errors";

export const DEPLOYER_KEY_VARIABLE = "DEPLOYER_PRIVATE_KEY";
const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

/** The deployer's key for the provisioning child: `DEPLOYER_PRIVATE_KEY`, else Hardhat dev account #0. */
export function loadDeployerKey(env: NodeJS.ProcessEnv): { readonly privateKey: Hex; readonly address: Address } {
  const raw = env[DEPLOYER_KEY_VARIABLE];
  const privateKey = (
    raw === undefined || raw === "" ? HARDHAT_DEV_PRIVATE_KEYS[DEV_ACCOUNT_ROLES.deployer] : raw
  ) as Hex;
  if (!PRIVATE_KEY.test(privateKey))
    throw new ConfigError(`invalid environment:\n  ${DEPLOYER_KEY_VARIABLE}: a 32-byte hex private key with 0x prefix`);
  return Object.freeze({ privateKey, address: privateKeyToAccount(privateKey).address });
}

/** The deployer's key in transit from the launcher's environment to a provisioning child's. */
export class DeployerSecret {
  #key: string | undefined;
  #disposed = false;

  private constructor(key: string | undefined) {
    this.#key = key;
  }

  /** Removes `DEPLOYER_PRIVATE_KEY` from `env` (the launcher passes `process.env`) and keeps it here. */
  static takeFrom(env: NodeJS.ProcessEnv): DeployerSecret {
    const raw = env[DEPLOYER_KEY_VARIABLE];
    delete env[DEPLOYER_KEY_VARIABLE];
    return new DeployerSecret(raw === undefined || raw === "" ? undefined : raw);
  }

  /** No key given: the provisioning child falls back to the dev key itself. */
  static none(): DeployerSecret {
    return new DeployerSecret(undefined);
  }

  /** What a provisioning child's environment gets; throws once disposed. */
  childEnv(): Record<string, string> {
    if (this.#disposed) throw new Error("DeployerSecret disposed: provisioning is over");
    return this.#key === undefined ? {} : { [DEPLOYER_KEY_VARIABLE]: this.#key };
  }

  /** Drops the key (provisioning is over); idempotent. */
  dispose(): void {
    this.#key = undefined;
    this.#disposed = true;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  toJSON(): string {
    return "[DeployerSecret]";
  }

  [inspect.custom](): string {
    return `DeployerSecret { ${this.#disposed ? "disposed" : "held"} }`;
  }
}
