// Issue #26, the High item under a running simulated market: on a stack (chains, pipeline, exchange API with the
// compliance key, the simulator trading every book), restricted lots never reach a buyer no exemption covers.
// The simulator's agents (the demo traders) are eligible investors the registry knows (recorded through the
// exchange API's compliance sync). A holder H buys CNTS (Reg CF) from the agents: its lot is inside its
// 12-month hold. Then, through the DexService (the simulator's own path, which no API admission guards):
//   1. H's restricted sell meets the resting bid of Y, whom the registry does not know (not accredited, a US
//      person): Y's bid is cancelled with `resale_restricted`, H's units go to eligible agents only;
//   2. Y's buy meets H's resting restricted sell: Y's buy ends `resale_restricted`, nothing from H;
//   3. E, accredited when its bid rests, loses accreditation in the registry: its bid is cancelled at the match;
// and at the end, checked against the registry and the chain: every restricted lot that moved (RestrictedLotsMoved)
// went to a holder the registry exempts, Y and E received none, and the chain never had to refuse a fill.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createPublicClient, createWalletClient, http, parseEther, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { demoTokenAbi, eligibilityRegistryAbi, settlementAbi } from "../../sdk/abi";
import { HARDHAT_DEV_PRIVATE_KEYS } from "../../config/dev-accounts";
import { dexServiceOf, withTestStack } from "../support/test-stack";
import { localChain } from "../../scripts/stack/clients";
import { waitFor } from "./exchange-session";
import type { DexOrderWithFills, DexService, MarketSpec } from "../../pipeline/service";
import { signedPlaceRequest } from "../../pipeline/testing/orders";
import { contractReader } from "../support/contract-reader";

const show = (o: unknown) => JSON.stringify(o, (_k, v) => (typeof v === "bigint" ? v.toString() : v));

