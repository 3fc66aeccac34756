// The texts a wallet signs for the bridge and the headers that carry a signed read: shared by the bridge API
// (../transfer-link.ts, ../wallet-read.ts) and the portal's page (main.ts), so both sides sign and check
// the same bytes. No imports: the page bundles it.

/** The EIP-191 message the transfer's declared sender signs to link its deposit or burn transaction. */
export const transferLinkMessage = (id: string, txHash: string): string =>
  `Link bridge transfer ${id.toLowerCase()} to transaction ${txHash.toLowerCase()}`;

/** The EIP-191 message a wallet signs to read its transfers on one tenant's bridge until `validUntil`. */
export const walletReadMessage = (tenantId: string, address: string, validUntil: string): string =>
  `Read my bridge transfers\nTenant: ${tenantId}\nWallet: ${address.toLowerCase()}\nValid until: ${validUntil}`;

/** The request headers of a signed read: the wallet, the end of its validity (ISO 8601 UTC), its signature. */
export const WALLET_READ_HEADERS = {
  address: "x-wallet-address",
  validUntil: "x-wallet-valid-until",
  signature: "x-wallet-signature",
} as const;

/** The longest a signed read may be valid for (7 days). */
export const WALLET_READ_MAX_MS = 7 * 24 * 3600_000;
