// The TypeScript twin of the Settlement contract's EIP-712 types (contracts/exchange/libraries/OrderHashing.sol).
// The matcher, the batcher and the API build, hash and sign orders with this module only; a Hardhat test
// (test/contracts/exchange/eip712-twin.test.ts) proves the type hashes, domain separator and order hashes
// equal the contract's.
import {
  domainSeparator,
  hashTypedData,
  keccak256,
  toBytes,
  type Account,
  type Address,
  type Hex,
  type LocalAccount,
  type TypedDataDomain,
  type WalletClient,
} from "viem";

/** Order side as signed: 0 = buy base, 1 = sell base. */
export const OrderSide = { BUY: 0, SELL: 1 } as const;
export type OrderSide = (typeof OrderSide)[keyof typeof OrderSide];

/** Order flag bits. POST_ONLY: the order may only be the maker of a fill. Other bits must be 0. */
export const OrderFlags = { NONE: 0, POST_ONLY: 1 } as const;

/** The post-only rule, the one place it is written for the signed order's flags: a `limit_maker` order, or
 *  one whose time in force is `post_only` (the API's spelling), may only be the maker of a fill. */
export function isPostOnly(type: string | undefined, timeInForce: string | undefined): boolean {
  return type === "limit_maker" || timeInForce === "post_only";
}

/** The signed order's flags for an order of this type and time in force (OrderFlags). */
export function orderFlagsFor(type: string, timeInForce: string): number {
  return isPostOnly(type, timeInForce) ? OrderFlags.POST_ONLY : OrderFlags.NONE;
}

/** A price is quote-token base units per PRICE_SCALE base-token base units. */
export const PRICE_SCALE = 10n ** 18n;
/** Fees are in basis points of what each party receives, rounded up. */
export const BPS = 10_000n;
/** Smallest base amount and smallest quote amount of one fill, in base units (Settlement.MIN_FILL_UNITS): a fee
 *  rounds up by at most one unit, so this bounds the round-up to 0.01 % of a fill. */
export const MIN_FILL_UNITS = 10_000n;
/** Most an agent may raise its trader's minimum nonce by in one cancelAllBelowFor (Settlement constant). */
export const MAX_AGENT_MIN_NONCE_STEP = 2n ** 32n;
/** keccak256("OPERATOR_ROLE"): the Settlement role allowed to call settle. */
export const OPERATOR_ROLE: Hex = "0x97667070c54ef182b0f5858b034beac1b6f3089aa2d3188bb1e8929f4fa9b929";

/** An order exactly as signed. All integers are bigint except side and flags (uint8). */
export type Order = {
  trader: Address;
  baseToken: Address;
  quoteToken: Address;
  side: OrderSide;
  /** quote base units per 1e18 base base units */
  price: bigint;
  /** base-token base units */
  amount: bigint;
  /** unix seconds; dead from this second on */
  expiry: bigint;
  /** per-trader bitmap nonce, Permit2-style but two bits per nonce (NonceBitmap.sol): word = nonce / 127, bits 2 * (nonce % 127) */
  nonce: bigint;
  flags: number;
};

export type AgentApproval = {
  trader: Address;
  agent: Address;
  /** unix seconds, exclusive */
  expiry: bigint;
  /** the trader's current `nonces(trader)` on the contract */
  nonce: bigint;
  /** unix seconds after which the approval may no longer be submitted */
  deadline: bigint;
};

/** The agent's own signed renouncement of its approval (Settlement.renounceAgentWithSig); anyone may submit it. */
export type AgentRenouncement = {
  trader: Address;
  agent: Address;
  /** the agent's current `nonces(agent)` on the contract: used up on submission */
  nonce: bigint;
  /** unix seconds; the last second at which it may be submitted */
  deadline: bigint;
};

export const SETTLEMENT_DOMAIN_NAME = "Settlement";
export const SETTLEMENT_DOMAIN_VERSION = "1";

export const ORDER_TYPES = {
  Order: [
    { name: "trader", type: "address" },
    { name: "baseToken", type: "address" },
    { name: "quoteToken", type: "address" },
    { name: "side", type: "uint8" },
    { name: "price", type: "uint256" },
    { name: "amount", type: "uint256" },
    { name: "expiry", type: "uint64" },
    { name: "nonce", type: "uint256" },
    { name: "flags", type: "uint8" },
  ],
} as const;

