// Funding and custody on a real Hardhat chain with the deployed contracts (Settlement, demo USD,
// SandboxFunding) and PGlite (issue #14): each method's minimum, daily maximum and "no maximum" at the
// boundary and one cent past it; a completed deposit visible on chain; the bank calendar on an injected
// clock; withdrawals leave Settlement; repeated completions credit once; bad input is never a 500.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { Address } from "viem";
import { sandboxFundingAbi, settlementAbi, demoTokenAbi } from "../../../sdk/abi";
import { startFundingChain, startFundingStack, type FundingChain, type FundingStack } from "../testing/funding-fixture";
import { DEFAULT_SANDBOX_PRELOAD_UNITS, USD_UNIT } from "../custody/custody";

const MONDAY_NOON = Date.UTC(2025, 0, 6, 12, 0, 0); // Monday 6 January 2025, 12:00 UTC
const DAY = 86_400_000;

let chain: FundingChain;
let stack: FundingStack;
let wall = MONDAY_NOON;

before(async () => {
  chain = await startFundingChain();
  stack = await startFundingStack({ chain, clock: { now: () => wall } });
});
after(async () => {
  await stack?.close();
  await chain?.stop();
});

const usd = (dollars: number | bigint) => BigInt(dollars) * USD_UNIT;
const newAccount = () => randomUUID();

/** A new account, opened (its sandbox preload credited), and its cash on chain then. */
async function openedAccount(): Promise<{ id: string; before: bigint }> {
  const id = newAccount();
  await stack.custody.ensureAccount(id);
  return { id, before: await chainCash(id) };
}

/** The sandbox bank's demo USD on chain. */
const bankReserve = async () =>
  (await chain.fixture.client.readContract({
    address: chain.tokens.USD.address,
    abi: demoTokenAbi,
    functionName: "balanceOf",
    args: [chain.funding],
  })) as bigint;

async function chainCash(accountId: string): Promise<bigint> {
  const address = (await stack.custody.addressOf(accountId)) as Address;
  return (await chain.fixture.client.readContract({
    address: chain.settlement,
    abi: settlementAbi,
    functionName: "balanceOf",
    args: [address, chain.tokens.USD.address],
  })) as bigint;
}

async function deposit(accountId: string, method: string, amount: unknown) {
  return stack.call(accountId, "POST", "/v1/deposits", { method, amount });
}

test("an account gets its own address with the sandbox's test funds on chain, once; its key is sealed; balances are the chain's", async () => {
  const id = newAccount();
  const a = await stack.custody.ensureAccount(id);
  const again = await stack.custody.ensureAccount(id);
  assert.equal(again.address, a.address);
  assert.equal(await chainCash(id), DEFAULT_SANDBOX_PRELOAD_UNITS, "100,000 demo USD preloaded, credited once");
  const b = await stack.custody.balances(id);
  assert.equal(b.cashUnits, DEFAULT_SANDBOX_PRELOAD_UNITS);
  assert.equal(b.availableCashUnits, DEFAULT_SANDBOX_PRELOAD_UNITS);
  assert.deepEqual(b.tokens.map((t) => t.symbol).sort(), ["USD", "WETH"]);
  const other = await stack.custody.ensureAccount(newAccount());
  assert.notEqual(other.address, a.address);
  const row = (
    await stack.db.query<{ sealed_key: string }>(
      "SELECT sealed_key FROM exchange_custody_accounts WHERE account_id = $1",
      [id],
    )
  ).rows[0];
  assert.match(row.sealed_key, /^v1:/);
  const list = await stack.call(id, "GET", "/v1/transactions?type=deposit");
  assert.equal(list.status, 200);
  assert.equal(list.body.data.length, 1);
  assert.equal(list.body.data[0].method, "sandbox");
  assert.equal(list.body.data[0].status, "completed");
  assert.equal(list.body.data[0].quantity, 100_000);
  // the preloaded deposit's transaction is the chain's Credited event of its transfer id
  const events = await chain.fixture.client.getContractEvents({
    address: chain.funding,
    abi: sandboxFundingAbi,
    eventName: "Credited",
    args: { account: a.address },
    fromBlock: 0n,
  });
  assert.equal(events.length, 1);
  assert.deepEqual(list.body.data[0].txHashes, [events[0].transactionHash]);
});

