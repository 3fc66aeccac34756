// Tenants per hostname, in SQL. A tenant's configuration (name, branding, chains with contract addresses,
// signing mode) is served only for its own hostnames; the Host header decides which tenant a request
// belongs to.
import { z } from "zod";
import type { Db } from "../../db";
import { systemClock, type Clock } from "../../runtime/clock";
import { BridgeApiError } from "./errors";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected an address");

export const tenantConfigSchema = z.object({
  tenantId: z.string().regex(/^[a-z0-9-]{1,40}$/),
  name: z.string().min(1).max(80),
  /** the spec's "MPC mode": native (FROST cluster), custody (a custody provider), custom */
  mpcMode: z.enum(["native", "custody", "custom"]),
  /** which bridge deployment (vault/minter pair) serves this tenant */
  bridge: z.string().min(1),
  branding: z.object({
    primaryColor: z.string().regex(/^#[0-9a-fA-F]{6}$/),
    accentColor: z.string().regex(/^#[0-9a-fA-F]{6}$/),
    backgroundColor: z.string().regex(/^#[0-9a-fA-F]{6}$/),
    logoText: z.string().min(1).max(12),
    tagline: z.string().max(120).default(""),
  }),
  chains: z.array(
    z.object({
      chainId: z.number().int().positive(),
      /** the chain's name as the tenant's users know it, shown everywhere the portal names the chain */
      name: z.string().min(1).max(60),
      role: z.enum(["home", "remote"]),
      rpcUrl: z.string().url().optional(),
      /** a block explorer's base URL: the portal links `<explorerUrl>/tx/<hash>` and `/address/<address>` */
      explorerUrl: z
        .string()
        .url()
        .regex(/^https?:\/\/[^?#]*[^/?#]$/, "an http(s) URL without a trailing slash, query or fragment")
        .optional(),
      contracts: z.record(z.string(), address),
      tokens: z.array(
        z.object({
          symbol: z.string(),
          address,
          decimals: z.number().int().min(0).max(255),
          homeToken: address.optional(),
        }),
      ),
    }),
  ),
  signing: z.object({
    verifier: z.string(),
    verifierAddress: address.optional(),
    keyEpoch: z.number().int().positive(),
    threshold: z.string().optional(),
    custodySigner: address.optional(),
  }),
});
export type TenantConfig = z.infer<typeof tenantConfigSchema>;
export type TenantSeed = TenantConfig & { hostnames: string[] };

export const hostnameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9.-]{1,253}$/, "expected a hostname");

/** `Host: tenant-a.test:3002` -> `tenant-a.test` (IPv6 literals keep their brackets' content). */
export function hostnameOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]"));
  return h.split(":")[0] || undefined;
}

/** A hostname's tenant is cached for 5 s of `clock` (default: the system clock). */
export function createTenantStore(db: Db, { clock = systemClock }: { clock?: Clock } = {}) {
  const cache = new Map<string, { at: number; tenant: TenantConfig | undefined }>();
  return {
    async seed(tenants: TenantSeed[]): Promise<void> {
      for (const t of tenants) {
        const { hostnames, ...config } = t;
        const valid = tenantConfigSchema.parse(config);
        for (const host of hostnames)
          await db.query(
            `INSERT INTO bridge_tenants (hostname, tenant_id, name, signing_mode, bridge, config) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (hostname) DO UPDATE SET tenant_id = EXCLUDED.tenant_id, name = EXCLUDED.name, signing_mode = EXCLUDED.signing_mode,
               bridge = EXCLUDED.bridge, config = EXCLUDED.config, updated_at = now()`,
            [
              hostnameSchema.parse(host),
              valid.tenantId,
              valid.name,
              valid.mpcMode,
              valid.bridge,
              JSON.stringify(valid),
            ],
          );
      }
      cache.clear();
    },
    async byHostname(hostname: string): Promise<TenantConfig | undefined> {
      const hit = cache.get(hostname);
      if (hit && clock.now() - hit.at < 5_000) return hit.tenant;
      const r = await db.query<{ config: TenantConfig | string }>(
        "SELECT config FROM bridge_tenants WHERE hostname = $1",
        [hostname],
      );
      const raw = r.rows[0]?.config;
      const tenant =
        raw === undefined ? undefined : tenantConfigSchema.parse(typeof raw === "string" ? JSON.parse(raw) : raw);
      cache.set(hostname, { at: clock.now(), tenant });
      return tenant;
    },
    /** The tenant the request's Host names; unknown hostnames are a clear 404. */
    async require(hostname: string | undefined): Promise<TenantConfig> {
      const tenant = hostname ? await this.byHostname(hostname) : undefined;
      if (!tenant)
        throw new BridgeApiError(
          "TENANT_NOT_FOUND",
          `no bridge tenant is configured for hostname ${hostname ?? "(none)"}`,
          { hostname: hostname ?? null },
        );
      return tenant;
    },
  };
}
export type TenantStore = ReturnType<typeof createTenantStore>;
