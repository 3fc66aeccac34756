// The registry sync's queue against a fake registry (no chain): what it records and what it skips, lots
// recorded only once their fill is settled, sequences that only grow, failures retried with a growing delay,
// changes followed after the start, nothing taken while stopped; and the registry's accreditation and hold
// ends in seconds. The sync against a real registry: client.test.ts and the e2e eligibility test.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { Address } from "viem";
import { holdEndSeconds, registryAccreditation, type InvestorEligibility } from "./registry-values";
import { REGISTRY_ACCREDITATION, REGISTRY_REGIME } from "./regime";
import { createComplianceSync, type LedgerLots } from "./sync";
import { A, B, fakeRegistry, NOW, TOKEN, until } from "./sync-fakes";

const FREE = "0x0000000000000000000000000000000000000071" as Address;

describe("the registry sync's queue", () => {
  // every sync stops after its test, passed or not (a running one keeps the process alive)
  const stops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const stop of stops) await stop();
  });
  it("records the investors whose facts differ and skips those the registry already has; lots of restricted tokens only", async () => {
    const reg = fakeRegistry();
    reg.investors.set(B.toLowerCase(), { accreditation: "selfCertified506b", usPerson: true });
    const ledger = new Map<string, LedgerLots>([
      [A.toLowerCase(), { settled: true, lots: [{ units: 5n, holdEndMs: NOW + 10_500 }] }],
    ]);
    const sync = createComplianceSync({
      client: reg.client,
      investors: async () => [
        { address: A, facts: { accreditation: "verified506c", usPerson: false } },
        { address: B, facts: { accreditation: "selfCertified506b", usPerson: true } },
      ],
      ledgerLots: async (_t, holder) => ledger.get(holder.toLowerCase()) ?? { settled: true, lots: [] },
      restrictedTokens: () => [TOKEN],
      now: () => NOW,
      pollMs: 20,
    });
    stops.push(() => sync.stop());
    await sync.start();
    await sync.start(); // a second start changes nothing
    await until("idle", () => sync.pendingCount() === 0 && reg.calls.length >= 2);
    assert.deepEqual(reg.calls.sort(), [`investor ${A} verified506c false`, `lots ${A} 5@${NOW + 10_500}`].sort());
    assert.deepEqual(reg.lots.get(`${TOKEN}:${A}`.toLowerCase()), [
      { amount: 5n, holdEnd: BigInt(Math.ceil((NOW + 10_500) / 1000)) },
    ]);
    // a fill of a token without a hold is not the registry's; one of a restricted token is, recomputed (same: skipped)
    sync.lotsChanged(FREE, A);
    assert.equal(sync.pendingCount(), 0);
    sync.lotsChanged(TOKEN, A);
    assert.equal(sync.pendingCount(), 1);
    await until("idle", () => sync.pendingCount() === 0);
    assert.equal(reg.calls.length, 2, "the same lots are not recorded again");
    // new lots: recorded, with a sequence above the last
    ledger.set(A.toLowerCase(), {
      settled: true,
      lots: [
        { units: 5n, holdEndMs: NOW + 10_500 },
        { units: 2n, holdEndMs: NOW + 20_000 },
      ],
    });
    sync.lotsChanged(TOKEN.toUpperCase().replace("0X", "0x") as Address, A);
    await until("recorded", () => reg.calls.length === 3);
    assert.equal(reg.sequences.length, 2);
    assert.ok(reg.sequences[1]! > reg.sequences[0]!, "sequences grow");
    assert.equal(reg.sequences[0], BigInt(NOW) * 1000n, "the clock in microseconds");
    assert.equal(reg.sequences[1], BigInt(NOW) * 1000n + 1n, "or one more than the last");
    await sync.stop();
    sync.lotsChanged(TOKEN, B);
    assert.equal(sync.pendingCount(), 0, "a stopped sync takes nothing");
  });

  it("a holder's lots wait until the fill is settled; an asset the exchange does not list is done at once", async () => {
    const reg = fakeRegistry();
    let settled = false;
    let asked = 0;
    const t0 = Date.now();
    const sync = createComplianceSync({
      client: reg.client,
      investors: async () => [{ address: A, facts: { accreditation: "none", usPerson: true } }],
      ledgerLots: async (token) => {
        if (token === FREE) return null;
        asked++;
        return { settled, lots: [{ units: 3n, holdEndMs: NOW + 60_000 }] };
      },
      restrictedTokens: () => [TOKEN, FREE],
      now: () => NOW + (Date.now() - t0),
      pollMs: 10_000,
    });
    stops.push(() => sync.stop());
    await sync.start();
    await until("asked twice", () => asked >= 2, 3_000);
    assert.ok(!reg.calls.some((c) => c.startsWith("lots")), "nothing recorded before the fill settles");
    assert.equal(sync.pendingCount(), 1, "the lots job waits; the rest is done");
    settled = true;
    await until("recorded", () => reg.calls.some((c) => c.startsWith("lots")));
    assert.deepEqual(
      reg.calls.filter((c) => c.startsWith("lots")),
      [`lots ${A} 3@${NOW + 60_000}`],
    );
    await sync.stop();
    assert.equal(sync.pendingCount(), 0);
  });

  it("a failed record is retried after the retry delay, then doubled; facts changed later are found by the poll", async () => {
    const reg = fakeRegistry();
    reg.failAfter(2);
    let facts: InvestorEligibility = { accreditation: "none", usPerson: true };
    const warnings: number[] = [];
    const sync = createComplianceSync({
      client: reg.client,
      investors: async () => [{ address: A, facts }],
      ledgerLots: async () => ({ settled: true, lots: [] }),
      restrictedTokens: () => [],
      logger: { info: () => undefined, warn: (o: object) => void warnings.push((o as { failures: number }).failures) },
      now: () => Date.now(),
      retryMs: 40,
      pollMs: 10_000,
    });
    stops.push(() => sync.stop());
    const started = Date.now();
    await sync.start();
    await until("recorded", () => reg.calls.length === 1, 3_000);
    assert.deepEqual(warnings, [1, 2]);
    assert.ok(Date.now() - started >= 40 + 80, "waited 40 ms, then 80 ms");
    facts = { accreditation: "selfCertified506b", usPerson: false };
    sync.investorsChanged();
    await until("the change recorded", () => reg.calls.length === 2, 3_000);
    assert.equal(reg.calls[1], `investor ${A} selfCertified506b false`);
    sync.investorsChanged();
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(reg.calls.length, 2, "unchanged facts are not recorded again");
    await sync.stop();
  });

  it("lots already past their hold are not recorded; expired registry lots do not count as recorded", async () => {
    const reg = fakeRegistry();
    reg.lots.set(`${TOKEN}:${A}`.toLowerCase(), [{ amount: 9n, holdEnd: BigInt(NOW / 1000) }]);
    const sync = createComplianceSync({
      client: reg.client,
      investors: async () => [{ address: A, facts: { accreditation: "none", usPerson: false } }],
      ledgerLots: async () => ({
        settled: true,
        lots: [
          { units: 4n, holdEndMs: NOW },
          { units: 1n, holdEndMs: NOW + 1 },
        ],
      }),
      restrictedTokens: () => [TOKEN],
      now: () => NOW,
      pollMs: 10_000,
    });
    stops.push(() => sync.stop());
    await sync.start();
    await until("recorded", () => reg.calls.some((c) => c.startsWith("lots")));
    assert.deepEqual(
      reg.calls.filter((c) => c.startsWith("lots")),
      [`lots ${A} 1@${NOW + 1}`],
    );
    await sync.stop();
  });
});

