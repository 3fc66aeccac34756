// The read model of everything on chain. Money is always `t.bigint()` (numeric(78,0): token base units,
// exact); addresses and hashes are lowercase hex; times are block timestamps in seconds unless the
// column name says `Ms`. Ids of event rows are `${txHash}-${logIndex}`, unique and stable under replay; a
// trade's is `${txHash}-${logIndex}-${tradeIndex}` (one BatchSettled log carries its batch's trades).
import { index, onchainTable, primaryKey } from "ponder";

// ---- exchange (Settlement on the home chain) ----

export const trade = onchainTable(
  "trade",
  (t) => ({
    id: t.text().primaryKey(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    /** the trade's place in its batch (its BatchSettled log carries them all) */
    tradeIndex: t.integer().notNull(),
    batchId: t.bigint().notNull(),
    /** `BASE-QUOTE` from the deployments' token registry, else `0xbase-0xquote` */
    pair: t.text().notNull(),
    baseToken: t.hex().notNull(),
    quoteToken: t.hex().notNull(),
    maker: t.hex().notNull(),
    taker: t.hex().notNull(),
    makerOrderHash: t.hex().notNull(),
    takerOrderHash: t.hex().notNull(),
    takerIsBuy: t.boolean().notNull(),
    /** quote base units per 1e18 base units */
    price: t.bigint().notNull(),
    baseAmount: t.bigint().notNull(),
    quoteAmount: t.bigint().notNull(),
    /** charged in makerFeeToken (what the maker receives) */
    makerFee: t.bigint().notNull(),
    makerFeeToken: t.hex().notNull(),
    /** charged in takerFeeToken (what the taker receives) */
    takerFee: t.bigint().notNull(),
    takerFeeToken: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    pairTimeIdx: index().on(table.pair, table.blockNumber, table.logIndex, table.tradeIndex),
    batchIdx: index().on(table.batchId),
  }),
);

export const candle = onchainTable(
  "candle",
  (t) => ({
    /** `${pair}:${interval}:${bucketStartMs}` */
    id: t.text().primaryKey(),
    pair: t.text().notNull(),
    /** 1m | 5m | 15m | 1h | 1d */
    interval: t.text().notNull(),
    /** start of the UTC bucket holding the trades' block timestamps, in ms */
    bucketStartMs: t.bigint().notNull(),
    open: t.bigint().notNull(),
    high: t.bigint().notNull(),
    low: t.bigint().notNull(),
    close: t.bigint().notNull(),
    baseVolume: t.bigint().notNull(),
    quoteVolume: t.bigint().notNull(),
    tradeCount: t.integer().notNull(),
  }),
  (table) => ({ pairIntervalIdx: index().on(table.pair, table.interval, table.bucketStartMs) }),
);

/** One row per order hash seen in a trade (the contract emits no event for an unfilled order). */
export const order = onchainTable(
  "order",
  (t) => ({
    orderHash: t.hex().primaryKey(),
    trader: t.hex().notNull(),
    pair: t.text().notNull(),
    isBuy: t.boolean().notNull(),
    filledBaseAmount: t.bigint().notNull(),
    filledQuoteAmount: t.bigint().notNull(),
    feePaid: t.bigint().notNull(),
    fillCount: t.integer().notNull(),
    firstFillAt: t.bigint().notNull(),
    lastFillAt: t.bigint().notNull(),
  }),
  (table) => ({ traderIdx: index().on(table.trader) }),
);

/** One row per side of a trade: `${tradeId}-maker` and `${tradeId}-taker`. */
export const fill = onchainTable(
  "fill",
  (t) => ({
    id: t.text().primaryKey(),
    tradeId: t.text().notNull(),
    orderHash: t.hex().notNull(),
    trader: t.hex().notNull(),
    role: t.text().notNull(), // maker | taker
    isBuy: t.boolean().notNull(),
    pair: t.text().notNull(),
    price: t.bigint().notNull(),
    baseAmount: t.bigint().notNull(),
    quoteAmount: t.bigint().notNull(),
    fee: t.bigint().notNull(),
    feeToken: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({ orderIdx: index().on(table.orderHash), traderIdx: index().on(table.trader) }),
);

/** The trader's internal balance in the Settlement contract, per token. */
export const balance = onchainTable(
  "balance",
  (t) => ({
    account: t.hex().notNull(),
    token: t.hex().notNull(),
    amount: t.bigint().notNull(),
    /** requested but neither executed nor cancelled (still inside `amount`) */
    pendingWithdrawal: t.bigint().notNull(),
    updatedAtBlock: t.bigint().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.account, table.token] }) }),
);

export const deposit = onchainTable(
  "deposit",
  (t) => ({
    id: t.text().primaryKey(),
    trader: t.hex().notNull(),
    token: t.hex().notNull(),
    amount: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({ traderIdx: index().on(table.trader) }),
);

/** A withdrawal request (id of its WithdrawalRequested log) and how it ended. */
export const withdrawalRequest = onchainTable(
  "withdrawal_request",
  (t) => ({
    id: t.text().primaryKey(),
    trader: t.hex().notNull(),
    token: t.hex().notNull(),
    amount: t.bigint().notNull(),
    availableAt: t.bigint().notNull(),
    status: t.text().notNull(), // pending | cancelled | executed
    requestedAt: t.bigint().notNull(),
    requestTxHash: t.hex().notNull(),
    closedAt: t.bigint(),
    closedTxHash: t.hex(),
  }),
  (table) => ({ traderIdx: index().on(table.trader, table.token) }),
);

/** The requests of a (trader, token) not yet cancelled or executed, oldest first (internal bookkeeping). */
export const openWithdrawals = onchainTable(
  "open_withdrawals",
  (t) => ({
    trader: t.hex().notNull(),
    token: t.hex().notNull(),
    requestIds: t.text().array().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.trader, table.token] }) }),
);

