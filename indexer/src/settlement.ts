// Handlers of the Settlement contract's events. Every write goes through `context.db` (its store API or its
// raw SQL), so Ponder can revert it on a reorg and replay it exactly; no handler reads anything but the
// event and the tables.
import { ponder } from "ponder:registry";
import { agent, deposit, feeTotal, nonceFloor, orderCancellation, settlementParams } from "ponder:schema";
import { activeContracts, deployments, symbols } from "../active";
import { batchRows } from "../lib/batchRows";
import { batchTradesOfCall } from "../lib/batchTrades";
import { eventId, lc, logPlace } from "../lib/trades";
import { addBalance, closeWithdrawal, openWithdrawal, writeBatch } from "./settlementStore";

/** A withdrawal event's trader, token, amount and place on chain. */
const withdrawalFacts = (event: {
  args: { trader: string; token: string; amount: bigint };
  transaction: { hash: `0x${string}` };
  block: { number: bigint; timestamp: bigint };
}) => ({ trader: lc(event.args.trader), token: lc(event.args.token), amount: event.args.amount, ...logPlace(event) });

if (activeContracts.Settlement) {
  ponder.on("Settlement:Deposited", async ({ event, context }) => {
    const trader = lc(event.args.trader);
    const token = lc(event.args.token);
    await context.db.insert(deposit).values({
      id: eventId(event.transaction.hash, event.log.logIndex),
      trader,
      token,
      amount: event.args.amount,
      ...logPlace(event),
    });
    await addBalance(context.db, trader, token, event.args.amount, event.block.number);
  });

  ponder.on("Settlement:WithdrawalRequested", async ({ event, context }) => {
    await openWithdrawal(context.db, {
      id: eventId(event.transaction.hash, event.log.logIndex),
      ...withdrawalFacts(event),
      availableAt: event.args.availableAt,
    });
  });

  ponder.on("Settlement:WithdrawalCancelled", async ({ event, context }) => {
    await closeWithdrawal(context.db, "cancelled", withdrawalFacts(event));
  });

  ponder.on("Settlement:WithdrawalExecuted", async ({ event, context }) => {
    await closeWithdrawal(context.db, "executed", withdrawalFacts(event));
  });

  // A batch's trades are the fills of the call that emitted its BatchSettled log (the log carries only its id,
  // trade count and fee rates): decoded from the transaction's input by the sdk, under the direct-call rule
  // (lib/batchTrades.ts, shared with the hot front). The whole batch is one statement, with the rows several
  // trades share summed first (lib/batchRows.ts). Through Ponder's store API every new trade, fill and order
  // row cost a database read in realtime (a miss of its cache): a batch of 50 trades was 250 reads, about
  // 300 ms on PGlite. Raw statements run through the same reorg triggers as the store API, so a reorg still
  // reverts them.
  const domain = { chainId: deployments.home.chainId, settlement: activeContracts.Settlement };
  ponder.on("Settlement:BatchSettled", async ({ event, context }) => {
    const trades = batchTradesOfCall(event.transaction, event.args, event.log.logIndex, domain);
    const rows = batchRows(trades, {
      ...logPlace(event),
      symbols,
    });
    await writeBatch(context.db.sql, rows, {
      batchId: event.args.batchId,
      tradeCount: event.args.tradeCount,
      ...logPlace(event),
    });
  });

  ponder.on("Settlement:OrderCancelled", async ({ event, context }) => {
    await context.db.insert(orderCancellation).values({
      id: eventId(event.transaction.hash, event.log.logIndex),
      trader: lc(event.args.trader),
      nonce: event.args.nonce,
      txHash: event.transaction.hash,
      timestamp: event.block.timestamp,
    });
  });

  ponder.on("Settlement:OrdersCancelledBelow", async ({ event, context }) => {
    const values = { minNonce: event.args.minNonce, timestamp: event.block.timestamp };
    await context.db
      .insert(nonceFloor)
      .values({ trader: lc(event.args.trader), ...values })
      .onConflictDoUpdate(values);
  });

  ponder.on("Settlement:AgentApproved", async ({ event, context }) => {
    const values = { expiry: event.args.expiry, active: true, approvedAt: event.block.timestamp, revokedAt: null };
    await context.db
      .insert(agent)
      .values({ trader: lc(event.args.trader), agent: lc(event.args.agent), ...values })
      .onConflictDoUpdate(values);
  });

  ponder.on("Settlement:AgentRevoked", async ({ event, context }) => {
    const key = { trader: lc(event.args.trader), agent: lc(event.args.agent) };
    await context.db
      .insert(agent)
      .values({
        ...key,
        expiry: 0n,
        active: false,
        approvedAt: event.block.timestamp,
        revokedAt: event.block.timestamp,
      })
      .onConflictDoUpdate({ active: false, revokedAt: event.block.timestamp });
  });

  ponder.on("Settlement:FeesWithdrawn", async ({ event, context }) => {
    const amount = event.args.amount;
    await context.db
      .insert(feeTotal)
      .values({ token: lc(event.args.token), collected: 0n, withdrawn: amount })
      .onConflictDoUpdate((row) => ({ withdrawn: row.withdrawn + amount }));
  });
}

if (activeContracts.Settlement) {
  const id = "settlement";
  ponder.on("Settlement:FeesUpdated", async ({ event, context }) => {
    const values = { makerFeeBps: event.args.makerFeeBps, takerFeeBps: event.args.takerFeeBps };
    await context.db
      .insert(settlementParams)
      .values({ id, ...values })
      .onConflictDoUpdate(values);
  });

  ponder.on("Settlement:FeeRecipientUpdated", async ({ event, context }) => {
    const values = { feeRecipient: lc(event.args.feeRecipient) };
    await context.db
      .insert(settlementParams)
      .values({ id, ...values })
      .onConflictDoUpdate(values);
  });

  ponder.on("Settlement:WithdrawalDelayUpdated", async ({ event, context }) => {
    const values = { withdrawalDelaySec: event.args.withdrawalDelaySec };
    await context.db
      .insert(settlementParams)
      .values({ id, ...values })
      .onConflictDoUpdate(values);
  });
}
