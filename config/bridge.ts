// Bridge settings read from the environment (by config/index.ts only): how many blocks deep a source
// event must be before the relayer and the signer nodes act on it, per chain.
//
// `BRIDGE_CONFIRMATIONS_<chainId>=<blocks>` sets a chain's value. Without one, the local development
// chains (31337 home, 31338 remote: Hardhat, one block per transaction, no reorgs) need 0, and every other
// chain DEFAULT_BRIDGE_CONFIRMATIONS: 64 blocks is two Ethereum epochs, after which a post-merge block is
// finalized; a chain with faster or slower finality should get its own value.

/** Chains that finalize every block at once (local Hardhat nodes). */
export const INSTANT_FINALITY_CHAIN_IDS: readonly number[] = [31337, 31338];
/** Blocks on top of an event before it is acted on, for a chain with no explicit setting. */
export const DEFAULT_BRIDGE_CONFIRMATIONS = 64;
const MAX_CONFIRMATIONS = 100_000;
const VARIABLE = /^BRIDGE_CONFIRMATIONS_(\d+)$/;

/** The confirmations a chain needs when none is configured. */
export function defaultBridgeConfirmations(chainId: number): number {
  return INSTANT_FINALITY_CHAIN_IDS.includes(chainId) ? 0 : DEFAULT_BRIDGE_CONFIRMATIONS;
}

/** The configured value for `chainId`, else its default. */
export function bridgeConfirmationsFor(
  confirmations: Readonly<Record<number, number>> | undefined,
  chainId: number,
): number {
  const given = confirmations?.[chainId];
  return given === undefined ? defaultBridgeConfirmations(chainId) : given;
}

/** Every `BRIDGE_CONFIRMATIONS_<chainId>` of `env`; throws an Error naming the bad variable. */
export function parseBridgeConfirmations(env: Record<string, string | undefined>): Record<number, number> {
  const out: Record<number, number> = {};
  for (const [name, raw] of Object.entries(env)) {
    const m = VARIABLE.exec(name);
    if (!m || raw === undefined || raw === "") continue;
    const chainId = Number(m[1]);
    if (!Number.isSafeInteger(chainId) || chainId <= 0)
      throw new Error(`${name}: the chain id must be a positive integer`);
    if (!/^\d+$/.test(raw.trim()) || Number(raw) > MAX_CONFIRMATIONS)
      throw new Error(`${name}: expected a whole number of blocks from 0 to ${MAX_CONFIRMATIONS}`);
    out[chainId] = Number(raw);
  }
  return out;
}
