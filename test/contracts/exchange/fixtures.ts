// Shared fixture and helpers of the Settlement contract tests (Hardhat network, ethers for transactions,
// the sdk/ twin with viem local accounts for signing: the same keys as Hardhat's default accounts).
import { ethers, network } from "hardhat";
import { time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { mnemonicToAccount } from "viem/accounts";
import { type Address, type Hex, createPublicClient, custom } from "viem";
import {
  getOrderHash,
  getSettlementDomain,
  signOrder,
  OrderSide,
  type Order,
  type SettlementDomain,
} from "../../../sdk/eip712";
import { buildSettleArgs, encodePackedBatch, type FillByHash, type SignedOrder } from "../../../sdk/settle-batch";
import { type LocatedSettledTrade, type SettlementReadClient, settledTradesOf } from "../../../sdk/settled-trades";
import { orderSlots } from "../../../pipeline/settle/access-list";

/** A contract handle without typechain types: every ABI method, `connect` included, is callable. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Untyped = any;

export const MNEMONIC = "test test test test test test test test test test test junk";
export const USD = 10n ** 6n;
export const ETH = 10n ** 18n;
/** 2,000 USD per WETH: quote base units per 1e18 base units */
export const PRICE_2000 = 2000n * USD;
export const DELAY = 3600n;
export const MAKER_BPS = 10n;
export const TAKER_BPS = 20n;

const keyCache = new Map<number, ReturnType<typeof mnemonicToAccount>>();
/** The viem account of Hardhat's default account `i` (memoized: HD derivation is slow). */
export function signerKey(i: number) {
  let k = keyCache.get(i);
  if (!k) keyCache.set(i, (k = mnemonicToAccount(MNEMONIC, { addressIndex: i })));
  return k;
}

export async function deployFixture() {
  const signers = await ethers.getSigners();
  const [admin, operator, feeSink, alice, bob, carol, dave] = signers;
  const Token = await ethers.getContractFactory("DemoToken");
  // no typechain types here (contract tests run transpile-only), so contracts are untyped handles
  const usd = (await Token.deploy("USD", "USD", 6)) as Untyped;
  const weth = (await Token.deploy("Wrapped Ether", "WETH", 18)) as Untyped;
  const Settlement = await ethers.getContractFactory("Settlement");
  const settlement = (await Settlement.deploy(admin.address, feeSink.address, DELAY, MAKER_BPS, TAKER_BPS)) as Untyped;
  await settlement.grantRole(await settlement.OPERATOR_ROLE(), operator.address);
  const address = (await settlement.getAddress()) as Address;
  const chainId = (await ethers.provider.getNetwork()).chainId;
  const domain = getSettlementDomain(chainId, address);
  for (const s of [alice, bob, carol, dave]) {
    await usd.mint(s.address, 1_000_000n * USD);
    await weth.mint(s.address, 1_000n * ETH);
    await usd.connect(s).approve(address, ethers.MaxUint256);
    await weth.connect(s).approve(address, ethers.MaxUint256);
  }
  // Alice and Carol hold USD to buy with, Bob and Dave hold WETH to sell.
  await settlement.connect(alice).deposit(await usd.getAddress(), 100_000n * USD);
  await settlement.connect(carol).deposit(await usd.getAddress(), 100_000n * USD);
  await settlement.connect(bob).deposit(await weth.getAddress(), 50n * ETH);
  await settlement.connect(dave).deposit(await weth.getAddress(), 50n * ETH);
  const keys = { alice: signerKey(3), bob: signerKey(4), carol: signerKey(5), dave: signerKey(6) };
  return { settlement, usd, weth, domain, admin, operator, feeSink, alice, bob, carol, dave, keys, signers, chainId };
}

export type Fixture = Awaited<ReturnType<typeof deployFixture>>;

let nonceSeq = 1000n;
export async function orderFor(
  f: Fixture,
  trader: Address,
  side: OrderSide,
  amount: bigint,
  price: bigint = PRICE_2000,
  extra: Partial<Order> = {},
): Promise<Order> {
  const block = await ethers.provider.getBlock("latest");
  return {
    trader,
    baseToken: (await f.weth.getAddress()) as Address,
    quoteToken: (await f.usd.getAddress()) as Address,
    side,
    price,
    amount,
    expiry: BigInt(block!.timestamp) + 3600n,
    nonce: nonceSeq++,
    flags: 0,
    ...extra,
  };
}

export async function signed(
  f: Fixture,
  signer: Parameters<typeof signOrder>[0],
  order: Order,
  domain: SettlementDomain = f.domain,
): Promise<SignedOrder> {
  return { order, signature: await signOrder(signer, domain, order), hash: getOrderHash(f.domain, order) };
}

export function fill(maker: SignedOrder, taker: SignedOrder, baseAmount: bigint, price = PRICE_2000): FillByHash {
  return { makerHash: maker.hash, takerHash: taker.hash, baseAmount, price };
}

/** The two entry points run the same checks; the suites run once per encoding. */
export type Encoding = "abi" | "packed";
export const ENCODINGS: Encoding[] = ["abi", "packed"];
let encoding: Encoding = "abi";
export function useEncoding(e: Encoding): void {
  encoding = e;
}

/** Calls settle (or settlePacked) as the operator with the next batch id (or `batchId`). */
export async function settle(f: Fixture, orders: SignedOrder[], fills: FillByHash[], batchId?: bigint) {
  const args = buildSettleArgs(orders, fills);
  const id = batchId ?? (await f.settlement.nextBatchId());
  return settleRaw(f, id, args.orders, args.signatures, args.fills);
}

/** settle() with orders/signatures already in contract order (for tests that tamper with the encoding). */
export function settleRaw(
  f: Fixture,
  batchId: bigint,
  orders: Order[],
  signatures: Hex[],
  fills: { makerIndex: number; takerIndex: number; baseAmount: bigint; price: bigint }[],
) {
  if (encoding === "packed") {
    return f.settlement.connect(f.operator).settlePacked(batchId, encodePackedBatch({ orders, signatures, fills }));
  }
  return f.settlement.connect(f.operator).settle(batchId, orders, signatures, fills);
}

export { OrderSide };

let client: SettlementReadClient | undefined;
/** A viem client of the Hardhat network: settledTradesOf reads each batch's transaction with it. */
export function hardhatClient(): SettlementReadClient {
  client ??= createPublicClient({ transport: custom(network.provider) });
  return client;
}

/** An ethers log as settledTradesOf takes it. */
export const logOf = (l: Untyped) => ({
  address: l.address as string,
  topics: l.topics as Hex[],
  data: l.data as Hex,
  transactionHash: l.transactionHash as Hex,
  blockNumber: BigInt(l.blockNumber),
  logIndex: l.index as number,
});

/** The settlement's trades of a mined transaction (its BatchSettled log and its calldata), by settledTradesOf. */
export async function settledTradesOfReceipt(f: Fixture, receipt: Untyped): Promise<LocatedSettledTrade[]> {
  return settledTradesOf(hardhatClient(), receipt.logs.map(logOf), await f.settlement.getAddress());
}

/** The trades of a settle transaction (from its one BatchSettled log) as TradeSettled's argument lists:
 *  [batchId, makerOrderHash, takerOrderHash, maker, taker, baseToken, quoteToken, takerIsBuy, price,
 *  baseAmount, quoteAmount, makerFee, takerFee], hex strings lowercase. */
export async function settledTradeArgs(f: Fixture, tx: Promise<Untyped> | Untyped): Promise<unknown[][]> {
  const receipt = await (await tx).wait();
  return (await settledTradesOfReceipt(f, receipt)).map((t) => [
    t.batchId,
    t.makerOrderHash,
    t.takerOrderHash,
    t.maker,
    t.taker,
    t.baseToken,
    t.quoteToken,
    t.takerIsBuy,
    t.price,
    t.baseAmount,
    t.quoteAmount,
    t.makerFee,
    t.takerFee,
  ]);
}

/** `args` with every string lowercased (to compare with settledTradeArgs). */
export const lowered = (args: unknown[]) => args.map((a) => (typeof a === "string" ? a.toLowerCase() : a));

/** The expected settledTradeArgs row of batch 0's trade where Bob's sell order `maker` fills Alice's buy
 *  order `taker` of WETH for USD (lowercased, as settledTradeArgs returns it). */
export async function bobSellsToAlice(
  f: Fixture,
  maker: SignedOrder,
  taker: SignedOrder,
  t: { price: bigint; base: bigint; quote: bigint; makerFee: bigint; takerFee: bigint },
): Promise<unknown[]> {
  return lowered([
    0n,
    maker.hash,
    taker.hash,
    f.bob.address,
    f.alice.address,
    await f.weth.getAddress(),
    await f.usd.getAddress(),
    true,
    t.price,
    t.base,
    t.quote,
    t.makerFee,
    t.takerFee,
  ]);
}

/** EligibilityRegistry's regimes and accreditation levels (the contract's enums). */
export const Regime = { Free: 0, RegD: 1, RegCF: 2, RegS: 3 } as const;
export const Accreditation = { None: 0, SelfCertified506b: 1, Verified506c: 2 } as const;
export const YEAR = 365n * 86_400n;

/** An EligibilityRegistry written by `compliance`, an AssetToken in each regime, and the hold end a year from
 *  now that the tests give their restricted lots. */
export async function deployRegistry(f: Fixture, compliance: { address: string }) {
  const Registry = await ethers.getContractFactory("EligibilityRegistry");
  const registry = (await Registry.deploy(
    f.admin.address,
    compliance.address,
    await f.settlement.getAddress(),
  )) as Untyped;
  const Token = await ethers.getContractFactory("AssetToken");
  const deploy = async (symbol: string, regime: number) =>
    (await Token.deploy(symbol, symbol, 18, await registry.getAddress(), regime)) as Untyped;
  const tokens = {
    regD: await deploy("RD", Regime.RegD),
    regCF: await deploy("RCF", Regime.RegCF),
    regS: await deploy("RS", Regime.RegS),
    free: await deploy("FR", Regime.Free),
  };
  const holdEnd = BigInt(await time.latest()) + YEAR;
  return { registry, tokens, holdEnd };
}

/** deployFixture plus an ERC-1271 test wallet (`contract`) owned by account 12 (`owner`, a viem account),
 *  holding 10,000 USD inside Settlement. */
export async function deployWithWallet(contract: string) {
  const f = await deployFixture();
  const owner = signerKey(12);
  const wallet = (await (await ethers.getContractFactory(contract)).deploy(owner.address)) as Untyped;
  const walletAddress = (await wallet.getAddress()) as Address;
  await f.settlement.connect(f.alice).depositFor(walletAddress, await f.usd.getAddress(), 10_000n * USD);
  return { ...f, wallet, walletAddress, owner };
}

/** Erin (account 7), who never deposited, given `amountUsd` USD base units and an unlimited allowance to Settlement. */
export async function fundedErin(f: Fixture, amountUsd: bigint) {
  const erin = f.signers[7];
  await f.usd.mint(erin.address, amountUsd);
  await f.usd.connect(erin).approve(await f.settlement.getAddress(), ethers.MaxUint256);
  return erin;
}

/** A registry lot list as [amount, holdEnd] pairs. */
export const lotPairs = (lots: Untyped[]) => lots.map((l: Untyped) => [l.amount, l.holdEnd]);

/** The trader's nonce word holding `nonce`, as stored (its FlatSlot). */
export async function nonceWordOf(f: Fixture, trader: string, nonce: bigint): Promise<bigint> {
  const [slot] = orderSlots(trader as Address, [], nonce);
  return BigInt(await ethers.provider.getStorage(await f.settlement.getAddress(), slot!));
}
