// The matcher service's vocabulary: what its journal records carry, the orders it holds, the events it
// emits and what it is built from (pipeline/match/matcher-service.ts).
import type { Hex } from "viem";
import type { EngineEvent, OrderType, TimeInForce, TradeEvent } from "../../matcher/core/types";
import type { OpenRecordLog } from "../../matcher/journal";
import type { IntakeContext } from "../intake/intake";
import type { OrderLock } from "./ledger";
import type { MarketSpec } from "../markets";
import type { OrderJson, SignedOrder } from "../order";
import type { SettleableTrade } from "../settle/batcher";
import type { Clock } from "../../runtime/clock";
import type { ResaleExemption, ResaleUpdate } from "./resale";

/** What a journal record carries beside its command (the record's `m`): replay rebuilds the service from it. */ export interface JournalMeta {
  /** the signed order a place command carries */
  order?: OrderJson;
  signature?: `0x${string}`;
  /** extra facts the service needs on replay (e.g. the agent that signed, a cancel's reason) */
  signer?: string;
  reason?: string;
  /** a place command's deadline (ms): the matcher treats the order as dead from then on. Records written
   *  before this field carried it in `reason`; replay still reads them. */
  deadlineMs?: number;
  /** intent fields the API gave (client order id, api key id, ...) */
  info?: Record<string, unknown>;
  /** a change of the resale rule's facts (a `tick` record: applied after it, live and on replay) */
  resale?: ResaleUpdate;
  /** a place command's sell gives restricted units until this time (ms): the rule's input, kept with it */
  resaleUntilMs?: number;
}

/** A signed order the engine holds (open, held or finished but not yet forgotten). */
export interface LiveOrder {
  hash: Hex;
  signed: SignedOrder;
  market: MarketSpec;
  account: string;
  side: "buy" | "sell";
  /** as placed (the place command's) */
  type: OrderType;
  timeInForce: TimeInForce;
  sizeLots: bigint;
  limitPrice: bigint;
  remainingBase: bigint;
  lock: OrderLock;
  deadlineMs: number;
  /** GTD: when the engine expires it (ms); 0 = no GTD expiry. The expiry sweep ticks the engine then. */
  gtdExpiresAtMs: number;
  signer: string;
  acceptedSeq: number;
  info?: Record<string, unknown>;
  /** a sell on a restricted market: it gives restricted units until this time (ms; 0 or absent: free units) */
  resaleUntilMs?: number;
}

export type ServiceEvent =
  /** `order`: the signed order the event is about, when it has one; `reason`: why the pipeline cancelled
   *  (expired, withdrawal_unfunded, cancelled_on_chain, agent_revoked, or the caller's reason) */
  | { kind: "engine"; event: EngineEvent; order?: LiveOrder; reason?: string }
  | {
      kind: "trade";
      trade: SettleableTrade;
      event: TradeEvent;
      buyer: string;
      seller: string;
      baseToken: string;
      quoteToken: string;
      quoteAmount: bigint;
      buyerFee: bigint;
      sellerFee: bigint;
    }
  /** a matched trade that will never settle: one of its orders was rejected by the contract
   *  (`rejected`: those orders' hashes -> the contract error); its balance moves are undone */
  | { kind: "dropped"; trade: SettleableTrade; rejected: Record<string, string>; quoteAmount: bigint; ts: number };

/** A settle revert attributed to an order: the order and the contract's error name. */
export interface RejectedOrder {
  hash: Hex;
  error: string;
}

/** Prefix of the cancel reason of an order the contract refused (the owner sees `settlement_rejected:<error>`). */
export const SETTLEMENT_REJECTED = "settlement_rejected";

export interface FeeRates {
  makerFeeBps: bigint;
  takerFeeBps: bigint;
}

/** State kept beside the matcher's in its journal snapshots (the DEX service's orders and fills): taken at
 *  the snapshot's record index, restored before the records after it are replayed. JSON-safe. */
export interface SnapshotPart {
  snapshotState(): unknown;
  restoreSnapshot(state: unknown): void;
}

/** The journal takes no periodic snapshot by default, only one at a clean stop: a snapshot stops matching
 *  while the DEX state (every order and fill so far) is copied, and with one every 10,000 records
 *  bench:e2e fell from ~3,400 to ~2,300 signed orders/s (docs/measurements.md). Periodic snapshots wait
 *  for a state that does not grow with history (issue #13). */
export const DEFAULT_SNAPSHOT_EVERY = 0;

export interface MatcherServiceDeps {
  journalDir: string;
  /** opens the journal's record log (default: local files under journalDir; replicated: the partition's stream) */
  openLog?: OpenRecordLog;
  /** a journal snapshot (engine + this service's state + `snapshotParts`) after this many records; unset:
   *  DEFAULT_SNAPSHOT_EVERY (none). A snapshot is also taken at close() unless this is set to 0 explicitly
   *  (0 = never, not even at close: every start replays the whole journal). */
  snapshotEvery?: number;
  /** other state rebuilt from this service's events, kept in the same snapshots (by name) */
  snapshotParts?: Record<string, SnapshotPart>;
  markets: MarketSpec[];
  digest(order: SignedOrder["order"]): Hex;
  fees: FeeRates;
  expiryMarginMs: number;
  /** the pipeline's clock (default: the system clock): command timestamps, deadlines, the intake's now */
  clock?: Clock;
  fsync?: boolean;
  isValidContractSignature?: IntakeContext["isValidContractSignature"];
  /** threads that recover order signers off the matching thread (default 0: inline) */
  recoverThreads?: number;
  /** signers the API or the DEX service already established for an order (the composition root's one cache) */
  knownSigners?: IntakeContext["knownSigners"];
  /** called in trade order once the trade's command is durable */
  onDurableTrade?(t: SettleableTrade): void;
  /** the markets of restricted securities and who may receive their restricted units (Settlement.restrictedToken) */
  resaleExemptions?: ReadonlyMap<string, ResaleExemption>;
  /** until when (ms) a sell of `baseAmount` by `seller` on a restricted market gives restricted units, its
   *  open sells there (`offeredBase`) counted first (0: free units only; the registry's view at placement) */
  sellRestriction?(market: MarketSpec, seller: string, baseAmount: bigint, offeredBase: bigint): Promise<number>;
  logger?: { info(o: object, m?: string): void; warn(o: object, m?: string): void; error(o: object, m?: string): void };
}

export interface PlaceResult {
  hash: Hex;
  events: EngineEvent[];
  /** accepted = the engine took it (it may have traded or rested); rejected = the engine refused it */
  status: "accepted" | "rejected";
  rejectCode?: string;
}