test("instant: $9.99 refused, $10 credited at once; $10,000 per UTC day exactly, one cent more refused; the next UTC day starts afresh", async () => {
  wall = MONDAY_NOON;
  const id = newAccount();
  const below = await deposit(id, "instant", 9.99);
  assert.equal(below.status, 400);
  assert.equal(below.body.error.code, "AMOUNT_BELOW_MINIMUM");
  assert.deepEqual(below.body.error.details, { method: "instant", direction: "deposit", minimum: 10, requested: 9.99 });
  const min = await deposit(id, "instant", 10);
  assert.equal(min.status, 201);
  assert.equal(min.body.data.status, "completed");
  assert.equal(min.body.data.type, "deposit");
  assert.equal(min.body.data.amountUnits, "10000000");
  assert.equal(await chainCash(id), DEFAULT_SANDBOX_PRELOAD_UNITS + usd(10), "the completed deposit is on chain");
  const past = await deposit(id, "instant", "9990.01"); // 10,000.01 in the day
  assert.equal(past.status, 400);
  assert.equal(past.body.error.code, "FUNDING_LIMIT_EXCEEDED");
  assert.equal(past.body.error.details.limit, 10_000);
  assert.equal(past.body.error.details.used, 10);
  assert.equal(past.body.error.details.requested, 9990.01);
  assert.equal((await deposit(id, "instant", "9990")).status, 201); // 10,000 exactly
  assert.equal(await chainCash(id), DEFAULT_SANDBOX_PRELOAD_UNITS + usd(10_000), "nothing moved for the refused one");
  wall = Date.UTC(2025, 0, 6, 23, 59, 59, 999); // the last millisecond of the same UTC day
  assert.equal((await deposit(id, "instant", 10)).body.error.code, "FUNDING_LIMIT_EXCEEDED");
  wall = Date.UTC(2025, 0, 7); // the next UTC day
  assert.equal(
    (await deposit(id, "instant", "10000.01")).body.error.code,
    "FUNDING_LIMIT_EXCEEDED",
    "one transfer over the limit",
  );
  assert.equal((await deposit(id, "instant", 10_000)).status, 201);
  wall = MONDAY_NOON;
});

test("ACH: $9.99 refused, $10 accepted pending; $250,000 per day exactly, one cent more refused; completes after 3 business days, on chain", async () => {
  wall = Date.UTC(2025, 0, 9, 12); // Thursday: 3 business days later is Tuesday
  const { id, before } = await openedAccount();
  assert.equal((await deposit(id, "ach", "9.99")).body.error.code, "AMOUNT_BELOW_MINIMUM");
  const first = await deposit(id, "ach", 10);
  assert.equal(first.status, 201);
  assert.equal(first.body.data.status, "pending");
  assert.equal(
    first.body.data.completesAt,
    new Date(Date.UTC(2025, 0, 14, 12)).toISOString(),
    "Thu + 3 business days = Tue",
  );
  assert.equal((await deposit(id, "ach", "249990.01")).body.error.code, "FUNDING_LIMIT_EXCEEDED");
  assert.equal((await deposit(id, "ach", "249990.00")).status, 201);
  const past = await deposit(id, "ach", 10);
  assert.equal(past.status, 400);
  assert.equal(past.body.error.code, "FUNDING_LIMIT_EXCEEDED");
  assert.equal(past.body.error.details.limit, 250_000);
  // ACH withdrawals count apart from deposits
  assert.equal(past.body.error.details.direction, "deposit");
  await stack.funding.processDue();
  assert.equal(await chainCash(id), before, "not credited before the bank completes");
  wall = Date.UTC(2025, 0, 14, 11, 59, 59, 999);
  await stack.funding.processDue();
  assert.equal(await chainCash(id), before, "one millisecond early: still pending");
  wall = Date.UTC(2025, 0, 14, 12);
  await stack.funding.processDue();
  assert.equal(await chainCash(id), before + usd(250_000), "both credited on chain, once");
  const got = await stack.call(id, "GET", `/v1/transactions/${first.body.data.id}`);
  assert.equal(got.body.data.status, "completed");
  assert.equal(got.body.data.txHashes.length, 1);
  const receipt = await chain.fixture.client.getTransactionReceipt({ hash: got.body.data.txHashes[0] });
  assert.equal(receipt.status, "success");
  await stack.funding.processDue();
  assert.equal(await chainCash(id), before + usd(250_000), "processing again changes nothing");
  wall = MONDAY_NOON;
});

