// The settle stage of the pipeline: the batcher over the settle sender (watched by the home chain's
// availability), its store, the gas cap of a batch, and what a settled, halted or rejected batch tells
// the matcher service.
import { join } from "node:path";
import type { Address, PublicClient } from "viem";
import type { Clock } from "../../runtime/clock";
import type { ContractWallets } from "../intake/contract-signature";
import type { MatcherService } from "../match/matcher-service";
import type { PipelineOptions } from "../pipeline";
import { batchTxsFromChain } from "../settle/batch-confirmations";
import { createBatcher, type Batcher, type SettleableTrade, type SettledBatch } from "../settle/batcher";
import type { ChainAvailability } from "../settle/chain-availability";
import { createSettleSender, SETTLE_GAS_CAP, settleGasWanted } from "../settle/settle-sender";

export interface SettleStageDeps {
  opts: PipelineOptions;
  client: PublicClient;
  service: MatcherService;
  contractWallets: ContractWallets;
  availability: ChainAvailability;
  clock: Clock;
  /** every settled batch, after the matcher service has it */
  onSettled(b: SettledBatch): void;
}

export function createSettleStage(deps: SettleStageDeps): Batcher {
  const { opts, service, contractWallets, clock } = deps;
  return createBatcher({
    sender: deps.availability.watch(
      createSettleSender({
        rpcUrl: opts.rpcUrl,
        chainId: opts.chainId,
        settlement: opts.settlement,
        operatorKey: opts.operatorKey,
        lane: opts.settleLane ?? 0,
        isContractWallet: contractWallets.isContract,
        clock,
      }),
    ),
    storeDir: join(opts.dataDir, "batcher"),
    openStore: opts.replication?.openStore,
    firstBatchId: BigInt(opts.settleLane ?? 0) << 56n,
    findBatchTxs: batchTxsFromChain(deps.client, opts.settlement, opts.fromBlock),
    signedOrder: service.signedOrder,
    fitsGasCap: (trades) => fitsGasCap(service, contractWallets, trades),
    maxTrades: opts.maxTrades ?? 100,
    maxDelayMs: opts.maxDelayMs ?? 20,
    maxInFlight: opts.maxInFlight ?? 2,
    fsync: opts.fsync,
    logger: opts.logger,
    clock,
    onSettled: (b) => {
      service.tradesSettled(b.trades);
      deps.onSettled(b);
    },
    onHalt: (reason) => service.halt(reason),
    // a revert one order causes: journal the decision, cancel the order, drop its trades (never a halt)
    onRejected: (orders) => service.rejectForSettlement(orders),
    isDropped: (seq) => service.droppedSeqs.has(seq),
  });
}

function fitsGasCap(
  service: MatcherService,
  contractWallets: ContractWallets,
  trades: readonly SettleableTrade[],
): boolean {
  const orders = new Set<string>();
  let walletOrders = 0;
  for (const t of trades)
    for (const h of [t.makerHash, t.takerHash]) {
      const key = h.toLowerCase();
      if (orders.has(key)) continue;
      orders.add(key);
      const so = service.signedOrder(h);
      if (so && contractWallets.isContract(so.order.trader)) walletOrders += 1;
    }
  return settleGasWanted(orders.size, trades.length, walletOrders) <= SETTLE_GAS_CAP;
}

/** The traders of the orders the journal brought back (open orders, trades still to settle): the settle
 *  sender budgets the ERC-1271 stipend for contract wallets' orders, so they are learnt before anything is sent. */
export async function learnReplayedWallets(
  service: MatcherService,
  contractWallets: ContractWallets,
  log: PipelineOptions["logger"],
): Promise<void> {
  const replayedTraders = new Set<Address>([...service.orders.values()].map((o) => o.signed.order.trader));
  for (const t of service.replayedTrades)
    for (const h of [t.makerHash, t.takerHash]) {
      const so = service.signedOrder(h);
      if (so) replayedTraders.add(so.order.trader);
    }
  await Promise.all(
    [...replayedTraders].map((t) =>
      contractWallets.learn(t).catch((e) => log?.warn({ err: String(e), trader: t }, "code lookup failed")),
    ),
  );
}
