// Issue 11 ("one trader halts all settlement"), the triggers test/e2e/poisoned-orders.test.ts does not cover,
// on a real stack under load: honest wallet-signed REST orders on WETH-USD (A sells, B buys, concurrently)
// while, on WBTC-USD, four orders are matched and then poisoned on chain before their trades settle:
//   - an API-key order whose agent the trader revokes on chain (revokeAgent) -> SettlementSignerNotAuthorized
//   - an ERC-1271 wallet that answers correctly at placement, then refuses -> SettlementContractSignatureInvalid
//   - an ERC-1271 wallet that answers correctly at placement, then burns all its gas -> the same, bounded gas
//   - a trader who requests a withdrawal of its whole USD, waits the delay and executes it
//     -> SettlementInsufficientBalance
// Every honest trade settles on chain, each poisoned order ends cancelled with settlement_rejected:<Error>
// (GET /v1/orders/{id}), its counterparty's dropped fill is released, the venue never halts, and orders
// placed afterwards (a wallet's too, once it answers correctly again) settle.
//
// Determinism: settlement is held with the batcher's test hook (pipeline.batcher.hold()) from before the
// poisoned orders are matched until every on-chain poisoning action is mined and seen by the pipeline
// (syncChain). Stopping the chain's automine instead would also hold the poisoning transactions themselves
// and leave their order against the settle transaction to the node's mempool; a batcher held off chain
// leaves the chain free. The honest load keeps flowing meanwhile (matched, then settled on release); the
// withdrawal delay passes with evm_increaseTime rather than a wait.
//
// ERC-1271 orders are placed through the DEX service the REST route calls (api/dex/order-intent parsing,
// then dexService.placeOrder): the REST edge (api/dex/place-order.ts) accepts only orders whose ECDSA
// signature is the trader's, and a contract wallet has no key to sign wallet-authenticated requests.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import {
  type Abi,
  createWalletClient,
  http,
  parseAbi,
  type Address,
  type Hex,
  type PrivateKeyAccount,
  type WalletClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { loadArtifact } from "../../scripts/artifacts";
import { settlementAbi } from "../../sdk/abi";
import type { MarketSpec } from "../../pipeline/service";
import { checkSignedOrder, intentOf, parseOrderFields } from "../../api/dex/order-intent";
import { signedOrderToWire } from "../../api/dex/order-intent";
import { presentOrder } from "../../api/dex/present";
import { lotsToSizeText, decimalPriceToTicks, sizeToLots, ticksToPriceText } from "../../api/dex/units";
import {
  api,
  createApiKey,
  keyHeaders,
  keyOrderBody,
  signedOrderBody,
  walletHeaders,
  type TestKey,
} from "../../api/testing/client";
import { getSettlementDomain, signOrder, type Order } from "../../sdk/eip712";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config/dev-accounts";
import { dexApiUrls, watchVenue, wireOrderHash, withDexStack } from "../support/dex-stack";
import { localChain } from "../../scripts/stack/clients";

const Mode = { Owner: 0, Refuse: 1, BurnGas: 3 } as const;
const walletArtifact = loadArtifact("SettlementTestHostileWallet");
const tokenAbi = parseAbi([
  "function mint(address to, uint256 amount)",
  "function approve(address spender, uint256 amount) returns (bool)",
]);