test("wire: $999.99 refused, $1,000 accepted; no maximum ($1,000,000,000 in one day); completes at the same business day's cut-off", async () => {
  wall = MONDAY_NOON;
  const { id, before } = await openedAccount();
  assert.equal((await deposit(id, "wire", 999.99)).body.error.code, "AMOUNT_BELOW_MINIMUM");
  const min = await deposit(id, "wire", 1000);
  assert.equal(min.status, 201);
  assert.equal(min.body.data.completesAt, new Date(Date.UTC(2025, 0, 6, 22)).toISOString());
  const big = await deposit(id, "wire", 1_000_000_000);
  assert.equal(big.status, 201, JSON.stringify(big.body));
  const big2 = await deposit(id, "wire", "1000000000000");
  assert.equal(big2.status, 201, "the input bound, 10^12 dollars, exactly");
  const over = await deposit(id, "wire", "1000000000000.01");
  assert.equal(over.status, 400);
  assert.equal(over.body.error.code, "INVALID_REQUEST");
  // do not drain the test reserve: complete only the first two
  await stack.db.query(
    "UPDATE exchange_funding_transfers SET status = 'failed', failure_reason = 'test' WHERE id = $1",
    [big2.body.data.id],
  );
  wall = Date.UTC(2025, 0, 6, 22);
  await stack.funding.processDue();
  assert.equal(await chainCash(id), before + usd(1000) + usd(1_000_000_000));
  wall = MONDAY_NOON;
});

test("withdrawals: leave Settlement at once, complete with the bank; more than the available cash refused with required/available; limits apply per direction", async () => {
  wall = MONDAY_NOON;
  const id = newAccount();
  await stack.custody.ensureAccount(id);
  const address = (await stack.custody.addressOf(id)) as Address;
  const reserveBefore = await bankReserve();
  const w = await stack.call(id, "POST", "/v1/withdrawals", { method: "instant", amount: 10 });
  assert.equal(w.status, 201, JSON.stringify(w.body));
  assert.equal(w.body.data.status, "completed");
  assert.equal(w.body.data.txHashes.length, 3, "request, execute, back to the bank");
  assert.equal(await chainCash(id), DEFAULT_SANDBOX_PRELOAD_UNITS - usd(10));
  const reserveAfter = await bankReserve();
  assert.equal(reserveAfter - reserveBefore, usd(10), "the demo USD went back to the sandbox bank");
  assert.equal(
    (
      (await chain.fixture.client.readContract({
        address: chain.settlement,
        abi: settlementAbi,
        functionName: "pendingWithdrawal",
        args: [address, chain.tokens.USD.address],
      })) as { amount: bigint }
    ).amount,
    0n,
  );

  // ACH: the money leaves now, the bank completes in 3 business days
  const ach = await stack.call(id, "POST", "/v1/withdrawals", { method: "ach", amount: "90000" });
  assert.equal(ach.status, 201);
  assert.equal(ach.body.data.status, "pending");
  await stack.funding.processDue();
  assert.equal(await chainCash(id), DEFAULT_SANDBOX_PRELOAD_UNITS - usd(90_010));
  const available = DEFAULT_SANDBOX_PRELOAD_UNITS - usd(90_010);
  const tooMuch = await stack.call(id, "POST", "/v1/withdrawals", {
    method: "wire",
    amount: Number(available / USD_UNIT) + 0.01,
  });
  assert.equal(tooMuch.status, 400);
  assert.equal(tooMuch.body.error.code, "INSUFFICIENT_BALANCE");
  assert.equal(tooMuch.body.error.details.available, 9_990);
  assert.equal(tooMuch.body.error.details.required, 9_990.01);
  // instant withdrawals have their own daily limit: 10 already used, 9,990 more exactly is the limit
  assert.equal(
    (await stack.call(id, "POST", "/v1/withdrawals", { method: "instant", amount: "9990.01" })).body.error.code,
    "FUNDING_LIMIT_EXCEEDED",
  );
  assert.equal((await stack.call(id, "POST", "/v1/withdrawals", { method: "instant", amount: 9_990 })).status, 201);
  const pastLimit = await stack.call(id, "POST", "/v1/withdrawals", { method: "instant", amount: 10 });
  assert.equal(pastLimit.body.error.code, "FUNDING_LIMIT_EXCEEDED");
  assert.equal(await chainCash(id), 0n);
  wall = Date.UTC(2025, 0, 9, 12);
  await stack.funding.processDue();
  assert.equal((await stack.funding.get(id, ach.body.data.id))!.status, "completed");
  wall = MONDAY_NOON;
});