export const AGENT_APPROVAL_TYPES = {
  AgentApproval: [
    { name: "trader", type: "address" },
    { name: "agent", type: "address" },
    { name: "expiry", type: "uint64" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint64" },
  ],
} as const;

export const AGENT_RENOUNCEMENT_TYPES = {
  AgentRenouncement: [
    { name: "trader", type: "address" },
    { name: "agent", type: "address" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint64" },
  ],
} as const;

export interface SettlementDomain extends TypedDataDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}

export function getSettlementDomain(chainId: number | bigint, verifyingContract: Address): SettlementDomain {
  return {
    name: SETTLEMENT_DOMAIN_NAME,
    version: SETTLEMENT_DOMAIN_VERSION,
    chainId: Number(chainId),
    verifyingContract,
  };
}

function encodeType(types: Record<string, readonly { name: string; type: string }[]>, primary: string): string {
  return `${primary}(${types[primary]!.map((f) => `${f.type} ${f.name}`).join(",")})`;
}

/** keccak256 of the EIP-712 type string of Order (equal to OrderHashing.ORDER_TYPEHASH). */
export function getOrderTypeHash(): Hex {
  return keccak256(toBytes(encodeType(ORDER_TYPES, "Order")));
}

/** keccak256 of the EIP-712 type string of AgentApproval. */
export function getAgentApprovalTypeHash(): Hex {
  return keccak256(toBytes(encodeType(AGENT_APPROVAL_TYPES, "AgentApproval")));
}

/** keccak256 of the EIP-712 type string of AgentRenouncement (OrderHashing.AGENT_RENOUNCEMENT_TYPEHASH). */
export function getAgentRenouncementTypeHash(): Hex {
  return keccak256(toBytes(encodeType(AGENT_RENOUNCEMENT_TYPES, "AgentRenouncement")));
}

export function getDomainSeparator(domain: SettlementDomain): Hex {
  return domainSeparator({ domain });
}

/** The order hash: the EIP-712 digest the trader signs; the contract's id of the order everywhere. */
export function getOrderHash(domain: SettlementDomain, order: Order): Hex {
  return hashTypedData({ domain, types: ORDER_TYPES, primaryType: "Order", message: order });
}

export function getAgentApprovalHash(domain: SettlementDomain, approval: AgentApproval): Hex {
  return hashTypedData({ domain, types: AGENT_APPROVAL_TYPES, primaryType: "AgentApproval", message: approval });
}

export function getAgentRenouncementHash(domain: SettlementDomain, renouncement: AgentRenouncement): Hex {
  return hashTypedData({
    domain,
    types: AGENT_RENOUNCEMENT_TYPES,
    primaryType: "AgentRenouncement",
    message: renouncement,
  });
}

type Signer = LocalAccount | WalletClient;
type TypedDataArgs = Parameters<LocalAccount["signTypedData"]>[0];

async function signTyped(signer: Signer, args: TypedDataArgs): Promise<Hex> {
  if ("type" in signer && signer.type === "local") return (signer as LocalAccount).signTypedData(args);
  const client = signer as WalletClient;
  const account = client.account as Account | undefined;
  if (!account) throw new Error("signOrder: the wallet client has no account");
  return client.signTypedData({ ...args, account } as Parameters<WalletClient["signTypedData"]>[0]);
}

/** Signs `order` with a local account (the trader's key or its agent's) or a wallet client. */
export function signOrder(signer: Signer, domain: SettlementDomain, order: Order): Promise<Hex> {
  return signTyped(signer, { domain, types: ORDER_TYPES, primaryType: "Order", message: order });
}

/** Signs an AgentApproval with the trader's key; anyone (the operator) may submit it. */
export function signAgentApproval(signer: Signer, domain: SettlementDomain, approval: AgentApproval): Promise<Hex> {
  return signTyped(signer, {
    domain,
    types: AGENT_APPROVAL_TYPES,
    primaryType: "AgentApproval",
    message: approval,
  });
}

/** Signs an AgentRenouncement with the agent's key; anyone (the agent relayer) may submit it. */
export function signAgentRenouncement(
  signer: Signer,
  domain: SettlementDomain,
  renouncement: AgentRenouncement,
): Promise<Hex> {
  return signTyped(signer, {
    domain,
    types: AGENT_RENOUNCEMENT_TYPES,
    primaryType: "AgentRenouncement",
    message: renouncement,
  });
}

/** baseAmount * price / 1e18 when it divides exactly (as the contract demands), else null. */
export function quoteAmountFor(baseAmount: bigint, price: bigint): bigint | null {
  const product = baseAmount * price;
  if (product % PRICE_SCALE !== 0n) return null;
  return product / PRICE_SCALE;
}

/** ceil(amount * feeBps / 10_000): the fee the contract charges on `amount` received. */
export function feeFor(amount: bigint, feeBps: bigint | number): bigint {
  const bps = BigInt(feeBps);
  return (amount * bps + BPS - 1n) / BPS;
}
