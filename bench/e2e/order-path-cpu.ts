// tsx bench/e2e/order-path-cpu.ts — the CPU an order costs on the path every client entry shares, without the
// chain and the network: the order message's JSON and zod check, the API's placer (the wallet signature's
// recovery, or the API key's agent signing the order), the DEX service, the matcher service (intake, journal
// with fdatasync, engine, ledger), the DEX state's events, and the LMDB history once an order's trade is
// "settled" (every 100 trades, as a batch would). CPU-us per order from process.cpuUsage (every thread of this
// process), the steadier figure on a shared machine: bench:e2e's depends on the share the scheduler gives the
// stack and on the settle path's batching. Env: BENCH_ORDERS (per kind and round, default 20000),
// BENCH_INFLIGHT (64), BENCH_ROUNDS (3), BENCH_KINDS (wallet,key).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config/dev-accounts";
import type { ApiKeyRecord, ApiKeyStore } from "../../api/auth/api-keys";
import type { AuthContext } from "../../api/auth/authenticate";
import { createOrderPlacer } from "../../api/dex/place-order";
import { placeOrderBody } from "../../api/dex/schemas";
import { signedOrderToWire } from "../../api/dex/order-intent";
import { lotsToSizeText, ticksToPriceText } from "../../api/dex/units";
import { MatcherService } from "../../pipeline/match/matcher-service";
import { DEFAULT_MARKET_GRIDS, type MarketSpec } from "../../pipeline/markets";
import { createOrderDigester, getDomainSeparator } from "../../runtime/order-digest";
import { agentAccount, type AgentAccount } from "../../pipeline/intake/agent-signer";
import { SignerCache } from "../../pipeline/intake/known-signers";
import { getSettlementDomain, type Order } from "../../pipeline/order";
import { createDexService, DexState } from "../../pipeline/dex-service";
import { openDexHistory } from "../../pipeline/dex-history";
import type { Pipeline } from "../../pipeline/pipeline";
import type { SettleableTrade } from "../../pipeline/settle/batcher";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const native = require("secp256k1/bindings") as {
  ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
};

const ORDERS = Number(process.env.BENCH_ORDERS ?? 20000);
const INFLIGHT = Number(process.env.BENCH_INFLIGHT ?? 64);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const KINDS = (process.env.BENCH_KINDS ?? "wallet,key").split(",") as ("wallet" | "key")[];
const SETTLEMENT = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as Address;

const PRICE_TICKS = 250_000n;
const SIZE_LOTS = 2n;

/** The order path without the chain: matcher service, DEX state and service, the API's placer, four traders. */
interface OrderPath {
  dir: string;
  market: MarketSpec;
  digest: ReturnType<typeof createOrderDigester>;
  svc: MatcherService;
  state: DexState;
  keys: Hex[];
  traders: Address[];
  records: ApiKeyRecord[];
  expirySec: bigint;
  place: ReturnType<typeof createOrderPlacer>;
  /** the next wallet order's nonce */
  nonce: bigint;
}

/** What a settled batch does to the DEX state, every 100 trades. */
function settleEvery100(svc: MatcherService, state: DexState): void {
  let trades: SettleableTrade[] = [];
  let batchId = 0n;
  svc.setTradeSink((t) => {
    trades.push(t);
    if (trades.length < 100) return;
    const b = trades;
    trades = [];
    svc.tradesSettled(b);
    state.onSettled({
      batchId: batchId++,
      trades: b,
      txHash: `0x${"11".repeat(32)}`,
      gasUsed: 0n,
      settledAtMs: Date.now(),
    } as Parameters<DexState["onSettled"]>[0]);
  });
}

/** The API's placer over the DEX service, with each trader's API key record and agent. */
function placerOf(
  svc: MatcherService,
  state: DexState,
  knownSigners: SignerCache,
  keys: Hex[],
  traders: Address[],
  agents: AgentAccount[],
) {
  // the pipeline's parts the DEX service's placement path uses (no chain: nothing here reads it)
  const pipeline = {
    service: svc,
    subscribeSettled: () => () => undefined,
    recovered: undefined,
    client: undefined,
  } as unknown as Pipeline;
  const service = createDexService({
    pipeline,
    state,
    chainId: 31337,
    settlement: SETTLEMENT,
    rpcUrl: "http://127.0.0.1:1",
    submitterKey: keys[0],
    assets: {},
    knownSigners,
  });
  const records: ApiKeyRecord[] = traders.map((owner, i) => ({
    id: `key-${i}`,
    apiKey: `k${i}`,
    owner,
    label: "",
    permissions: ["read", "trade"],
    ipAllowlist: [],
    positionLimitE18: null,
    dailyLossLimitE18: null,
    agentAddress: agents[i].address,
    agentStatus: "approved",
    createdAtMs: 0,
    revokedAtMs: null,
  }));
  // the key store's one call on this path, answered from memory as its cache does
  const keyStore = { agentOf: async (id: string) => agents[Number(id.slice(4))] } as unknown as ApiKeyStore;
  return { records, place: createOrderPlacer({ service, keys: keyStore, now: () => Date.now(), knownSigners }) };
}

