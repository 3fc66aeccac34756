// The shapes the portal's page reads from the bridge API (/api/tenant, /portal/config.json, the transfer
// routes) and keeps itself (the history entries, the connected wallet).
import type { Address, Hex } from "viem";
import type { BridgeTransfer } from "../../../sdk/bridge-client";

export interface TenantToken {
  symbol: string;
  address: Address;
  decimals: number;
  homeToken?: Address;
}
export interface TenantChain {
  chainId: number;
  name: string;
  role: "home" | "remote";
  /** a block explorer's base URL (the tenant's configuration): transactions link to `<explorerUrl>/tx/<hash>` */
  explorerUrl?: string;
  contracts: Record<string, Address>;
  tokens: TenantToken[];
}
export interface Tenant {
  tenantId: string;
  name: string;
  mpcMode: string;
  chains: TenantChain[];
  signing: { threshold?: string };
}
export interface PortalConfig {
  mode: "sandbox" | "production";
  devWalletKeys: Hex[];
  /** blocks on top of a deposit or burn before the relayer acts, per chain id */
  confirmations: Record<string, number>;
}
export interface Call {
  step: string;
  chainId: number;
  to: Address;
  value: string;
  data: Hex;
}
/** A transfer as the bridge API answers it (the SDK's type), without the fields the page does not read. */
export type TransferView = Omit<BridgeTransfer, "tenantId" | "nonce">;
export interface HistoryEntry {
  id: string;
  /** the transfer's capability, in the browser that started it; a transfer listed by the server has none */
  accessToken?: string;
  direction: "deposit" | "withdrawal";
  symbol: string;
  amount: string;
  decimals: number;
  sender: Address;
  recipient: Address;
  at: string;
  /** the status last read from the server (history list) */
  status?: string;
  /** the page's own progress before the API knows the transaction */
  sent?: Record<string, Hex>;
  sourceBlock?: string;
  sourceChainId?: number;
}
export interface Wallet {
  label: string;
  address: Address;
  send(call: Call): Promise<Hex>;
  signMessage(message: string): Promise<Hex>;
}
/** What every part of the page reads: the tenant's configuration, resolved once at start. */
export interface Portal {
  tenant: Tenant;
  config: PortalConfig;
  home: TenantChain;
  remote: TenantChain;
}
