// Builders for the gas benchmark: accounts, deposits and batches of signed orders, through Hardhat's ethers.
import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { keccak256, toHex, type Address, type Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import {
  getOrderHash,
  getSettlementDomain,
  signOrder,
  OrderSide,
  type Order,
  type SettlementDomain,
} from "../../sdk/eip712";
import { buildSettleArgs, encodePackedBatch, type FillByHash, type SignedOrder } from "../../sdk/settle-batch";
import { settleAccessList } from "../../pipeline/settle/access-list";

export const PRICE = 2000n * 10n ** 6n; // 2,000 USD (6 decimals) per 1e18 WETH base units
export const FILL_BASE = 10n ** 16n; // 0.01 WETH per trade (quote 20 USD)
export const MAKER_FEE_BPS = 2;
export const TAKER_FEE_BPS = 5;

export interface Env {
  hre: HardhatRuntimeEnvironment;
  settlement: any;
  weth: any;
  usd: any;
  domain: SettlementDomain;
  operator: any;
  funder: any;
  expiry: bigint;
}

export async function deployEnv(hre: HardhatRuntimeEnvironment): Promise<Env> {
  const { ethers } = hre;
  const [admin, operator] = await ethers.getSigners();
  const Token = await ethers.getContractFactory("DemoToken");
  const usd = await Token.deploy("USD", "USD", 6);
  const weth = await Token.deploy("Wrapped Ether", "WETH", 18);
  const Settlement = await ethers.getContractFactory("Settlement");
  const settlement = await Settlement.deploy(admin.address, admin.address, 3600, MAKER_FEE_BPS, TAKER_FEE_BPS);
  await settlement.grantRole(await settlement.OPERATOR_ROLE(), operator.address);
  const chainId = (await ethers.provider.getNetwork()).chainId;
  const domain = getSettlementDomain(chainId, (await settlement.getAddress()) as Address);
  const big = 10n ** 40n;
  await (await usd.mint(admin.address, big)).wait();
  await (await weth.mint(admin.address, big)).wait();
  await (await usd.approve(await settlement.getAddress(), big)).wait();
  await (await weth.approve(await settlement.getAddress(), big)).wait();
  const block = await ethers.provider.getBlock("latest");
  return {
    hre,
    settlement,
    weth,
    usd,
    domain,
    operator,
    funder: admin,
    expiry: BigInt(block!.timestamp) + 86_400n * 365n,
  };
}

let keyCounter = 0;
/** Deterministic fresh keys (never used on this chain before). */
export function newAccounts(n: number): PrivateKeyAccount[] {
  return Array.from({ length: n }, () => privateKeyToAccount(keccak256(toHex(`gas-bench-${keyCounter++}`)) as Hex));
}

/** Credits internal balances by depositFor from the funder (the traders themselves need no ETH). */
export async function fund(env: Env, who: Address[], usdAmount: bigint, wethAmount: bigint): Promise<void> {
  for (const a of who) {
    if (usdAmount > 0n) await (await env.settlement.depositFor(a, await env.usd.getAddress(), usdAmount)).wait();
    if (wethAmount > 0n) await (await env.settlement.depositFor(a, await env.weth.getAddress(), wethAmount)).wait();
  }
}

const nonces = new Map<string, bigint>();
export async function makeOrder(
  env: Env,
  trader: PrivateKeyAccount,
  side: OrderSide,
  amount: bigint,
): Promise<SignedOrder> {
  const nonce = nonces.get(trader.address) ?? 1n; // from 1, as clients should (decisions/contracts.md)
  nonces.set(trader.address, nonce + 1n);
  const order: Order = {
    trader: trader.address,
    baseToken: (await env.weth.getAddress()) as Address,
    quoteToken: (await env.usd.getAddress()) as Address,
    side,
    price: PRICE,
    amount,
    expiry: env.expiry,
    nonce,
    flags: 0,
  };
  return { order, signature: await signOrder(trader, env.domain, order), hash: getOrderHash(env.domain, order) };
}

export type Encoding = "packed" | "abi";

/** Settles the fills as the next batch (settlePacked or settle) and returns the gas used. */
export async function settle(
  env: Env,
  orders: SignedOrder[],
  fills: FillByHash[],
  encoding: Encoding = "packed",
): Promise<bigint> {
  return (await settleTx(env, orders, fills, encoding)).gas;
}

/** As settle, with the transaction hash (for a trace). */
export async function settleTx(
  env: Env,
  orders: SignedOrder[],
  fills: FillByHash[],
  encoding: Encoding = "packed",
): Promise<{ gas: bigint; hash: string }> {
  const args = buildSettleArgs(orders, fills);
  const batchId = await env.settlement.nextBatchId();
  const op = env.settlement.connect(env.operator);
  const opts = { gasLimit: 16_000_000 };
  const tx =
    encoding === "packed"
      ? await op.settlePacked(batchId, encodePackedBatch(args), {
          ...opts,
          type: 1,
          accessList: settleAccessList(await env.settlement.getAddress(), args),
        })
      : await op.settle(batchId, args.orders, args.signatures, args.fills, opts);
  const receipt = await tx.wait();
  if (process.env.GAS_DEBUG) {
    const data: string = tx.data.slice(2);
    let cd = 0;
    for (let i = 0; i < data.length; i += 2) cd += data.slice(i, i + 2) === "00" ? 4 : 16;
    console.log(
      `${encoding} trades=${args.fills.length} orders=${args.orders.length} gas=${receipt.gasUsed} calldataGas=${cd} bytes=${data.length / 2}`,
    );
  }
  return { gas: receipt.gasUsed as bigint, hash: tx.hash as string };
}

/**
 * One batch of `trades` trades. Every trade has its own taker order (a distinct taker, fully filled by the
 * trade). Maker orders: `makers.length` of them, one per maker, each fully filled by its share of the
 * trades. Takers buy from even makers and sell to odd makers.
 */
export async function batchOf(env: Env, makers: PrivateKeyAccount[], takers: PrivateKeyAccount[], trades: number) {
  const perMaker = new Map<number, number>();
  for (let t = 0; t < trades; t++) perMaker.set(t % makers.length, (perMaker.get(t % makers.length) ?? 0) + 1);
  const makerOrders: SignedOrder[] = [];
  for (const [m, count] of perMaker) {
    makerOrders[m] = await makeOrder(
      env,
      makers[m]!,
      m % 2 === 0 ? OrderSide.SELL : OrderSide.BUY,
      FILL_BASE * BigInt(count),
    );
  }
  const orders: SignedOrder[] = makerOrders.filter(Boolean);
  const fills: FillByHash[] = [];
  for (let t = 0; t < trades; t++) {
    const m = t % makers.length;
    const takerSide = m % 2 === 0 ? OrderSide.BUY : OrderSide.SELL;
    const taker = await makeOrder(env, takers[t]!, takerSide, FILL_BASE);
    orders.push(taker);
    fills.push({ makerHash: makerOrders[m]!.hash, takerHash: taker.hash, baseAmount: FILL_BASE, price: PRICE });
  }
  return { orders, fills };
}

/**
 * One batch of `trades` trades among a few accounts: trade t is between traders[t % n] (maker) and the next
 * account (taker), each with its own order fully filled by the trade, so every account holds many orders of
 * both sides in one batch (as the pipeline's busiest traders do): the case netting per account and token
 * is for. Makers sell on even trades and buy on odd ones.
 */
export async function fewTradersBatch(env: Env, traders: PrivateKeyAccount[], trades: number) {
  const orders: SignedOrder[] = [];
  const fills: FillByHash[] = [];
  for (let t = 0; t < trades; t++) {
    const maker = traders[t % traders.length]!;
    const taker = traders[(t + 1 + Math.floor(t / traders.length)) % traders.length]!;
    const [makerSide, takerSide] = t % 2 === 0 ? [OrderSide.SELL, OrderSide.BUY] : [OrderSide.BUY, OrderSide.SELL];
    const m = await makeOrder(env, maker, makerSide, FILL_BASE);
    const k = await makeOrder(env, maker === taker ? traders[(t + 1) % traders.length]! : taker, takerSide, FILL_BASE);
    orders.push(m, k);
    fills.push({ makerHash: m.hash, takerHash: k.hash, baseAmount: FILL_BASE, price: PRICE });
  }
  return { orders, fills };
}
