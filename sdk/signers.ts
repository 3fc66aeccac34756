// One signer shape for the SDK, made from a viem account or wallet client, or an ethers v6 signer (Wallet,
// JsonRpcSigner, ...): the EIP-712 typed data of orders and agent approvals, and the EIP-191 messages of
// wallet-signed requests. The ethers side is structural (no import of ethers): the SDK does not depend on it.
import type { Account, Address, Hex, LocalAccount, TypedDataDomain, WalletClient } from "viem";

export interface TypedDataField {
  name: string;
  type: string;
}

export interface TypedDataRequest {
  domain: TypedDataDomain;
  types: Record<string, readonly TypedDataField[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

/** What the SDK signs with. */
export interface TradingSigner {
  getAddress(): Promise<Address>;
  /** EIP-712 typed data (the domain's type is implied, never listed in `types`) */
  signTypedData(req: TypedDataRequest): Promise<Hex>;
  /** EIP-191 personal message over these exact bytes */
  signMessage(raw: Uint8Array): Promise<Hex>;
}

/** The part of an ethers v6 Signer the SDK uses. */
export interface EthersSignerLike {
  getAddress(): Promise<string>;
  signTypedData(
    domain: Record<string, unknown>,
    types: Record<string, TypedDataField[]>,
    value: Record<string, unknown>,
  ): Promise<string>;
  signMessage(message: string | Uint8Array): Promise<string>;
}

function withoutDomainType(types: Record<string, readonly TypedDataField[]>): Record<string, TypedDataField[]> {
  const { EIP712Domain: _domain, ...rest } = types;
  return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, [...v]]));
}

/** A viem local account (privateKeyToAccount, mnemonicToAccount, ...) or a wallet client with an account. */
export function fromViem(signer: LocalAccount | WalletClient): TradingSigner {
  if ("type" in signer && signer.type === "local") {
    const account = signer as LocalAccount;
    return {
      getAddress: async () => account.address,
      signTypedData: (req) =>
        account.signTypedData({ ...req, types: withoutDomainType(req.types) } as Parameters<
          LocalAccount["signTypedData"]
        >[0]),
      signMessage: (raw) => account.signMessage({ message: { raw } }),
    };
  }
  const client = signer as WalletClient;
  const account = client.account as Account | undefined;
  if (!account) throw new Error("fromViem: the wallet client has no account");
  return {
    getAddress: async () => account.address,
    signTypedData: (req) =>
      client.signTypedData({ ...req, types: withoutDomainType(req.types), account } as Parameters<
        WalletClient["signTypedData"]
      >[0]),
    signMessage: (raw) => client.signMessage({ account, message: { raw } }),
  };
}

/** An ethers v6 signer (`new Wallet(key)`, `await provider.getSigner()`, ...). */
export function fromEthers(signer: EthersSignerLike): TradingSigner {
  return {
    getAddress: async () => (await signer.getAddress()) as Address,
    signTypedData: async (req) =>
      (await signer.signTypedData(
        req.domain as Record<string, unknown>,
        withoutDomainType(req.types),
        req.message,
      )) as Hex,
    signMessage: async (raw) => (await signer.signMessage(raw)) as Hex,
  };
}
