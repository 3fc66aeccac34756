// The seeded tenants: "Aurora Bridge" (native: the FROST cluster) and "Harbor Custody" (custody: an
// ERC-1271 custody wallet behind BridgeErc1271Verifier), each on its own vault/minter pair.
import type { Address } from "viem";
import type { TenantSeed } from "./tenants";

/** A chain as the tenants' users see it: its name and, where one exists, its block explorer. */
export interface ChainDisplay {
  name?: string;
  explorerUrl?: string;
}

/** The sandbox's chains' names (its local nodes have no explorer). */
export const SANDBOX_CHAIN_NAMES = { home: "Sandbox L1", remote: "Sandbox L2" } as const;

export interface BridgeDeploymentInfo {
  bridge: string;
  home: { chainId: number; vault: Address; rpcUrl?: string; verifier?: Address } & ChainDisplay;
  remote: { chainId: number; minter: Address; rpcUrl?: string; verifier?: Address } & ChainDisplay;
  tokens: { symbol: string; home: Address; wrapped: Address; decimals: number }[];
  keyEpoch: number;
  custodySigner?: Address;
}

function chains(d: BridgeDeploymentInfo): TenantSeed["chains"] {
  const chain = (role: "home" | "remote", c: BridgeDeploymentInfo["home" | "remote"]) => ({
    chainId: c.chainId,
    name: c.name ?? SANDBOX_CHAIN_NAMES[role],
    role,
    rpcUrl: c.rpcUrl,
    explorerUrl: c.explorerUrl,
  });
  return [
    {
      ...chain("home", d.home),
      contracts: { vault: d.home.vault },
      tokens: d.tokens.map((t) => ({ symbol: t.symbol, address: t.home, decimals: t.decimals })),
    },
    {
      ...chain("remote", d.remote),
      contracts: { minter: d.remote.minter },
      tokens: d.tokens.map((t) => ({ symbol: t.symbol, address: t.wrapped, decimals: t.decimals, homeToken: t.home })),
    },
  ];
}

export function nativeTenant(d: BridgeDeploymentInfo, hostnames: string[]): TenantSeed {
  return {
    hostnames,
    tenantId: "aurora",
    name: "Aurora Bridge",
    mpcMode: "native",
    bridge: d.bridge,
    branding: {
      primaryColor: "#1d3fb8",
      accentColor: "#ffd23f",
      backgroundColor: "#eef2ff",
      logoText: "AUR",
      tagline: "3-of-5 FROST threshold signatures, natively",
    },
    chains: chains(d),
    signing: {
      verifier: "BridgeFrostVerifier",
      verifierAddress: d.remote.verifier,
      keyEpoch: d.keyEpoch,
      threshold: "3-of-5",
    },
  };
}

export function custodyTenant(d: BridgeDeploymentInfo, hostnames: string[]): TenantSeed {
  return {
    hostnames,
    tenantId: "harbor",
    name: "Harbor Custody Bridge",
    mpcMode: "custody",
    bridge: d.bridge,
    branding: {
      primaryColor: "#0f5132",
      accentColor: "#f28c28",
      backgroundColor: "#f3faf6",
      logoText: "HBR",
      tagline: "Transfers approved by your custody provider",
    },
    chains: chains(d),
    signing: {
      verifier: "BridgeErc1271Verifier",
      verifierAddress: d.remote.verifier,
      keyEpoch: d.keyEpoch,
      custodySigner: d.custodySigner,
    },
  };
}