test("resale rule under a running simulated market: no ineligible buyer receives a restricted unit, by any path", {
  timeout: 180_000,
}, async () => {
  const t0 = Date.now();
  const env = { SIMULATOR: "on", SIMULATOR_HISTORY_DAYS: "0", SIMULATOR_ORDERS_PER_SECOND: "30" };
  const components = ["iam", "pipeline", "exchange-api", "simulator"];
  await withTestStack(
    "resale-market-e2e-",
    components,
    async ({ config, stack }) => {
      const lap = (what: string) => console.error(`${what}: ${Date.now() - t0} ms`);
      lap("stack");
      const home = stack.deployments.home;
      const chain = localChain(home.chainId, config.chains.home.rpcUrl);
      const client = createPublicClient({ chain, transport: http(config.chains.home.rpcUrl), pollingInterval: 50 });
      const dex: DexService = dexServiceOf(stack);
      const registry = home.contracts.EligibilityRegistry as Address;
      const settlement = home.contracts.Settlement as Address;
      const usd = home.tokens.USD.address as Address;
      const restrictedTokens = ["CNTS", "HRBR", "NRTH", "AURA", "LMNL"].map((s) => home.tokens[s].address as Address);
      const read = contractReader(client, registry, eligibilityRegistryAbi);
      const startBlock = await client.getBlockNumber();
      const m: MarketSpec = dex.listMarkets().find((x) => x.symbol === "CNTS-USD")!;
      const cnts = m.baseToken as Address;
      const deployer = privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[0]);
      const send = async (
        w: ReturnType<typeof createWalletClient>,
        address: Address,
        abi: readonly unknown[],
        functionName: string,
        args: unknown[],
      ) =>
        assert.equal(
          (
            await client.waitForTransactionReceipt({
              hash: await w.writeContract({ address, abi, functionName, args, chain, account: w.account! } as never),
            })
          ).status,
          "success",
          functionName,
        );

      // the agents are recorded eligible through the compliance path (accredited, non-US)
      for (const k of config.keys.demoTraders)
        await waitFor(
          `agent ${k.address} recorded`,
          async () => ((await read<[number, boolean]>("investor", [k.address]))[0] === 2 ? true : undefined),
          60_000,
        );

      lap("agents recorded");
      // H, Y and E: funded wallets with USD in Settlement
      const [h, y, e] = [
        privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[9]),
        privateKeyToAccount(HARDHAT_DEV_PRIVATE_KEYS[8]),
        privateKeyToAccount(generatePrivateKey()),
      ];
      const admin = createWalletClient({ account: deployer, chain, transport: http(config.chains.home.rpcUrl) });
      await client.waitForTransactionReceipt({
        hash: await admin.sendTransaction({ to: e.address, value: parseEther("1") }),
      });
      // the test's own compliance officer: the stack's compliance key sends on its own nonce lane meanwhile
      const officer = privateKeyToAccount(generatePrivateKey());
      const compliance = createWalletClient({ account: officer, chain, transport: http(config.chains.home.rpcUrl) });
      await client.waitForTransactionReceipt({
        hash: await admin.sendTransaction({ to: officer.address, value: parseEther("1") }),
      });
      const complianceRole = await read<Hex>("COMPLIANCE_ROLE", []);
      await send(admin, registry, eligibilityRegistryAbi, "grantRole", [complianceRole, officer.address]);
      for (const who of [h, y, e]) {
        const w = createWalletClient({ account: who, chain, transport: http(config.chains.home.rpcUrl) });
        await send(admin, usd, demoTokenAbi, "mint", [who.address, 100_000n * 10n ** 6n]);
        await send(w, usd, demoTokenAbi, "approve", [settlement, 100_000n * 10n ** 6n]);
        await send(w, settlement, settlementAbi, "deposit", [usd, 100_000n * 10n ** 6n]);
      }
      await waitFor("deposits seen by the pipeline", async () =>
        (await dex.getBalances(e.address)).some(
          (b) => b.token.toLowerCase() === usd.toLowerCase() && b.onChainUnits > 0n,
        )
          ? true
          : undefined,
      );

      const place = async (
        who: PrivateKeyAccount,
        side: "buy" | "sell",
        priceTicks: bigint,
        sizeLots: bigint,
        tif: "gtc" | "ioc" = "gtc",
      ): Promise<DexOrderWithFills> => {
        return dex.placeOrder(
          await signedPlaceRequest(who, home.chainId, settlement, m, { side, priceTicks, sizeLots, timeInForce: tif }),
        );
      };
      const trades: { maker: string; taker: string }[] = [];
      const unsubscribe = dex.subscribe((ev) => {
        if (ev.kind === "trade") trades.push({ maker: ev.trade.makerOrderId, taker: ev.trade.takerOrderId });
      });
      const book = async () => (await dex.getOrderBook(m.symbol, 10))!;
      await waitFor(
        "a two-sided CNTS book",
        async () => ((await book()).bids.length > 0 && (await book()).asks.length > 0 ? true : undefined),
        60_000,
      );

      lap("funded");
      // H buys from the agents (their seed units are free): a lot inside its hold, recorded from the ledger
      const lotsPerUnit = 10n ** BigInt(m.baseDecimals) / m.lotSize;
      const bestAsk = (await book()).asks[0]!.priceTicks;
      const bought = await place(h, "buy", bestAsk * 2n, 200n * lotsPerUnit, "ioc");
      assert.ok(bought.fills.length > 0, "H bought from the agents");
      await waitFor("H's lot recorded (all its CNTS restricted)", async () => {
        const [restricted, free] = await Promise.all([
          read<bigint>("restrictedOf", [cnts, h.address]),
          read<bigint>("freeOf", [cnts, h.address]),
        ]);
        return restricted > 0n && free === 0n ? true : undefined;
      });
      lap("H's lot recorded");
      const held = await contractReader(client, settlement, settlementAbi)<bigint>("balanceOf", [h.address, cnts]);
      const heldLots = held / m.lotSize;

      // 1. Y's bid rests inside the spread; H's restricted sell meets it first: Y's bid ends, H's units go on to
      //    the agents' bids (eligible) and the rest of H's sell rests at Y's price
      const inside = async () => {
        const b = await book();
        return b.bids[0]!.priceTicks + 1n < b.asks[0]!.priceTicks ? b.bids[0]!.priceTicks + 1n : b.bids[0]!.priceTicks;
      };
      const pY = await inside();
      const yBid = await place(y, "buy", pY, 1_000n * lotsPerUnit);
      const hSell = await place(h, "sell", pY, heldLots / 2n);
      const yAfter = (await dex.getOrder(yBid.orderId))!;
      assert.equal(yAfter.status, "cancelled", show(yAfter));
      assert.equal(yAfter.statusReason, "resale_restricted");
      assert.ok(
        !trades.some((t) => [t.maker, t.taker].includes(yBid.orderId) && [t.maker, t.taker].includes(hSell.orderId)),
        "no trade between Y and H",
      );

      // 2. Y's buy meets H's resting restricted sell: Y's buy ends with nothing from H
      const hOpen = (await dex.getOrder(hSell.orderId))!;
      if (hOpen.status === "open" || hOpen.status === "partially_filled") {
        const yBuy = await place(y, "buy", hOpen.priceTicks!, 10n * lotsPerUnit);
        const yBuyAfter = (await dex.getOrder(yBuy.orderId))!;
        assert.equal(yBuyAfter.statusReason, "resale_restricted", show(yBuyAfter));
        assert.ok(!trades.some((t) => t.maker === hSell.orderId && t.taker === yBuy.orderId));
        await dex
          .cancelOrder({ orderId: hSell.orderId, account: h.address, reason: "user_cancelled" })
          .catch(() => undefined);
      }

      // 3. E is accredited when its bid rests, then loses it in the registry: the match refuses it
      await send(compliance, registry, eligibilityRegistryAbi, "recordInvestor", [e.address, 2, false]);
      await new Promise((r) => setTimeout(r, 1_000)); // the pipeline's registry follower polls every 200 ms
      const pE = await inside();
      const eBid = await place(e, "buy", pE, 1_000n * lotsPerUnit);
      await send(compliance, registry, eligibilityRegistryAbi, "recordInvestor", [e.address, 0, false]);
      await new Promise((r) => setTimeout(r, 1_000));
      // H's IOC sell reaches E's bid first, then the agents' bids below it (eligible: the lots move to them)
      const hSell2 = await place(h, "sell", (pE * 97n) / 100n, heldLots / 4n, "ioc");
      assert.ok(hSell2.fills.length > 0, "H's restricted units went to the agents");
      const eAfter = (await dex.getOrder(eBid.orderId))!;
      assert.equal(eAfter.statusReason, "resale_restricted", show(eAfter));
      assert.ok(!trades.some((t) => t.maker === eBid.orderId && t.taker === hSell2.orderId));

      lap("attacks");
      // the market keeps trading a while; then everything settles
      await new Promise((r) => setTimeout(r, 5_000));
      unsubscribe();
      await waitFor("every order of H, Y and E settled", async () => {
        const all = await Promise.all([h, y, e].map((w) => dex.listOrders({ account: w.address, limit: 10_000 })));
        return all.flat().every((o) => o.fills.every((f) => f.settlement === "settled")) ? true : undefined;
      });

      lap("settled");
      // against the registry and the chain: every restricted unit that moved went to an exempt holder; Y and E
      // received none; no fill was left for the chain to refuse
      const moved = await client.getContractEvents({
        address: registry,
        abi: eligibilityRegistryAbi,
        eventName: "RestrictedLotsMoved",
        fromBlock: startBlock,
      });
      assert.ok(moved.length > 0, "restricted lots changed hands under the market");
      for (const ev of moved) {
        const { token, to } = ev.args as { token: Address; to: Address };
        const [, regime] = (await client.readContract({
          address: settlement,
          abi: settlementAbi,
          functionName: "restrictedToken",
          args: [token],
        })) as [Address, number];
        assert.ok(
          await read<boolean>("isExempt", [regime, to]),
          `${to} received restricted units of ${token} without an exemption`,
        );
      }
      for (const token of restrictedTokens)
        for (const who of [y.address, e.address])
          assert.deepEqual(
            await read<unknown[]>("receivedLotsOf", [token, who]),
            [],
            `${who} holds a received lot of ${token}`,
          );
      const rejected = (
        await Promise.all(
          [h, y, e, ...config.keys.demoTraders].map((w) => dex.listOrders({ account: w.address, limit: 10_000 })),
        )
      )
        .flat()
        .filter((o) => String(o.statusReason ?? "").startsWith("settlement_rejected"));
      assert.deepEqual(
        rejected.map((o) => o.statusReason),
        [],
      );
    },
    env,
  );
});