test("a completion repeated, concurrently or after it is done, credits once", async () => {
  wall = MONDAY_NOON;
  const { id, before } = await openedAccount();
  const d = await deposit(id, "ach", 500);
  wall = Date.UTC(2025, 0, 9, 12);
  await Promise.all([
    stack.custody.creditDeposit(d.body.data.id),
    stack.custody.creditDeposit(d.body.data.id),
    stack.funding.processDue(),
  ]);
  await stack.custody.creditDeposit(d.body.data.id);
  // even with the row put back to "new" (as if the write after the chain call was lost), the chain refuses
  await stack.db.query(
    "UPDATE exchange_funding_transfers SET chain_step = 'new', status = 'pending', tx_hashes = '{}' WHERE id = $1",
    [d.body.data.id],
  );
  const again = await stack.custody.creditDeposit(d.body.data.id);
  assert.equal(again.status, "completed");
  assert.equal(again.tx_hashes.length, 1, "the transaction found again from the Credited event");
  assert.equal(await chainCash(id), before + usd(500));
  wall = MONDAY_NOON;
});

test("the sandbox clock advances through the API and completes what became due; production hides it", async () => {
  wall = MONDAY_NOON;
  const id = newAccount();
  const other = newAccount();
  await stack.custody.ensureAccount(id);
  await stack.custody.ensureAccount(other);
  const before = await chainCash(id);
  const d = await deposit(id, "ach", 25);
  const theirs = await deposit(other, "ach", 25);
  const adv = await stack.call(id, "POST", "/v1/sandbox/funding/advance-clock", { seconds: 3 * 86_400 });
  assert.equal(adv.status, 200);
  assert.equal(adv.body.data.now, new Date(MONDAY_NOON + 3 * DAY).toISOString());
  assert.equal((await stack.funding.get(id, d.body.data.id))!.status, "completed");
  assert.equal(await chainCash(id), before + usd(25));
  // the clock is this account's: another account's ACH deposit is still pending, its dates on the wall clock
  const still = await stack.call(other, "GET", `/v1/transactions/${theirs.body.data.id}`);
  assert.equal(still.body.data.status, "pending");
  assert.equal(still.body.data.timestamp, new Date(MONDAY_NOON).toISOString());
  const later = await deposit(other, "instant", 10);
  assert.equal(
    later.body.data.timestamp,
    new Date(MONDAY_NOON).toISOString(),
    "another account's new transfer is dated on its own clock",
  );
  const mine = await deposit(id, "instant", 10);
  assert.equal(mine.body.data.timestamp, new Date(MONDAY_NOON + 3 * DAY).toISOString());
  for (const bad of [
    { seconds: 0 },
    { seconds: 366 * 86_400 + 1 },
    { seconds: 1.5 },
    { seconds: "1" },
    {},
    { seconds: 1, x: 1 },
  ]) {
    const r = await stack.call(id, "POST", "/v1/sandbox/funding/advance-clock", bad);
    assert.equal(r.status, 400, JSON.stringify(bad));
  }
  const prod = await startFundingStack({ chain, mode: "production", clock: { now: () => wall } });
  try {
    const r = await prod.call(id, "POST", "/v1/sandbox/funding/advance-clock", { seconds: 60 });
    assert.equal(r.status, 404);
    assert.equal(r.body.error.code, "ROUTE_NOT_FOUND");
    // production: no test funds preloaded
    const p = newAccount();
    await prod.custody.ensureAccount(p);
    assert.equal((await prod.custody.balances(p)).cashUnits, 0n);
  } finally {
    await prod.close();
  }
});

