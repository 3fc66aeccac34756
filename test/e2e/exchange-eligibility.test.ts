// Issue #15: the chain respects the resale rules too (docs/decisions/api.md "Eligibility registry sync"). On a
// stack (chains, asset tokens, pipeline, identity provider, exchange API holding the compliance key): the
// exchange API records investors (an account's custody address at creation, its accreditation when it changes)
// and, after a settled fill of a restricted asset, the holder's restricted lots from the exchange ledger. A
// buyer of a Reg CF lot (a demo trader placing directly through the pipeline, whose key the test holds) withdraws
// it from Settlement to its wallet; a direct ERC-20 transfer past its free units to a non-accredited address is
// refused on chain (exactly its free units pass, one unit more does not), also after the sandbox clock moved a
// year (the chain's hold is on the chain's clock); an accredited investor receives the restricted units, and
// their hold goes with them.
import { restrictionEndMs } from "../../api/exchange/orders/resale";
import assert from "node:assert/strict";
import { test } from "node:test";
import { createPublicClient, createWalletClient, http, parseEventLogs, type Abi, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { assetTokenAbi, eligibilityRegistryAbi, settlementAbi } from "../../sdk/abi";
import { localChain } from "../../scripts/stack/clients";
import { waitFor, withExchangeStack } from "./exchange-session";
import type { ExchangeApiHandle } from "../../scripts/stack/components/exchange-api";
import type { MarketSpec } from "../../pipeline/service";
import { signedPlaceRequest } from "../../pipeline/testing/orders";
import { contractReader } from "../support/contract-reader";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

test("eligibility registry: restricted lots recorded from the ledger; the chain refuses a transfer the rules refuse", {
  timeout: 300_000,
}, async () => {
  await withExchangeStack("exchange-eligibility-e2e-", async ({ config, stack, home, dex, login }) => {
    const chain = localChain(home.chainId, config.chains.home.rpcUrl);
    const client = createPublicClient({ chain, transport: http(config.chains.home.rpcUrl), pollingInterval: 50 });
    const exchange = stack.components.find((c) => c.name === "exchange-api")!.handle as ExchangeApiHandle;
    assert.ok(exchange.compliance, "the exchange API runs the registry's writer");
    const registry = home.contracts.EligibilityRegistry as Address;
    assert.ok(registry, "the registry is deployed");
    const settlement = home.contracts.Settlement as Address;
    const cnts = home.tokens.CNTS.address as Address; // Reg CF: a 12-month hold, accredited buyers exempt
    const read = contractReader(client, registry, eligibilityRegistryAbi);

    // 1. an account's custody address is recorded when it is created (non-US, not accredited), and again
    //    when its accreditation changes (506b self-certified)
    const alice = await login("+447700900301"); // not +1: a non-US person (the profile's default)
    await waitFor("alice recorded", async () => {
      if ((await exchange.compliance!.pendingCount()) > 0) return undefined;
      const [acc, nonUS] = await read<[number, boolean]>("investor", [alice.address]);
      return acc === 0 && nonUS === true ? true : undefined;
    });
    assert.equal((await alice.call("POST", "/sandbox/accreditation/506b", {})).status, 200);
    await waitFor("alice's accreditation recorded", async () =>
      (await read<[number, boolean]>("investor", [alice.address]))[0] === 1 ? true : undefined,
    );

    // 2. a Reg CF lot: a demo trader buys 5 CNTS from another through the pipeline (real signed orders)
    const [seller, buyer] = config.keys.demoTraders.map((k) => privateKeyToAccount(k.privateKey));
    const m: MarketSpec = dex.listMarkets().find((x) => x.symbol === "CNTS-USD")!;
    const place = async (who: typeof seller, side: "buy" | "sell", priceTicks: bigint, sizeLots: bigint) => {
      return dex.placeOrder(await signedPlaceRequest(who, home.chainId, settlement, m, { side, priceTicks, sizeLots }));
    };
    const lots = (5n * 10n ** BigInt(m.baseDecimals)) / m.lotSize;
    const units = lots * m.lotSize;
    assert.equal((await place(seller, "sell", 1_000n, lots)).status, "open"); // 5 @ 10.00
    const bought = await place(buyer, "buy", 1_000n, lots);
    assert.equal(bought.status, "filled");
    const fill = await waitFor("the fill settled", async () => {
      const o = await dex.getOrder(bought.orderId);
      return o && o.fills.length === 1 && o.fills[0].settlement === "settled" ? o.fills[0] : undefined;
    });

    // 3. the registry holds the buyer's lot: its units and the ledger's hold end (12 calendar months from the
    //    fill, in whole seconds rounded up); the seller (its units from the seed, no lot) has none
    // what the buyer received: the fill less a fee taken in the asset (the ledger's lot)
    const received = fill.feeToken.toLowerCase() === m.baseToken.toLowerCase() ? units - fill.feeUnits : units;
    const holdEndMs = new Date(fill.timestampMs).setUTCFullYear(new Date(fill.timestampMs).getUTCFullYear() + 1);
    const onChainLots = await waitFor("the buyer's lot recorded", async () => {
      const l = await read<{ amount: bigint; holdEnd: bigint | number }[]>("lotsOf", [cnts, buyer.address]);
      return l.length > 0 ? l : undefined;
    });
    assert.deepEqual(
      onChainLots.map((l) => [l.amount, BigInt(l.holdEnd)]),
      [[received, BigInt(Math.ceil(holdEndMs / 1000))]],
    );
    assert.equal(await read<bigint>("restrictedOf", [cnts, buyer.address]), received);
    assert.deepEqual(await read<unknown[]>("lotsOf", [cnts, seller.address]), []);

    // 4. the buyer withdraws all its CNTS from Settlement to its wallet (a transfer out of Settlement is no
    //    holder's transfer: not checked)
    const wallet = createWalletClient({ account: buyer, chain, transport: http(config.chains.home.rpcUrl) });
    /** The buyer's transaction calling `functionName` on `address`, mined: its receipt. */
    const submit = async (address: Address, abi: Abi, functionName: string, args: unknown[], gas?: bigint) =>
      client.waitForTransactionReceipt({
        hash: await wallet.writeContract({ address, abi, functionName, args, gas } as never),
      });
    const inSettlement = (await client.readContract({
      address: settlement,
      abi: settlementAbi,
      functionName: "balanceOf",
      args: [buyer.address, cnts],
    })) as bigint;
    assert.ok(inSettlement > received);
    const requested = await submit(settlement, settlementAbi, "requestWithdrawal", [cnts, inSettlement]);
    // the chain's clock passes the withdrawal delay (only it: the orders signed below expire on that clock too)
    const [ev] = parseEventLogs({
      abi: settlementAbi,
      logs: requested.logs,
      eventName: "WithdrawalRequested",
    }) as unknown as { args: { availableAt: bigint } }[];
    const block = await client.getBlock({ blockNumber: requested.blockNumber });
    await client.request({
      method: "evm_increaseTime",
      params: [Number(ev!.args.availableAt - block.timestamp) + 1],
    } as never);
    await client.request({ method: "evm_mine", params: [] } as never);
    await submit(settlement, settlementAbi, "executeWithdrawal", [cnts]);
    const held = (await client.readContract({
      address: cnts,
      abi: assetTokenAbi,
      functionName: "balanceOf",
      args: [buyer.address],
    })) as bigint;
    assert.ok(held >= inSettlement);
    const free = await read<bigint>("freeOf", [cnts, buyer.address]);
    assert.equal(free, held - received, "free = its holding less the restricted lot");

    // 5. to a non-accredited US address (unrecorded): past the free units refused on chain, exactly them accepted
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    const transfer = (to: Address, amount: bigint) =>
      client.simulateContract({
        account: buyer,
        address: cnts,
        abi: [...assetTokenAbi, ...eligibilityRegistryAbi],
        functionName: "transfer",
        args: [to, amount],
      } as never);
    await assert.rejects(transfer(stranger, free + 1n), /EligibilityTransferRestricted/);
    await assert.rejects(transfer(stranger, held), /EligibilityTransferRestricted/);
    const send = async (to: Address, amount: bigint) =>
      (await submit(cnts, assetTokenAbi, "transfer", [to, amount], 1_000_000n)).status;
    assert.equal(await send(stranger, free), "success");
    await assert.rejects(transfer(stranger, 1n), /EligibilityTransferRestricted/, "only restricted units left");
    // a reverted transaction too (not just the simulation): nothing moved
    assert.equal(await send(stranger, 1n), "reverted");
    assert.equal(
      (await client.readContract({
        address: cnts,
        abi: assetTokenAbi,
        functionName: "balanceOf",
        args: [stranger],
      })) as bigint,
      free,
    );

    // 6. the sandbox clock (funding and the investor rules) moves a year: the exchange frees the lot on its
    //    books, the chain keeps its own clock and still refuses (the hold end on chain is the ledger's, real time)
    assert.equal((await alice.call("POST", "/sandbox/funding/advance-clock", { seconds: 366 * 86_400 })).status, 200);
    await assert.rejects(transfer(stranger, 1n), /EligibilityTransferRestricted/);

    // 7. an accredited investor (alice, 506b) receives restricted units; the hold goes with them
    assert.equal(await send(alice.address, received / 2n), "success");
    const tacked = await read<{ amount: bigint; holdEnd: bigint | number }[]>("lotsOf", [cnts, alice.address]);
    assert.deepEqual(
      tacked.map((l) => [l.amount, BigInt(l.holdEnd)]),
      [[received / 2n, BigInt(Math.ceil(holdEndMs / 1000))]],
    );
    assert.equal(await read<bigint>("restrictedOf", [cnts, buyer.address]), received - received / 2n);

    // 8. nothing is lost across a restart: with the writer stopped, alice buys CNTS through the exchange API (not
    //    recorded); started again, it recomputes the exchange investors' lots from the ledger and records hers;
    //    the lot she received by the direct transfer stays (the registry keeps received lots apart)
    await exchange.compliance!.stop();
    assert.equal((await place(seller, "sell", 1_000n, lots)).status, "open");
    const aliceBuy = await alice.marketOrder("CNTS", "BUY", 1);
    assert.equal(aliceBuy.status, 201, JSON.stringify(aliceBuy.body));
    await waitFor(
      "alice's buy settled",
      async () =>
        (await alice.call("GET", `/orders/${aliceBuy.body.data.orderId}`)).body.data.settlement === "settled"
          ? true
          : undefined,
      120_000,
      500,
    );
    assert.equal((await read<unknown[]>("lotsOf", [cnts, alice.address])).length, 1, "not recorded while stopped");
    // her trade's transaction by its id (trd_...), as the list shows it; an unknown trade id is 404
    const trade = ((await alice.call("GET", "/transactions?type=trade")).body.data as Json[])[0];
    assert.match(trade.id, /^trd_[0-9a-z]+_buy$/);
    assert.deepEqual((await alice.call("GET", `/transactions/${trade.id}`)).body.data, trade);
    const unknown = await alice.call("GET", `/transactions/${trade.id.replace(/_buy$/, "_sell")}`);
    assert.deepEqual([unknown.status, unknown.body.error?.code], [404, "TRANSACTION_NOT_FOUND"]);
    await exchange.compliance!.start();
    const recomputed = await waitFor("alice's lots recomputed", async () => {
      const l = await read<{ amount: bigint; holdEnd: bigint | number }[]>("recordedLotsOf", [cnts, alice.address]);
      return l.length === 1 ? l : undefined;
    });
    const aliceLots = ((await alice.call("GET", "/exchange-portfolio")).body.data as Json[]).find(
      (x) => x.assetId === "CNTS",
    )!.lots as Json[];
    assert.equal(aliceLots.length, 1);
    // the API dates her lot on her sandbox clock (366 days on since step 6); the chain's hold end is the same
    // lot's in real time: 12 months from the fill's wall-clock time
    const wallAcquired = Date.parse(aliceLots[0].acquisitionDate) - 366 * 86_400_000;
    assert.equal(
      Date.parse(aliceLots[0].restrictionEndDate),
      restrictionEndMs("reg-cf", Date.parse(aliceLots[0].acquisitionDate)),
    );
    assert.deepEqual(
      recomputed.map((l) => [l.amount, BigInt(l.holdEnd)]),
      [[BigInt(aliceLots[0].quantityUnits), BigInt(Math.ceil(restrictionEndMs("reg-cf", wallAcquired) / 1000))]],
    );
    // the lot received by the direct transfer is the registry's own (a record never touches it, whatever its
    // hold end: the two may even end in the same second)
    const receivedLots = await read<{ amount: bigint; holdEnd: bigint | number }[]>("receivedLotsOf", [
      cnts,
      alice.address,
    ]);
    assert.deepEqual(
      receivedLots.map((l) => [l.amount, BigInt(l.holdEnd)]),
      [[received / 2n, BigInt(Math.ceil(holdEndMs / 1000))]],
    );
    assert.equal(
      await read<bigint>("restrictedOf", [cnts, alice.address]),
      received / 2n + BigInt(aliceLots[0].quantityUnits),
    );
  });
});
