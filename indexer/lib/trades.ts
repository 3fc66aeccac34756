// What a settled trade (one of a BatchSettled event's) means for balances, fees and the two orders: the contract's rules, restated.
//   buyer receives base, seller receives quote; the maker fee is taken from what the maker receives,
//   the taker fee from what the taker receives; fees go to the contract, not to any account.
export type Hex = `0x${string}`;

export interface SettledTrade {
  maker: Hex;
  taker: Hex;
  baseToken: Hex;
  quoteToken: Hex;
  takerIsBuy: boolean;
  baseAmount: bigint;
  quoteAmount: bigint;
  makerFee: bigint;
  takerFee: bigint;
}

export interface BalanceDelta {
  account: Hex;
  token: Hex;
  delta: bigint;
}

export interface TradeSide {
  role: "maker" | "taker";
  trader: Hex;
  isBuy: boolean;
  fee: bigint;
  /** the token this side receives, in which its fee is charged */
  feeToken: Hex;
}

export function tradeSides(t: SettledTrade): [TradeSide, TradeSide] {
  const makerIsBuy = !t.takerIsBuy;
  return [
    {
      role: "maker",
      trader: t.maker,
      isBuy: makerIsBuy,
      fee: t.makerFee,
      feeToken: makerIsBuy ? t.baseToken : t.quoteToken,
    },
    {
      role: "taker",
      trader: t.taker,
      isBuy: t.takerIsBuy,
      fee: t.takerFee,
      feeToken: t.takerIsBuy ? t.baseToken : t.quoteToken,
    },
  ];
}

/** The four balance changes of a trade: each side pays one token in full and receives the other net of its fee. */
export function tradeBalanceDeltas(t: SettledTrade): BalanceDelta[] {
  const deltas: BalanceDelta[] = [];
  for (const side of tradeSides(t)) {
    if (side.isBuy) {
      deltas.push({ account: side.trader, token: t.quoteToken, delta: -t.quoteAmount });
      deltas.push({ account: side.trader, token: t.baseToken, delta: t.baseAmount - side.fee });
    } else {
      deltas.push({ account: side.trader, token: t.baseToken, delta: -t.baseAmount });
      deltas.push({ account: side.trader, token: t.quoteToken, delta: t.quoteAmount - side.fee });
    }
  }
  return deltas;
}

/** `WETH-USD` when both tokens are in the registry, else the two lowercase addresses. */
export function pairSymbol(baseToken: Hex, quoteToken: Hex, symbols: ReadonlyMap<string, string>): string {
  const base = symbols.get(baseToken.toLowerCase());
  const quote = symbols.get(quoteToken.toLowerCase());
  if (base && quote) return `${base}-${quote}`;
  return `${baseToken.toLowerCase()}-${quoteToken.toLowerCase()}`;
}

/** A trade's id: its batch's BatchSettled log and its place in the batch. */
export function tradeId(txHash: Hex, logIndex: number, tradeIndex: number): string {
  return `${eventId(txHash, logIndex)}-${tradeIndex}`;
}

export function eventId(txHash: Hex, logIndex: number): string {
  return `${txHash.toLowerCase()}-${logIndex}`;
}

/** An address as the tables keep it: lower case. */
export const lc = (a: string) => a.toLowerCase() as Hex;

/** Where a log stands on chain, as the event tables record it. */
export const logPlace = (event: { transaction: { hash: Hex }; block: { number: bigint; timestamp: bigint } }) => ({
  txHash: event.transaction.hash,
  blockNumber: event.block.number,
  timestamp: event.block.timestamp,
});