test("bad input on every funding endpoint: 4xx with the spec's error body, never a 500, nothing changes", async () => {
  wall = MONDAY_NOON;
  const id = newAccount();
  await stack.custody.ensureAccount(id);
  const count = async () =>
    (await stack.db.query("SELECT 1 FROM exchange_funding_transfers WHERE account_id = $1", [id])).rows.length;
  const n0 = await count();
  const bodies: unknown[] = [
    {},
    { method: "ach" },
    { amount: 10 },
    { method: "cheque", amount: 10 },
    { method: "ach", amount: -10 },
    { method: "ach", amount: 0 },
    { method: "ach", amount: 10.001 },
    { method: "ach", amount: "10.001" },
    { method: "ach", amount: "1e3" },
    { method: "ach", amount: "abc" },
    { method: "ach", amount: null },
    { method: "ach", amount: true },
    { method: "ach", amount: [10] },
    { method: "ach", amount: { v: 10 } },
    { method: "ach", amount: 1e300 },
    { method: "ach", amount: "9".repeat(41) },
    { method: "ach", amount: 10, extra: 1 },
    { method: ["ach"], amount: 10 },
    [],
    "null",
    "garbage{",
    42,
  ];
  for (const path of ["/v1/deposits", "/v1/withdrawals"]) {
    for (const body of bodies) {
      const r = await stack.call(id, "POST", path, body);
      assert.ok(r.status >= 400 && r.status < 500, `${path} ${JSON.stringify(body)} -> ${r.status}`);
      assert.equal(typeof r.body.error?.code, "string", `${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
      assert.equal(typeof r.body.error.message, "string");
      assert.equal(typeof r.body.error.details, "object");
    }
  }
  for (const q of ["?type=bogus", "?type=", "?type=deposit&type=withdrawal", "?other=1"]) {
    const r = await stack.call(id, "GET", `/v1/transactions${q}`);
    assert.equal(r.status, 400, q);
    assert.equal(r.body.error.code, "INVALID_REQUEST");
  }
  for (const tid of ["nope", "00000000-0000-0000-0000-000000000000", "%00", "1' OR '1'='1"]) {
    const r = await stack.call(id, "GET", `/v1/transactions/${encodeURIComponent(tid)}`);
    assert.equal(r.status, 404, tid);
    assert.equal(r.body.error.code, "TRANSACTION_NOT_FOUND");
  }
  assert.equal(await count(), n0, "nothing was created");
  // another account's transaction: 404, as one that does not exist
  const other = newAccount();
  const theirs = await deposit(other, "instant", 10);
  assert.equal(theirs.status, 201);
  const peek = await stack.call(id, "GET", `/v1/transactions/${theirs.body.data.id}`);
  assert.equal(peek.status, 404);
  assert.equal(
    (await stack.call(id, "GET", "/v1/transactions")).body.data.some(
      (t: { id: string }) => t.id === theirs.body.data.id,
    ),
    false,
  );
  // the legacy path answers the same list
  const a = await stack.call(other, "GET", "/v1/transactions?type=all");
  const b = await stack.call(other, "GET", "/v1/custody-transactions?type=all");
  assert.deepEqual(a.body, b.body);
  assert.deepEqual((await stack.call(other, "GET", "/v1/transactions?type=trade")).body.data, []);
});

test("without a funding deployment or key, funding answers 503 and nothing is written", async () => {
  const s = await startFundingStack({
    chain: { ...chain, funding: undefined as unknown as Address },
    clock: { now: () => wall },
  });
  try {
    const r = await s.call(newAccount(), "POST", "/v1/deposits", { method: "ach", amount: 10 });
    assert.equal(r.status, 503);
    assert.equal(r.body.error.code, "SERVICE_UNAVAILABLE");
  } finally {
    await s.close();
  }
});
