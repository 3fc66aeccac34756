// Handlers of the Settlement contract's events. Every write goes through `context.db`, so Ponder can
// revert it on a reorg and replay it exactly; no handler reads anything but the event and the tables.
import { ponder } from "ponder:registry";
import {
  agent,
  batch,
  deposit,
  feeTotal,
  nonceFloor,
  orderCancellation,
  settlementParams,
  trade,
} from "ponder:schema";
import { activeContracts, symbols } from "../active";
import { eventId, pairSymbol, tradeBalanceDeltas, tradeSides } from "../lib/trades";
import { addBalance, closeWithdrawal, openWithdrawal, recordFill, updateCandles } from "./settlementStore";

const lc = (a: string) => a.toLowerCase() as `0x${string}`;

if (activeContracts.Settlement) {
  ponder.on("Settlement:Deposited", async ({ event, context }) => {
    const trader = lc(event.args.trader);
    const token = lc(event.args.token);
    await context.db.insert(deposit).values({
      id: eventId(event.transaction.hash, event.log.logIndex),
      trader,
      token,
      amount: event.args.amount,
      txHash: event.transaction.hash,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
    });
    await addBalance(context.db, trader, token, event.args.amount, event.block.number);
  });

  ponder.on("Settlement:WithdrawalRequested", async ({ event, context }) => {
    await openWithdrawal(context.db, {
      id: eventId(event.transaction.hash, event.log.logIndex),
      trader: lc(event.args.trader),
      token: lc(event.args.token),
      amount: event.args.amount,
      availableAt: event.args.availableAt,
      txHash: event.transaction.hash,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
    });
  });

  ponder.on("Settlement:WithdrawalCancelled", async ({ event, context }) => {
    await closeWithdrawal(context.db, "cancelled", {
      trader: lc(event.args.trader),
      token: lc(event.args.token),
      amount: event.args.amount,
      txHash: event.transaction.hash,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
    });
  });

  ponder.on("Settlement:WithdrawalExecuted", async ({ event, context }) => {
    await closeWithdrawal(context.db, "executed", {
      trader: lc(event.args.trader),
      token: lc(event.args.token),
      amount: event.args.amount,
      txHash: event.transaction.hash,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
    });
  });

  ponder.on("Settlement:TradeSettled", async ({ event, context }) => {
    const a = event.args;
    const settled = {
      maker: lc(a.maker),
      taker: lc(a.taker),
      baseToken: lc(a.baseToken),
      quoteToken: lc(a.quoteToken),
      takerIsBuy: a.takerIsBuy,
      baseAmount: a.baseAmount,
      quoteAmount: a.quoteAmount,
      makerFee: a.makerFee,
      takerFee: a.takerFee,
    };
    const id = eventId(event.transaction.hash, event.log.logIndex);
    const pair = pairSymbol(settled.baseToken, settled.quoteToken, symbols);
    const [makerSide, takerSide] = tradeSides(settled);
    const at = { blockNumber: event.block.number, timestamp: event.block.timestamp };

    await context.db.insert(trade).values({
      id,
      txHash: event.transaction.hash,
      logIndex: event.log.logIndex,
      batchId: a.batchId,
      pair,
      ...settled,
      makerOrderHash: lc(a.makerOrderHash),
      takerOrderHash: lc(a.takerOrderHash),
      price: a.price,
      makerFeeToken: makerSide.feeToken,
      takerFeeToken: takerSide.feeToken,
      ...at,
    });

    for (const d of tradeBalanceDeltas(settled)) {
      await addBalance(context.db, d.account, d.token, d.delta, at.blockNumber);
    }
    for (const side of [makerSide, takerSide]) {
      if (side.fee === 0n) continue;
      await context.db
        .insert(feeTotal)
        .values({ token: side.feeToken, collected: side.fee, withdrawn: 0n })
        .onConflictDoUpdate((row) => ({ collected: row.collected + side.fee }));
    }
    const fillBase = { tradeId: id, pair, price: a.price, baseAmount: a.baseAmount, quoteAmount: a.quoteAmount, ...at };
    await recordFill(context.db, { ...fillBase, side: makerSide, orderHash: lc(a.makerOrderHash) });
    await recordFill(context.db, { ...fillBase, side: takerSide, orderHash: lc(a.takerOrderHash) });
    await updateCandles(context.db, { pair, price: a.price, baseAmount: a.baseAmount, quoteAmount: a.quoteAmount, timestamp: at.timestamp });
  });

  ponder.on("Settlement:BatchSettled", async ({ event, context }) => {
    await context.db.insert(batch).values({
      batchId: event.args.batchId,
      tradeCount: event.args.tradeCount,
      txHash: event.transaction.hash,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
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
      .values({ ...key, expiry: 0n, active: false, approvedAt: event.block.timestamp, revokedAt: event.block.timestamp })
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
    await context.db.insert(settlementParams).values({ id, ...values }).onConflictDoUpdate(values);
  });

  ponder.on("Settlement:FeeRecipientUpdated", async ({ event, context }) => {
    const values = { feeRecipient: lc(event.args.feeRecipient) };
    await context.db.insert(settlementParams).values({ id, ...values }).onConflictDoUpdate(values);
  });

  ponder.on("Settlement:WithdrawalDelayUpdated", async ({ event, context }) => {
    const values = { withdrawalDelaySec: event.args.withdrawalDelaySec };
    await context.db.insert(settlementParams).values({ id, ...values }).onConflictDoUpdate(values);
  });
}