export const batch = onchainTable("batch", (t) => ({
  batchId: t.bigint().primaryKey(),
  tradeCount: t.bigint().notNull(),
  txHash: t.hex().notNull(),
  blockNumber: t.bigint().notNull(),
  timestamp: t.bigint().notNull(),
}));

export const agent = onchainTable(
  "agent",
  (t) => ({
    trader: t.hex().notNull(),
    agent: t.hex().notNull(),
    expiry: t.bigint().notNull(),
    active: t.boolean().notNull(),
    approvedAt: t.bigint().notNull(),
    revokedAt: t.bigint(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.trader, table.agent] }) }),
);

export const orderCancellation = onchainTable("order_cancellation", (t) => ({
  /** `${trader}-${nonce}` */
  id: t.text().primaryKey(),
  trader: t.hex().notNull(),
  nonce: t.bigint().notNull(),
  txHash: t.hex().notNull(),
  timestamp: t.bigint().notNull(),
}));

/** Orders of `trader` with a nonce below `minNonce` are cancelled. */
export const nonceFloor = onchainTable("nonce_floor", (t) => ({
  trader: t.hex().primaryKey(),
  minNonce: t.bigint().notNull(),
  timestamp: t.bigint().notNull(),
}));

/** Fees the contract holds per token: collected by trades, minus what FeesWithdrawn took out. */
export const feeTotal = onchainTable("fee_total", (t) => ({
  token: t.hex().primaryKey(),
  collected: t.bigint().notNull(),
  withdrawn: t.bigint().notNull(),
}));

/** The Settlement contract's current parameters (one row, id "settlement"). */
export const settlementParams = onchainTable("settlement_params", (t) => ({
  id: t.text().primaryKey(),
  makerFeeBps: t.integer(),
  takerFeeBps: t.integer(),
  feeRecipient: t.hex(),
  withdrawalDelaySec: t.bigint(),
}));

// ---- bridge (BridgeVault on home, BridgeMinter on remote) ----

export const bridgeDeposit = onchainTable("bridge_deposit", (t) => ({
  /** the transfer id: `${srcChainId}-${vault}-${nonce}` */
  id: t.text().primaryKey(),
  chainId: t.integer().notNull(),
  vault: t.hex().notNull(),
  nonce: t.bigint().notNull(),
  token: t.hex().notNull(),
  sender: t.hex().notNull(),
  recipient: t.hex().notNull(),
  amount: t.bigint().notNull(),
  dstChainId: t.bigint().notNull(),
  dstContract: t.hex().notNull(),
  txHash: t.hex().notNull(),
  blockNumber: t.bigint().notNull(),
  timestamp: t.bigint().notNull(),
}));

export const bridgeBurn = onchainTable("bridge_burn", (t) => ({
  /** the transfer id: `${srcChainId}-${minter}-${nonce}` */
  id: t.text().primaryKey(),
  chainId: t.integer().notNull(),
  minter: t.hex().notNull(),
  nonce: t.bigint().notNull(),
  wrappedToken: t.hex().notNull(),
  homeToken: t.hex().notNull(),
  sender: t.hex().notNull(),
  recipient: t.hex().notNull(),
  amount: t.bigint().notNull(),
  dstChainId: t.bigint().notNull(),
  dstContract: t.hex().notNull(),
  txHash: t.hex().notNull(),
  blockNumber: t.bigint().notNull(),
  timestamp: t.bigint().notNull(),
}));

/**
 * One row per cross-chain transfer, keyed by its source: a deposit and its mint, or a burn and its
 * release, land on the same row whichever chain's event is indexed first (chains are indexed
 * independently). `status` only moves forward (see lib/bridgeStatus.ts); each step keeps its own columns.
 */
export const bridgeTransfer = onchainTable(
  "bridge_transfer",
  (t) => ({
    /** `${srcChainId}-${srcContract}-${nonce}` (lowercase address) */
    id: t.text().primaryKey(),
    /** mint (home deposit -> remote mint) | release (remote burn -> home release) */
    kind: t.text().notNull(),
    status: t.text().notNull(),
    srcChainId: t.bigint().notNull(),
    srcContract: t.hex().notNull(),
    nonce: t.bigint().notNull(),
    /** null until the source event is indexed (a destination event can come first) */
    dstChainId: t.bigint(),
    dstContract: t.hex(),
    /** the HOME-chain token */
    token: t.hex(),
    sender: t.hex(),
    recipient: t.hex(),
    amount: t.bigint(),
    srcTxHash: t.hex(),
    srcTimestamp: t.bigint(),
    dstTxHash: t.hex(),
    /** mint or release executed */
    completedAt: t.bigint(),
    /** release queued behind the challenge period */
    queuedAt: t.bigint(),
    releasableAt: t.bigint(),
    disputedAt: t.bigint(),
    updatedAt: t.bigint().notNull(),
  }),
  (table) => ({ recipientIdx: index().on(table.recipient), senderIdx: index().on(table.sender) }),
);

/** The counterpart each bridge contract names (minter -> its home vault, vault -> its remote minter):
 *  how a mint or release finds the id of the deposit or burn it completes. */
export const bridgeCounterpart = onchainTable("bridge_counterpart", (t) => ({
  /** `${chainId}-${contract}` */
  id: t.text().primaryKey(),
  counterpart: t.hex().notNull(),
}));
