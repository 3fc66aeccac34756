// A BatchSettled log's trades, read from the input of the transaction that emitted it: the log carries only the
// batch's id, trade count and fee rates, and the trades are the fills of that call (sdk/settled-trades.ts,
// READER-API.md). One function for Ponder's handler (src/settlement.ts) and the hot front (hot/), so both
// apply the same rule and turn the same trades into the same rows.
import { createOrderDigester, getDomainSeparator } from "../../runtime/order-digest";
import {
  type BatchSettledArgs,
  type OrderHasherFactory,
  type SettlementDomain,
  settledTradesOfCall,
} from "../../sdk/settled-trades";
import type { BatchTrade } from "./batchRows";
import type { Hex } from "./trades";

/** Orders hashed by the pipeline's native-keccak digester, not the sdk's portable one: the hot front hashes
 *  every order of every batch. */
const nativeHasher: OrderHasherFactory = (domain) => createOrderDigester(getDomainSeparator(domain));

/** The transaction that emitted a BatchSettled log: whom it called, with what. */
export interface EmittingCall {
  to: string | null;
  input: Hex;
}

/**
 * The batch's trades (hashes and addresses lowercase, with the log's index), decoded by the sdk from the call's
 * input. The direct-call rule: the transaction must call the settlement itself (its `to`), else the input is
 * not the batch and this throws; so does an input that is not a settle/settlePacked call of this batch with
 * `tradeCount` fills (the sdk's checks).
 */
export function batchTradesOfCall(
  call: EmittingCall,
  event: BatchSettledArgs,
  logIndex: number,
  domain: SettlementDomain,
): BatchTrade[] {
  if (call.to === null || call.to.toLowerCase() !== domain.settlement.toLowerCase())
    throw new Error(
      `BatchSettled ${event.batchId}: its transaction calls ${call.to ?? "no contract"}, not the settlement ${domain.settlement} (a batch is read from a direct call only)`,
    );
  // (the sdk gives hashes and addresses lowercase, as the rows store them)
  return settledTradesOfCall(call.input, event, domain, nativeHasher).map((t) => ({ ...t, logIndex }));
}
