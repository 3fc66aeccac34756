// Available balances the matcher enforces, per account and token (base units, bigint):
//   available = projected balance - locked by open orders - pending withdrawal
// The projected balance is the on-chain internal balance once every trade already matched is settled:
// deposits - executed withdrawals + the deltas of settled trades (from BatchSettled) + the deltas of
// matched, not yet settled trades. Because every matched trade is settled exactly once, in order, and every
// order's lock covers the most it can still consume, no settle can meet an uncovered debit.
import { PRICE_SCALE } from "../../sdk/eip712";

export interface OrderLock {
  /** token the order spends: quote for a buy, base for a sell */
  token: string;
  /** base units the order may still spend */
  amount: bigint;
}

export interface TradeDelta {
  buyer: string;
  seller: string;
  baseToken: string;
  quoteToken: string;
  baseAmount: bigint;
  quoteAmount: bigint;
  /** fee in base, kept from what the buyer receives */
  buyerFee: bigint;
  /** fee in quote, kept from what the seller receives */
  sellerFee: bigint;
}

/** Quote the buy side locks for `baseAmount` at its limit price (rounded up, so a lock never falls short). */
export function buyLockFor(baseAmount: bigint, limitPrice: bigint): bigint {
  return (baseAmount * limitPrice + PRICE_SCALE - 1n) / PRICE_SCALE;
}

/** What a signed order (side 0 = buy) locks in `market`: a buy its quote at its limit price, a sell its base. */
export function orderLockOf(
  market: { baseToken: string; quoteToken: string },
  o: { side: number; amount: bigint; price: bigint },
): OrderLock {
  return o.side === 0
    ? { token: market.quoteToken, amount: buyLockFor(o.amount, o.price) }
    : { token: market.baseToken, amount: o.amount };
}

const key = (account: string, token: string): string => `${account.toLowerCase()}:${token.toLowerCase()}`;

export class BalanceLedger {
  private readonly balance = new Map<string, bigint>();
  private readonly locked = new Map<string, bigint>();
  private readonly pending = new Map<string, bigint>();
  /** the trades' part of `balance` (what the matcher journal contributes; deposits and withdrawals come
   *  from the chain, read again at every start): what a journal snapshot keeps */
  private readonly traded = new Map<string, bigint>();

  private add(map: Map<string, bigint>, k: string, delta: bigint): void {
    const v = (map.get(k) ?? 0n) + delta;
    if (v === 0n) map.delete(k);
    else map.set(k, v);
  }

  projected(account: string, token: string): bigint {
    return this.balance.get(key(account, token)) ?? 0n;
  }

  lockedOf(account: string, token: string): bigint {
    return this.locked.get(key(account, token)) ?? 0n;
  }

  pendingWithdrawal(account: string, token: string): bigint {
    return this.pending.get(key(account, token)) ?? 0n;
  }

  available(account: string, token: string): bigint {
    const k = key(account, token);
    return (this.balance.get(k) ?? 0n) - (this.locked.get(k) ?? 0n) - (this.pending.get(k) ?? 0n);
  }

  deposited(account: string, token: string, amount: bigint): void {
    this.add(this.balance, key(account, token), amount);
  }

  /** A withdrawal executed on chain: the balance leaves and the pending request is gone. */
  withdrawalExecuted(account: string, token: string, amount: bigint): void {
    const k = key(account, token);
    this.add(this.balance, k, -amount);
    this.pending.delete(k);
  }

  /** The contract keeps one pending request per account and token: a new one replaces it. */
  withdrawalRequested(account: string, token: string, amount: bigint): void {
    this.pending.set(key(account, token), amount);
  }

  withdrawalCancelled(account: string, token: string): void {
    this.pending.delete(key(account, token));
  }

  lock(account: string, l: OrderLock): void {
    this.add(this.locked, key(account, l.token), l.amount);
  }

  unlock(account: string, l: OrderLock): void {
    this.add(this.locked, key(account, l.token), -l.amount);
  }

  /** Applies a trade's balance moves (fees kept from what each party receives, as the contract does). */
  applyTrade(t: TradeDelta): void {
    this.move(key(t.buyer, t.quoteToken), -t.quoteAmount);
    this.move(key(t.buyer, t.baseToken), t.baseAmount - t.buyerFee);
    this.move(key(t.seller, t.baseToken), -t.baseAmount);
    this.move(key(t.seller, t.quoteToken), t.quoteAmount - t.sellerFee);
  }

  /** A trade's balance move: the projection and the trades' part of it. */
  private move(k: string, delta: bigint): void {
    this.add(this.balance, k, delta);
    this.add(this.traded, k, delta);
  }

  /** What the matcher journal contributed (the trades' balance moves and the orders' locks), for a journal
   *  snapshot: decimal strings by "account:token". */
  journalPart(): { traded: [string, string][]; locked: [string, string][] } {
    const out = (m: Map<string, bigint>) => [...m].map(([k, v]) => [k, v.toString()] as [string, string]);
    return { traded: out(this.traded), locked: out(this.locked) };
  }

  /** Adds a snapshot's journal part (before the chain's history is read again). */
  restoreJournalPart(part: { traded: [string, string][]; locked: [string, string][] }): void {
    for (const [k, v] of part.traded) this.move(k, BigInt(v));
    for (const [k, v] of part.locked) this.add(this.locked, k, BigInt(v));
  }

  /** Undoes `applyTrade` for a trade that will never settle (dropped after its batch reverted): no money
   *  moved on chain, so the projection must not count it either. */
  revertTrade(t: TradeDelta): void {
    this.move(key(t.buyer, t.quoteToken), t.quoteAmount);
    this.move(key(t.buyer, t.baseToken), t.buyerFee - t.baseAmount);
    this.move(key(t.seller, t.baseToken), t.baseAmount);
    this.move(key(t.seller, t.quoteToken), t.sellerFee - t.quoteAmount);
  }

  /** Every (account, token) with a nonzero projected balance, for reconciliation and tests. */
  entries(): { account: string; token: string; projected: bigint }[] {
    return [...this.balance].map(([k, v]) => {
      const [account, token] = k.split(":");
      return { account, token, projected: v };
    });
  }
}
