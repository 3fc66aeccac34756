// The API process's side of an API-key placement on a partition: the partition's leader built the order (its
// nonce, its protection price) and asks this process to sign it with the caller's agent key, which never leaves
// this process. The agent signs only a canonical Order of the placement's trader, market and side, under the
// partition's own Settlement domain; anything else is refused.
import type { Hex, LocalAccount } from "viem";
import type { z } from "zod";
import { getDomainSeparator, ORDER_TYPES } from "../../sdk/eip712";
import { createOrderDigester } from "../../runtime/order-digest";
import type { Order } from "../order";
import type { DexService, MarketSpec } from "../service";
import { orderMessageSchema, type signRequestSchema } from "./wire";

/** What an API-key placement waiting for its signature knows of itself. */
export interface AwaitingSignature {
  agent: LocalAccount;
  /** lower case */
  trader: string;
  symbol: string;
  side: string;
}

export interface PartitionFacts {
  domain: DexService["settlementDomain"];
  markets: MarketSpec[];
}

type TypedData = z.infer<typeof signRequestSchema>["typedData"];
export type SignAnswer = { signature: Hex } | { refused: string };

const same = (a: unknown, b: string) => typeof a === "string" && a.toLowerCase() === b.toLowerCase();

/** Why `td` is not the placement's canonical order under the partition's domain; null when it is. */
export function refusalOf(p: AwaitingSignature, facts: PartitionFacts, td: TypedData): string | null {
  const msg = td.message as Record<string, unknown>;
  const d = facts.domain;
  if (
    td.primaryType !== "Order" ||
    !same(td.domain.verifyingContract, d.verifyingContract) ||
    td.domain.chainId !== d.chainId
  )
    return "not an order of this exchange";
  if (!same(msg.trader, p.trader)) return "not the placement's trader";
  const m = facts.markets.find((x) => x.symbol === p.symbol);
  if (
    !m ||
    !same(msg.baseToken, m.baseToken) ||
    !same(msg.quoteToken, m.quoteToken) ||
    msg.side !== (p.side === "buy" ? 0 : 1)
  )
    return "not the placement's market or side";
  // exactly the canonical Order type under exactly the partition's domain: what the native signer signs
  const types = Object.keys(td.types).filter((k) => k !== "EIP712Domain");
  if (
    !orderMessageSchema.safeParse(msg).success ||
    types.length !== 1 ||
    JSON.stringify(td.types.Order) !== JSON.stringify(ORDER_TYPES.Order) ||
    td.domain.name !== d.name ||
    td.domain.version !== d.version
  )
    return "not a canonical order";
  return null;
}

/** One order digester per domain (made again if the partition names another). */
let digest: { key: string; of: (o: Order) => Hex } | null = null;
function digester(d: PartitionFacts["domain"]): (o: Order) => Hex {
  const key = `${d.name}|${d.version}|${d.chainId}|${d.verifyingContract.toLowerCase()}`;
  if (digest?.key !== key) digest = { key, of: createOrderDigester(getDomainSeparator(d)) };
  return digest.of;
}

/** The agent's signature of the placement's order, or why not. */
export async function signForPartition(
  p: AwaitingSignature | undefined,
  facts: PartitionFacts | null,
  td: TypedData,
): Promise<SignAnswer> {
  if (!p || !facts) return { refused: "no placement awaits a signature" };
  const why = refusalOf(p, facts, td);
  if (why) return { refused: why };
  // an API key's agent (agent-signer.ts) signs the order's digest natively (tens of µs; viem's signTypedData,
  // pure JS, took ~half of an API process's CPU under bench:e2e's API-key orders: docs/measurements.md)
  const agent = p.agent as LocalAccount & { signDigest?: (digest: Hex) => Hex };
  try {
    if (agent.signDigest)
      return { signature: agent.signDigest(digester(facts.domain)(orderMessageSchema.parse(td.message))) };
    return { signature: await p.agent.signTypedData(td as never) };
  } catch (e) {
    return { refused: String(e) };
  }
}