async function openPath(): Promise<OrderPath> {
  const dir = mkdtempSync(join(os.tmpdir(), "order-path-cpu-"));
  const market: MarketSpec = {
    symbol: "WETH-USD",
    baseToken: "0x00000000000000000000000000000000000000e1" as Address,
    quoteToken: "0x00000000000000000000000000000000000000a1" as Address,
    ...DEFAULT_MARKET_GRIDS["WETH-USD"],
  };
  const digest = createOrderDigester(getDomainSeparator(getSettlementDomain(31337, SETTLEMENT)));
  const state = new DexState({ history: await openDexHistory(join(dir, "history")) });
  const knownSigners = new SignerCache();
  const svc = new MatcherService({
    knownSigners,
    journalDir: join(dir, "matcher"),
    markets: [market],
    digest,
    fees: { makerFeeBps: 5n, takerFeeBps: 10n },
    expiryMarginMs: 10_000,
    snapshotParts: { dex: state },
  });
  svc.subscribe(state.onServiceEvent);
  await svc.open();
  const keys = [4, 5, 6, 7].map((i) => HARDHAT_DEV_PRIVATE_KEYS[i] as Hex);
  const traders = keys.map((k) => privateKeyToAccount(k).address);
  const expirySec = BigInt(Math.floor(Date.now() / 1000) + 3600);
  const agents: AgentAccount[] = traders.map(() => agentAccount(generatePrivateKey()));
  traders.forEach((t, i) => {
    svc.deposited(t, market.baseToken, 10n ** 30n);
    svc.deposited(t, market.quoteToken, 10n ** 30n);
    svc.agentApproved(t, agents[i].address, expirySec + 86_400n);
  });
  settleEvery100(svc, state);
  const { records, place } = placerOf(svc, state, knownSigners, keys, traders, agents);
  return { dir, market, digest, svc, state, keys, traders, records, expirySec, place, nonce: 0n };
}

const traderOf = (i: number) => ((i & 1) === 0 ? (i >> 1) % 4 : ((i >> 1) + 1) % 4);

/** the order messages' text, as a client sends them (wallet orders signed here, before the clock) */
function texts(o: OrderPath, kind: "wallet" | "key", n: number): string[] {
  const { market } = o;
  const common = {
    symbol: market.symbol,
    type: "limit",
    price: Number(ticksToPriceText(market, PRICE_TICKS)),
    size: Number(lotsToSizeText(market, SIZE_LOTS)),
    time_in_force: "gtc",
  };
  const out: string[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const sell = (i & 1) === 0;
    if (kind === "key") {
      out[i] = JSON.stringify({ type: "order", id: i, body: { ...common, side: sell ? "sell" : "buy" } });
      continue;
    }
    const k = traderOf(i);
    const order: Order = {
      trader: o.traders[k],
      baseToken: market.baseToken,
      quoteToken: market.quoteToken,
      side: sell ? 1 : 0,
      price: PRICE_TICKS * market.tickSize,
      amount: SIZE_LOTS * market.lotSize,
      expiry: o.expirySec,
      nonce: o.nonce++,
      flags: 0,
    };
    const sig = native.ecdsaSign(hexToBytes(o.digest(order).slice(2)), hexToBytes(o.keys[k].slice(2)));
    const signature = `0x${bytesToHex(sig.signature)}${(27 + sig.recid).toString(16)}`;
    out[i] = JSON.stringify({
      type: "order",
      id: i,
      body: { ...common, side: sell ? "sell" : "buy", order: signedOrderToWire(order), signature },
    });
  }
  return out;
}

/** Places the messages, BENCH_INFLIGHT at a time, as the WebSocket entry does; its CPU and wall time. */
async function run(
  o: OrderPath,
  kind: "wallet" | "key",
  msgs: string[],
): Promise<{ cpuUs: number; wallMs: number; ok: number }> {
  let next = 0;
  let ok = 0;
  const answers: string[] = [];
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: INFLIGHT }, async () => {
      while (next < msgs.length) {
        const i = next++;
        // what the WebSocket entry does with a message: parse, check, place, answer
        const m = JSON.parse(msgs[i]) as { id: number; body: unknown };
        const body = placeOrderBody.parse(m.body);
        const t = traderOf(i);
        const auth: AuthContext | null =
          kind === "key" ? { scheme: "api_key", account: o.traders[t], key: o.records[t] } : null;
        const r = await o.place(body, auth);
        answers.push(`{"type":"order_result","id":${m.id},"status":201,"body":${JSON.stringify(r.order)}}`);
        if (answers.length > 256) answers.length = 0;
        ok += 1;
      }
    }),
  );
  const c = process.cpuUsage(c0);
  return { cpuUs: c.user + c.system, wallMs: performance.now() - t0, ok };
}

async function main(): Promise<void> {
  const o = await openPath();
  console.log(
    `order path CPU (no chain): ${ORDERS} orders per kind and round, ${INFLIGHT} in flight, fdatasync on; load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")} (${os.cpus().length} cores)`,
  );
  await run(o, "key", texts(o, "key", 2000)); // warm-up
  await run(o, "wallet", texts(o, "wallet", 2000));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const kind of KINDS) {
      const r = await run(o, kind, texts(o, kind, ORDERS));
      console.log(
        `round ${round} ${kind.padEnd(6)} ${r.ok} orders: ${(r.cpuUs / r.ok).toFixed(1)} CPU-us/order, ${((r.ok * 1000) / r.wallMs).toFixed(0)} orders/s wall, load ${os.loadavg()[0].toFixed(1)}`,
      );
    }
  }
  await o.svc.close();
  await o.state.close();
  rmSync(o.dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
