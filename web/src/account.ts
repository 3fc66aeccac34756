// The connected wallet's account: balances in the wallet (ERC-20 balanceOf) and in Settlement (its
// balanceOf and pendingWithdrawal, read with viem), the API's view (available, locked), open orders and the
// order history with fills and their settlement transaction; deposit (approve + deposit) and the two-step
// withdrawal (requestWithdrawal, then executeWithdrawal once the contract's delay has passed).
import { group } from "./format";
import { erc20Abi, type Chain, type PublicClient } from "viem";
import { settlementAbi } from "../../sdk/abi/Settlement";
import { formatDecimal } from "../../sdk/decimal";
import { signedRequest, type ApiBalance, type ApiOrder } from "./api";
import type { MarketsInfo } from "./order";
import type { ConnectedWallet } from "./wallet";

export interface TokenInfo {
  symbol: string;
  address: `0x${string}`;
  decimals: number;
}

export interface TokenBalance {
  token: TokenInfo;
  walletUnits: bigint;
  settlementUnits: bigint;
  pendingUnits: bigint;
  /** Unix seconds at which the pending withdrawal may be executed; 0 when none */
  availableAt: bigint;
  api: ApiBalance | null;
}

export interface AccountState {
  balances: TokenBalance[];
  open: ApiOrder[];
  history: ApiOrder[];
  withdrawalDelaySec: bigint;
  chainNowSec: bigint;
  loadedAt: number;
}

export function tokensOf(info: MarketsInfo): TokenInfo[] {
  const seen = new Map<string, TokenInfo>();
  for (const m of info.markets) {
    for (const t of [m.base, m.quote])
      if (!seen.has(t.address.toLowerCase()))
        seen.set(t.address.toLowerCase(), { symbol: t.symbol, address: t.address, decimals: t.decimals });
  }
  return [...seen.values()];
}

/** A token amount for display: exact decimals, thousands grouped. */
export const units = (v: bigint, decimals: number) => group(formatDecimal(v, decimals));

export async function loadAccount(
  info: MarketsInfo,
  wallet: ConnectedWallet,
  pub: PublicClient,
): Promise<AccountState> {
  const tokens = tokensOf(info);
  const settlement = info.settlement;
  const [chainReads, apiBalances, open, history, delay, block] = await Promise.all([
    Promise.all(
      tokens.map(async (t) => {
        const [w, s, p] = await Promise.all([
          pub.readContract({ address: t.address, abi: erc20Abi, functionName: "balanceOf", args: [wallet.address] }),
          pub.readContract({
            address: settlement,
            abi: settlementAbi,
            functionName: "balanceOf",
            args: [wallet.address, t.address],
          }),
          pub.readContract({
            address: settlement,
            abi: settlementAbi,
            functionName: "pendingWithdrawal",
            args: [wallet.address, t.address],
          }),
        ]);
        return { w, s, p: p as { amount: bigint; availableAt: bigint } };
      }),
    ),
    signedRequest<{ balances: ApiBalance[] }>(wallet, "GET", "/v1/balances"),
    signedRequest<{ orders: ApiOrder[] }>(wallet, "GET", "/v1/orders?status=open&limit=100"),
    signedRequest<{ orders: ApiOrder[] }>(wallet, "GET", "/v1/orders?status=all&limit=30"),
    pub.readContract({ address: settlement, abi: settlementAbi, functionName: "withdrawalDelay" }),
    pub.getBlock(),
  ]);
  // fills (with their settlement transaction) of the recent orders that traded
  const traded = history.orders.filter((o) => o.filled_size > 0).slice(0, 15);
  const withFills = await Promise.all(
    traded.map((o) => signedRequest<ApiOrder>(wallet, "GET", `/v1/orders/${o.order_id}`)),
  );
  const fillsById = new Map(withFills.map((o) => [o.order_id, o.fills ?? []]));
  return {
    balances: tokens.map((t, i) => ({
      token: t,
      walletUnits: chainReads[i].w,
      settlementUnits: chainReads[i].s,
      pendingUnits: chainReads[i].p.amount,
      availableAt: chainReads[i].p.availableAt,
      api: apiBalances.balances.find((b) => b.token.toLowerCase() === t.address.toLowerCase()) ?? null,
    })),
    open: open.orders,
    history: history.orders.map((o) => ({ ...o, fills: fillsById.get(o.order_id) ?? [] })),
    withdrawalDelaySec: delay as bigint,
    chainNowSec: block.timestamp,
    loadedAt: Date.now(),
  };
}

async function send(
  pub: PublicClient,
  wallet: ConnectedWallet,
  chain: Chain,
  req: { address: `0x${string}`; abi: readonly unknown[]; functionName: string; args: readonly unknown[] },
): Promise<`0x${string}`> {
  const hash = await wallet.client.writeContract({
    ...req,
    chain,
    account: wallet.client.account ?? wallet.address,
  } as Parameters<typeof wallet.client.writeContract>[0]);
  const receipt = await pub.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`The transaction ${hash} was reverted.`);
  return hash;
}

/** A Settlement call on one of the wallet's tokens (with the amount where the call takes one), sent from the
 *  wallet; resolves to its transaction hash once mined. */
type TokenCall<A extends bigint[]> = (
  info: MarketsInfo,
  wallet: ConnectedWallet,
  pub: PublicClient,
  chain: Chain,
  token: TokenInfo,
  ...amount: A
) => Promise<`0x${string}`>;

const settlementCall =
  <A extends bigint[] = []>(functionName: string): TokenCall<A> =>
  (info, wallet, pub, chain, token, ...amount) =>
    send(pub, wallet, chain, {
      address: info.settlement,
      abi: settlementAbi,
      functionName,
      args: [token.address, ...amount],
    });

/** approve (when the allowance is short) + deposit; returns the deposit's transaction hash */
export async function deposit(
  info: MarketsInfo,
  wallet: ConnectedWallet,
  pub: PublicClient,
  chain: Chain,
  token: TokenInfo,
  amount: bigint,
): Promise<`0x${string}`> {
  const allowance = await pub.readContract({
    address: token.address,
    abi: erc20Abi,
    functionName: "allowance",
    args: [wallet.address, info.settlement],
  });
  if (allowance < amount)
    await send(pub, wallet, chain, {
      address: token.address,
      abi: erc20Abi,
      functionName: "approve",
      args: [info.settlement, amount],
    });
  return settlementCall<[amount: bigint]>("deposit")(info, wallet, pub, chain, token, amount);
}

export const requestWithdrawal = settlementCall<[amount: bigint]>("requestWithdrawal");
export const executeWithdrawal = settlementCall("executeWithdrawal");
export const cancelWithdrawal = settlementCall("cancelWithdrawal");