describe("the registry sync's poll", () => {
  it("finds changed facts by itself every pollMs, and keeps polling after a failed read", async () => {
    const reg = fakeRegistry();
    let facts: InvestorEligibility = { accreditation: "none", usPerson: true };
    let failRead = false;
    const warned: string[] = [];
    const sync = createComplianceSync({
      client: reg.client,
      investors: async () => {
        if (failRead) {
          failRead = false;
          throw new Error("database down");
        }
        return [{ address: B, facts }];
      },
      ledgerLots: async () => ({ settled: true, lots: [] }),
      restrictedTokens: () => [],
      logger: { info: () => undefined, warn: (_o: object, msg?: string) => void warned.push(String(msg)) },
      pollMs: 25,
    });
    try {
      await sync.start();
      await until("recorded", () => reg.calls.length === 1);
      failRead = true;
      await until("a failed read", () => warned.includes("eligibility registry: reading investors failed"));
      facts = { accreditation: "verified506c", usPerson: false };
      await until("the poll found the change", () => reg.calls.length === 2);
      assert.equal(reg.calls[1], `investor ${B} verified506c false`);
    } finally {
      await sync.stop();
    }
    facts = { accreditation: "none", usPerson: false };
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(reg.calls.length, 2, "a stopped sync polls no more");
  });
});

describe("the registry's enums (IEligibilityRegistry.sol)", () => {
  it("regimes: Free for Reg A and retail, RegD 1, RegCF 2, RegS 3; accreditation none 0, 506b 1, 506c 2", () => {
    assert.deepEqual(REGISTRY_REGIME, { retail: 0, "reg-a": 0, "reg-d": 1, "reg-cf": 2, "reg-s": 3 });
    assert.deepEqual(REGISTRY_ACCREDITATION, { none: 0, selfCertified506b: 1, verified506c: 2 });
  });
});

describe("the registry's facts of an exchange investor", () => {
  it("accreditation: verified 506c, self-certified 506b (or pending after it), else none", () => {
    assert.equal(registryAccreditation({ accreditationStatus: "verified", accreditationType: "506c" }), "verified506c");
    assert.equal(
      registryAccreditation({ accreditationStatus: "self_certified", accreditationType: "506b" }),
      "selfCertified506b",
    );
    assert.equal(
      registryAccreditation({ accreditationStatus: "pending", accreditationType: "506b" }),
      "selfCertified506b",
    );
    assert.equal(registryAccreditation({ accreditationStatus: "none", accreditationType: "none" }), "none");
    assert.equal(registryAccreditation({ accreditationStatus: "rejected", accreditationType: "none" }), "none");
  });
  it("hold ends in whole seconds, rounded up; a time that is not one is refused", () => {
    assert.equal(holdEndSeconds(1_000), 1n);
    assert.equal(holdEndSeconds(1_001), 2n);
    assert.equal(holdEndSeconds(0), 0n);
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 53])
      assert.throws(() => holdEndSeconds(bad), /is not a time in milliseconds/);
  });
});