test("agent revoked, ERC-1271 wallets that flip or burn gas, a withdrawal: all between match and settle, under load; honest trades settle, the venue never halts", {
  timeout: 240_000,
}, async () => {
  await withDexStack({ prefix: "poisoned-wallets-e2e-" }, async ({ config, stack, pipe, defer }) => {
    let venue: ReturnType<typeof watchVenue> | undefined;
    let release: (() => void) | undefined;
    defer(() => {
      release?.();
      venue?.stop();
    });
    const p = pipe.pipeline;
    const { origin } = dexApiUrls(stack);
    const markets = pipe.dexService.listMarkets();
    const m: MarketSpec = markets.find((x) => x.symbol === "WETH-USD")!;
    const mw: MarketSpec = markets.find((x) => x.symbol === "WBTC-USD")!;
    const settlement = stack.deployments.home.contracts.Settlement as Address;
    const chainId = config.chains.home.chainId;
    const rpcUrl = stack.chains.home.rpcUrl;
    const abi = settlementAbi;
    const domain = getSettlementDomain(chainId, settlement);
    const [A, B, C, D] = config.keys.demoTraders
      .slice(0, 4)
      .map((k) => privateKeyToAccount(k.privateKey)) as PrivateKeyAccount[];
    const chain = localChain(chainId, rpcUrl);
    const walletOf = (acc: PrivateKeyAccount) => createWalletClient({ account: acc, chain, transport: http(rpcUrl) });
    const mined = async (hash: Hex) => {
      const r = await p.client.waitForTransactionReceipt({ hash });
      assert.equal(r.status, "success", `transaction ${hash}`);
      return r;
    };
    /** `functionName(args)` of the contract at `address`, sent by `w`, mined and successful. */
    const write = async (w: WalletClient, address: Address, a: Abi, functionName: string, args: unknown[]) =>
      mined(await w.writeContract({ address, abi: a, functionName, args } as never));
    const read = <T>(functionName: string, args: unknown[]) =>
      p.client.readContract({ address: settlement, abi, functionName, args } as never) as Promise<T>;

    // the venue's state, sampled all along: it must never be halted
    venue = watchVenue(p);

    // ---- actors: two test wallets (owner key signs for them), a fresh trader E holding USD, C's API key
    const deployer = walletOf(privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[0] as Hex));
    const owner = privateKeyToAccount(generatePrivateKey());
    const E = privateKeyToAccount(generatePrivateKey());
    const usd = mw.quoteToken;
    const deployWallet = async () => {
      const hash = await deployer.deployContract({
        abi: walletArtifact.abi,
        bytecode: walletArtifact.bytecode,
        args: [owner.address] as never,
      });
      return (await mined(hash)).contractAddress as Address;
    };
    const flipW = await deployWallet();
    const burnW = await deployWallet();
    const fundUsd = 1_000_000n * 10n ** BigInt(mw.quoteDecimals);
    await write(deployer, usd, tokenAbi, "mint", [deployer.account.address, 3n * fundUsd]);
    await write(deployer, usd, tokenAbi, "approve", [settlement, 3n * fundUsd]);
    for (const to of [flipW, burnW, E.address])
      await write(deployer, settlement, abi, "depositFor", [to, usd, fundUsd]);
    await mined(await deployer.sendTransaction({ to: E.address, value: 10n ** 18n }));
    const cKey: TestKey = await createApiKey(origin, C);
    await p.syncChain();

    // ---- helpers
    const retrying = async (send: () => Promise<Awaited<ReturnType<typeof api>>>) => {
      for (;;) {
        const r = await send();
        if (r.status === 429 || (r.status === 503 && r.body?.error?.details?.reason === "SETTLEMENT_BACKLOG")) {
          await new Promise((res) => setTimeout(res, 200 + Math.floor(Math.random() * 800)));
          continue;
        }
        return r;
      }
    };
    const honestPlaced = new Map<string, { hash: Hex; trader: Address; nonce: bigint; w: PrivateKeyAccount }>();
    const placeSigned = async (
      w: PrivateKeyAccount,
      mk: MarketSpec,
      side: "buy" | "sell",
      nonce: bigint,
      priceTicks: bigint,
      sizeLots: bigint,
    ) => {
      const body = await signedOrderBody(w, mk, chainId, settlement, { side, priceTicks, sizeLots, nonce });
      const hash = wireOrderHash(domain, body);
      const r = await retrying(() => api(origin, "POST", "/v1/orders", { body }));
      return { r, hash };
    };
    const getOrder = async (w: PrivateKeyAccount, id: string) =>
      (
        await api(origin, "GET", `/v1/orders/${id}`, {
          headers: await walletHeaders(w, origin, "GET", `/v1/orders/${id}`),
        })
      ).body;
    /** a contract wallet's order, through the DEX service behind POST /v1/orders (see the header) */
    let walletNonce = 1n;
    const placeForWallet = async (wallet: Address, priceTicks: bigint, sizeLots: bigint) => {
      const order: Order = {
        trader: wallet,
        baseToken: mw.baseToken,
        quoteToken: mw.quoteToken,
        side: 0,
        price: priceTicks * mw.tickSize,
        amount: sizeLots * mw.lotSize,
        expiry: BigInt(Math.floor(Date.now() / 1000) + 3600),
        nonce: walletNonce++,
        flags: 0,
      };
      const body = {
        symbol: mw.symbol,
        side: "buy",
        type: "limit",
        price: Number(ticksToPriceText(mw, priceTicks)),
        size: Number(lotsToSizeText(mw, sizeLots)),
        time_in_force: "gtc",
        order: signedOrderToWire(order),
        signature: await signOrder(owner, domain, order),
      };
      const now = Date.now();
      const fields = parseOrderFields(mw, body as never, now, true);
      const sp = checkSignedOrder(mw, body as never, fields, now);
      const req = {
        ...intentOf(mw.symbol, "buy", fields, { orderId: randomUUID(), clientOrderId: randomUUID() }, now),
        kind: "signed",
        trader: wallet,
        order: sp.order,
        signature: sp.signature,
      };
      const placed = await pipe.dexService.placeOrder(req as never);
      return presentOrder(mw, placed);
    };
    const walletOrderView = async (id: string) => presentOrder(mw, (await pipe.dexService.getOrder(id))!);

    const grid = (r: { ok: boolean; value?: bigint }) => {
      assert.ok(r.ok);
      return r.value!;
    };
    const wbtcTicks = grid(decimalPriceToTicks(mw, "70000"));
    const wbtcLots = grid(sizeToLots(mw, "0.01"));

    // ---- honest load on WETH-USD, concurrently with everything below
    const N = 60;
    let nonceA = 1n;
    let nonceB = 1n;
    const load = Promise.all(
      Array.from({ length: 2 * N }, async (_, i) => {
        const w = i % 2 === 0 ? A : B;
        const nonce = i % 2 === 0 ? nonceA++ : nonceB++;
        const { r, hash } = await placeSigned(w, m, i % 2 === 0 ? "sell" : "buy", nonce, 250_000n, 100n);
        if (r.status === 201) honestPlaced.set(r.body.order_id, { hash, trader: w.address, nonce, w });
        return r;
      }),
    );

    // ---- hold settlement, match the four orders to be poisoned (each rests a buy, D sells into it)
    release = p.batcher.hold();
    const victims: string[] = [];
    const dSells = async () => {
      const { r } = await placeSigned(D, mw, "sell", BigInt(victims.length + 1), wbtcTicks, wbtcLots);
      assert.equal(r.status, 201, r.text);
      victims.push(r.body.order_id);
    };
    const byKey = await retrying(() =>
      api(origin, "POST", "/v1/orders", {
        headers: keyHeaders(cKey),
        body: keyOrderBody(mw, {
          side: "buy",
          priceTicks: wbtcTicks,
          sizeLots: wbtcLots,
          clientOrderId: "to-be-revoked",
        }),
      }),
    );
    assert.equal(byKey.status, 201, byKey.text);
    await dSells();
    const flipped = await placeForWallet(flipW, wbtcTicks, wbtcLots);
    assert.equal(flipped.status, "open", JSON.stringify(flipped));
    await dSells();
    const burner = await placeForWallet(burnW, wbtcTicks, wbtcLots);
    assert.equal(burner.status, "open", JSON.stringify(burner));
    await dSells();
    const byE = await placeSigned(E, mw, "buy", 1n, wbtcTicks, wbtcLots);
    assert.equal(byE.r.status, 201, byE.r.text);
    await dSells();
    for (const id of victims)
      assert.equal((await getOrder(D, id)).status, "filled", "each poisoned order is matched, its trade waits");
    assert.ok(p.health().batcher.queuedTrades >= 4);

    // ---- poison them on chain while their trades wait
    const agents = await p.client.getContractEvents({
      address: settlement,
      abi,
      eventName: "AgentApproved",
      args: { trader: C.address },
      fromBlock: 0n,
    } as never);
    const agent = (agents.at(-1) as unknown as { args: { agent: Address } }).args.agent;
    await write(walletOf(C), settlement, abi, "revokeAgent", [agent]);
    const walletAbi = walletArtifact.abi;
    await write(deployer, flipW, walletAbi, "setMode", [Mode.Refuse, 0n]);
    await write(deployer, burnW, walletAbi, "setMode", [Mode.BurnGas, 0n]);
    const eUsd = await read<bigint>("balanceOf", [E.address, usd]);
    await write(walletOf(E), settlement, abi, "requestWithdrawal", [usd, eUsd]);
    const delay = await read<bigint>("withdrawalDelay", []);
    await p.client.request({ method: "evm_increaseTime", params: [Number(delay)] } as never);
    await write(walletOf(E), settlement, abi, "executeWithdrawal", [usd]);
    assert.equal(await read<bigint>("balanceOf", [E.address, usd]), 0n);
    await p.syncChain();
    release();
    release = undefined;

    const honest = await load;
    for (const r of honest) assert.equal(r.status, 201, r.text);
    await p.batcher.drain();
    await p.syncChain();

    // ---- the poisoned orders: cancelled, with the contract's reason
    const keyView = (await api(origin, "GET", `/v1/orders/${byKey.body.order_id}`, { headers: keyHeaders(cKey) })).body;
    assert.equal(keyView.status, "cancelled", JSON.stringify(keyView));
    assert.equal(keyView.status_reason, "settlement_rejected:SettlementSignerNotAuthorized", JSON.stringify(keyView));
    for (const [id, reason] of [
      [flipped.order_id, "settlement_rejected:SettlementContractSignatureInvalid"],
      [burner.order_id, "settlement_rejected:SettlementContractSignatureInvalid"],
    ] as const) {
      const v = await walletOrderView(id);
      assert.equal(v.status, "cancelled", JSON.stringify(v));
      assert.equal(v.status_reason, reason, JSON.stringify(v));
    }
    const eView = await getOrder(E, byE.r.body.order_id);
    assert.equal(eView.status, "cancelled", JSON.stringify(eView));
    assert.equal(eView.status_reason, "settlement_rejected:SettlementInsufficientBalance", JSON.stringify(eView));
    // none of them traded on chain; the counterparty's fills were dropped (not settled, not re-offered)
    for (const h of [byE.hash]) assert.equal(await read<bigint>("filledAmount", [h]), 0n);
    for (const w of [flipW, burnW]) assert.equal(await read<bigint>("balanceOf", [w, mw.baseToken]), 0n);
    for (const id of victims) {
      const v = await getOrder(D, id);
      assert.equal(v.status, "cancelled", JSON.stringify(v));
      assert.equal(v.status_reason, "counterparty_settlement_rejected", JSON.stringify(v));
    }
    assert.equal(p.health().batcher.rejectedOrders >= 4, true, JSON.stringify(p.health().batcher));

    // ---- every honest trade settled on chain
    let filled = 0;
    for (const r of honest) {
      const pl = honestPlaced.get(r.body.order_id)!;
      const now = await getOrder(pl.w, r.body.order_id);
      if (now.status === "filled") {
        assert.equal(
          await read<boolean>("isNonceUsed", [pl.trader, pl.nonce]),
          true,
          `order ${r.body.order_id} fully filled on chain`,
        );
        filled += 1;
      } else {
        assert.equal(await read<boolean>("isNonceUsed", [pl.trader, pl.nonce]), false, JSON.stringify(now));
        const filledLots = grid(sizeToLots(m, String(now.filled_size)));
        assert.equal(await read<bigint>("filledAmount", [pl.hash]), filledLots * m.lotSize, JSON.stringify(now));
      }
    }
    assert.ok(filled >= N, `most honest orders filled (${filled} of ${2 * N})`);

    // ---- afterwards: new orders settle, a wallet's too once it answers correctly again
    await write(deployer, flipW, walletAbi, "setMode", [Mode.Owner, 0n]);
    const again = await placeForWallet(flipW, wbtcTicks, wbtcLots);
    const dLast = await placeSigned(D, mw, "sell", 100n, wbtcTicks, wbtcLots);
    assert.equal(dLast.r.status, 201, dLast.r.text);
    const lastA = await placeSigned(A, m, "sell", 10_000n, 251_000n, 100n);
    const lastB = await placeSigned(B, m, "buy", 10_000n, 251_000n, 100n);
    assert.equal(lastA.r.status, 201, lastA.r.text);
    assert.equal(lastB.r.status, 201, lastB.r.text);
    await p.batcher.drain();
    assert.equal((await getOrder(B, lastB.r.body.order_id)).status, "filled");
    assert.equal(await read<boolean>("isNonceUsed", [B.address, 10_000n]), true);
    assert.equal((await walletOrderView(again.order_id)).status, "filled");
    assert.ok((await read<bigint>("balanceOf", [flipW, mw.baseToken])) > 0n, "the wallet received its WBTC");

    venue.assertNeverHalted();
    assert.equal(p.health().batcher.state, "running");
    const rec = await p.reconcile();
    assert.notEqual(rec.state, "mismatch", JSON.stringify(rec.mismatches));
    console.log(
      `poisoned-wallets: ${honest.length} honest orders, ${filled} filled and checked on chain, ${p.health().batcher.rejectedOrders} orders rejected by settlement`,
    );
  });
});
