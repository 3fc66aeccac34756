// The two bridge tenants of the bridge API's tests (a native one at host A, a custody one at host B) and the
// chain endpoints the API is started with; initiation reads no chain, and a signed read that is not an
// EOA's asks the home chain, where no contract wallet vouches for it.
import pino from "pino";
import type { PublicClient } from "viem";
import { createDb, type Db } from "../../db";
import { BRIDGE_ABIS } from "../../sdk/bridge-abi";
import { startBridgeApi, type RunningBridgeApi } from "../bridge/server";
import { custodyTenant, nativeTenant } from "../bridge/seed";
import { createTenantStore } from "../bridge/tenants";
import { suiteResource } from "./suite-resource";

export const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as `0x${string}`;

const info = (bridge: string, base: number, keyEpoch: number) => ({
  bridge,
  home: { chainId: 31337, vault: addr(base + 1) },
  remote: { chainId: 31338, minter: addr(base + 2) },
  tokens: [{ symbol: "USD", home: addr(base + 3), wrapped: addr(base + 4), decimals: 6 }],
  keyEpoch,
});

/** A home chain on which no contract wallet vouches for a signature (ERC-1271 answers false). */
const noContractWallets = { verifyMessage: async () => false } as unknown as PublicClient;

const endpoint = (base: number) => ({
  home: { chainId: 31337, vault: addr(base + 1), publicClient: noContractWallets },
  remote: { chainId: 31338, minter: addr(base + 2), publicClient: {} as PublicClient },
});

/** The tenants to seed: `native` served at `hostA`, `custody` at `hostB`. */
export function testTenants(hostA: string, hostB: string) {
  return [nativeTenant(info("native", 0xa00, 1), [hostA]), custodyTenant(info("custody", 0xb00, 2), [hostB])];
}

/** `startBridgeApi`'s `bridges` for those tenants. */
export function testBridgeEndpoints() {
  return { native: endpoint(0xa00), custody: endpoint(0xb00) };
}

/** The bridge API on a free port over `db` (seeded with `testTenants`), with these endpoints and no relayer progress. */
export function startTestBridgeApi(db: Db): Promise<RunningBridgeApi> {
  return startBridgeApi({
    port: 0,
    db,
    logger: pino({ level: "silent" }),
    abis: BRIDGE_ABIS,
    bridges: testBridgeEndpoints(),
    relayedTransfers: { get: async () => undefined },
  });
}

/** A test file's bridge API on an in-memory database of its own with the tenants `a` and `b` (testTenants):
 *  started before the file's tests (both handed to `ready`), stopped after them. */
export function fileBridgeApi(a: string, b: string, ready: (s: { db: Db; api: RunningBridgeApi }) => void): void {
  suiteResource(
    async () => {
      const db = await createDb();
      try {
        await createTenantStore(db).seed(testTenants(a, b));
        return { db, api: await startTestBridgeApi(db) };
      } catch (e) {
        await db.close();
        throw e;
      }
    },
    async (s) => {
      await s.api.stop();
      await s.db.close();
    },
    async (s) => ready(s),
  );
}
