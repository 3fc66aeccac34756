// The registry sync at its edges (fake registry, no chain): what counts as already recorded, what a job does
// once it is done, a job that fails while a newer one of its key waits, the queue's waits and wakes, the logs,
// and the facts it takes from an exchange account's row and the sandbox's agents.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { Address } from "viem";
import type { InvestorEligibility } from "./registry-values";
import { A, B, fakeRegistry, NOW, TOKEN, sleep, until } from "./sync-fakes";
import {
  type ComplianceSyncDeps,
  createComplianceSync,
  investorFacts,
  type LedgerLots,
  recordInvestorFacts,
  sandboxAgentInvestors,
  sandboxAgents,
} from "./sync";

const C = "0x00000000000000000000000000000000000000cc" as Address;
const SELF: InvestorEligibility = { accreditation: "selfCertified506b", usPerson: false };
const VERIFIED: InvestorEligibility = { accreditation: "verified506c", usPerson: false };
const seconds = (ms: number) => BigInt(Math.ceil(ms / 1000));

/** A logger that keeps what it is given: [level, object, message]. */
function keptLogger() {
  const logs: [string, Record<string, unknown>, string][] = [];
  const at = (level: string) => (o: object, msg?: string) =>
    void logs.push([level, o as Record<string, unknown>, String(msg)]);
  return { logs, logger: { info: at("info"), warn: at("warn"), debug: at("debug") } as never };
}

describe("the registry sync's jobs", () => {
  const stops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const stop of stops) await stop();
  });
  const sync = (deps: Partial<ComplianceSyncDeps> & Pick<ComplianceSyncDeps, "client">) => {
    const s = createComplianceSync({
      investors: async () => [],
      ledgerLots: async () => ({ settled: true, lots: [] }),
      restrictedTokens: () => [],
      pollMs: 10_000,
      ...deps,
    });
    stops.push(() => s.stop());
    return s;
  };

  it("recordInvestorFacts: false and no record when the chain has the facts; true, recorded and logged when not", async () => {
    const reg = fakeRegistry();
    const { logs, logger } = keptLogger();
    reg.investors.set(A, SELF);
    assert.equal(await recordInvestorFacts(reg.client, { address: A, facts: SELF }, logger), false);
    assert.equal(
      await recordInvestorFacts(reg.client, { address: A, facts: { ...SELF, usPerson: true } }, logger),
      true,
    );
    assert.equal(await recordInvestorFacts(reg.client, { address: A, facts: VERIFIED }, logger), true);
    assert.deepEqual(reg.calls, [`investor ${A} selfCertified506b true`, `investor ${A} verified506c false`]);
    assert.deepEqual(logs[1], [
      "debug",
      { investor: A, accreditation: "verified506c", usPerson: false },
      "eligibility registry: investor recorded",
    ]);
  });

  it("each investor its own job (none replaces another's); a recorded one is not read again on a change", async () => {
    const reg = fakeRegistry();
    const s = sync({
      client: reg.client,
      investors: async () => [
        { address: A, facts: SELF },
        { address: B, facts: VERIFIED },
        { address: C, facts: SELF },
      ],
    });
    await s.start();
    await until("three recorded", () => reg.calls.length === 3, 1_000);
    const reads = reg.reads.investor;
    s.investorsChanged();
    s.investorsChanged();
    await sleep(100);
    assert.equal(reg.reads.investor, reads, "unchanged facts: nothing enqueued");
    assert.equal(s.pendingCount(), 0);
  });

  it("of the jobs due, the one due first runs first", async () => {
    const reg = fakeRegistry();
    reg.investors.set(A, SELF);
    let investors = [{ address: A, facts: SELF }];
    const ledger: LedgerLots = { settled: false, lots: [{ units: 2n, holdEndMs: Date.now() + 1e9 }] };
    let asked = 0;
    const s = sync({
      client: reg.client,
      investors: async () => investors,
      ledgerLots: async () => {
        asked++;
        return ledger;
      },
      restrictedTokens: () => [TOKEN],
    });
    await s.start();
    // A's lots wait for their fill (again in 250 ms); B's record runs and is held; then C and B again come due
    await until("the lots job waiting", () => asked === 1 && s.pendingCount() === 1);
    const release = reg.holdInvestor();
    investors = [...investors, { address: B, facts: SELF }];
    s.investorsChanged();
    await until("B's record running", () => reg.reads.investor === 2 && s.pendingCount() === 1);
    investors = [...investors, { address: C, facts: SELF }];
    s.investorsChanged();
    await until("B and C pending", () => s.pendingCount() === 3);
    ledger.settled = true;
    await sleep(300);
    release();
    await until("all recorded", () => reg.calls.length === 3);
    assert.deepEqual(
      reg.calls.map((c) => c.split(" ").slice(0, 2).join(" ")),
      [`investor ${B}`, `investor ${C}`, `lots ${A}`],
    );
  });

  it("registry lots past their hold (hold end at now) do not count; the same lots otherwise are not recorded again", async () => {
    const reg = fakeRegistry();
    reg.lots.set(`${TOKEN}:${A}`.toLowerCase(), [
      { amount: 9n, holdEnd: BigInt(NOW / 1000) },
      { amount: 4n, holdEnd: seconds(NOW + 1) },
    ]);
    const warned: unknown[] = [];
    const s = sync({
      client: reg.client,
      investors: async () => [{ address: A, facts: SELF }],
      ledgerLots: async () => ({ settled: true, lots: [{ units: 4n, holdEndMs: NOW + 1 }] }),
      restrictedTokens: () => [TOKEN],
      logger: { info: () => undefined, warn: (o: object) => void warned.push(o) },
      now: () => NOW,
    });
    await s.start();
    await until("idle", () => s.pendingCount() === 0 && reg.reads.recordedLots === 1);
    assert.deepEqual(reg.calls, [`investor ${A} selfCertified506b false`], "no lots recorded");
    assert.deepEqual(warned, [], "a logger without debug is fine");
  });

  for (const [what, onChain] of [
    ["the same amount with another hold end", { amount: 4n, holdEnd: seconds(NOW + 5_000) }],
    ["the same hold end with another amount", { amount: 5n, holdEnd: seconds(NOW + 1_000) }],
  ] as const) {
    it(`registry lots of ${what} are recorded over, once; the record is logged`, async () => {
      const reg = fakeRegistry();
      reg.lots.set(`${TOKEN}:${A}`.toLowerCase(), [onChain]);
      const { logs, logger } = keptLogger();
      const s = sync({
        client: reg.client,
        investors: async () => [{ address: A, facts: SELF }],
        ledgerLots: async () => ({ settled: true, lots: [{ units: 4n, holdEndMs: NOW + 1_000 }] }),
        restrictedTokens: () => [TOKEN],
        logger,
        now: () => NOW,
      });
      await s.start();
      await until("recorded", () => reg.calls.some((c) => c.startsWith("lots")));
      assert.deepEqual(
        reg.calls.filter((c) => c.startsWith("lots")),
        [`lots ${A} 4@${NOW + 1_000}`],
      );
      assert.deepEqual(
        logs.find((l) => l[2] === "eligibility registry: lots recorded"),
        [
          "debug",
          { token: TOKEN, holder: A, lots: 1, sequence: (BigInt(NOW) * 1000n).toString() },
          "eligibility registry: lots recorded",
        ],
      );
      await sleep(400);
      assert.equal(reg.reads.recordedLots, 1, "a recorded job is done: not run again");
      assert.equal(s.pendingCount(), 0);
    });
  }

  it("a fill while a job runs is taken; the job recorded, a stop ends the wait at once", async () => {
    const reg = fakeRegistry();
    const release = reg.holdInvestor();
    const ledger: LedgerLots = { settled: true, lots: [] };
    const warned: unknown[] = [];
    const s = sync({
      client: reg.client,
      investors: async () => [{ address: A, facts: SELF }],
      ledgerLots: async () => ledger,
      restrictedTokens: () => [TOKEN],
      logger: { info: () => undefined, warn: (o: object) => void warned.push(o) },
    });
    await s.start();
    await until("the investor job running", () => reg.reads.investor === 1 && s.pendingCount() === 1);
    await sleep(20);
    ledger.lots = [{ units: 2n, holdEndMs: NOW * 2 }];
    s.lotsChanged(TOKEN, A);
    release();
    await until("lots recorded", () => reg.calls.some((c) => c.startsWith("lots")));
    await until("idle", () => s.pendingCount() === 0);
    assert.deepEqual(warned, [], "recorded at once (a logger without debug is fine)");
    const t0 = Date.now();
    await s.stop();
    assert.ok(Date.now() - t0 < 1_000, "stopped without waiting for the poll");
  });

  it("a record that fails while a newer job of its key waits: the newer one runs, the old facts never", async () => {
    const reg = fakeRegistry();
    reg.failAfter(1);
    const release = reg.holdInvestor();
    let facts = SELF;
    const s = sync({ client: reg.client, investors: async () => [{ address: A, facts }], retryMs: 40 });
    await s.start();
    await until("the record running", () => reg.reads.investor === 1 && s.pendingCount() === 0);
    facts = VERIFIED;
    s.investorsChanged();
    await until("the newer job pending", () => s.pendingCount() === 1);
    release();
    await until("recorded", () => reg.calls.length === 1);
    await sleep(150);
    assert.deepEqual(reg.calls, [`investor ${A} verified506c false`]);
  });

  it("a failed record is logged and retried at the retry delay, doubled, not more", async () => {
    const reg = fakeRegistry();
    reg.failAfter(2);
    const { logs, logger } = keptLogger();
    const s = sync({ client: reg.client, investors: async () => [{ address: A, facts: SELF }], logger, retryMs: 40 });
    const t0 = Date.now();
    await s.start();
    await until("recorded", () => reg.calls.length === 1);
    const took = Date.now() - t0;
    assert.ok(took >= 120 && took < 1_000, `40 ms then 80 ms (${took} ms)`);
    const warns = logs.filter((l) => l[0] === "warn");
    assert.deepEqual(
      warns.map((w) => [w[1].failures, w[1].err, w[2]]),
      [
        [1, "node down", "eligibility registry: record failed, retrying"],
        [2, "node down", "eligibility registry: record failed, retrying"],
      ],
    );
  });

  it("a failed record without a logger is retried all the same", async () => {
    const reg = fakeRegistry();
    reg.failAfter(1);
    const s = sync({ client: reg.client, investors: async () => [{ address: A, facts: SELF }], retryMs: 20 });
    await s.start();
    await until("recorded", () => reg.calls.length === 1);
  });

  it("idle, the queue sleeps until the poll: the clock is not read in between", async () => {
    const reg = fakeRegistry();
    let reads = 0;
    const s = sync({
      client: reg.client,
      now: () => {
        reads++;
        return Date.now();
      },
    });
    await s.start();
    await sleep(50);
    const before = reads;
    await sleep(200);
    assert.ok(reads - before <= 1, `${reads - before} clock reads while idle`);
  });

  it("a failed read of the investors, with or without a logger, is logged and the poll goes on", async () => {
    for (const withLogger of [true, false]) {
      const reg = fakeRegistry();
      const { logs, logger } = keptLogger();
      let failRead = false;
      let facts = SELF;
      const s = sync({
        client: reg.client,
        investors: async () => {
          if (!failRead) return [{ address: B, facts }];
          failRead = false;
          throw new Error("database down");
        },
        logger: withLogger ? logger : undefined,
        pollMs: 20,
      });
      await s.start();
      await until("recorded", () => reg.calls.length === 1);
      failRead = true;
      await until("the read failed", () => !failRead);
      facts = VERIFIED;
      await until("the poll went on", () => reg.calls.length === 2);
      if (withLogger)
        assert.deepEqual(
          logs.filter((l) => l[0] === "warn"),
          [["warn", { err: "Error: database down" }, "eligibility registry: reading investors failed"]],
        );
      await s.stop();
    }
  });
});

describe("the registry's facts of exchange accounts and of the sandbox's agents", () => {
  it("US person as the profile says, else by a +1 phone (no phone: +1); accreditation by the book's rule", () => {
    const row = { accreditation_status: "verified", accreditation_type: "506c", phone: "+44 20", us_person: null };
    assert.deepEqual(investorFacts(row), { accreditation: "verified506c", usPerson: false });
    assert.deepEqual(investorFacts({ ...row, phone: "+1 415" }), { accreditation: "verified506c", usPerson: true });
    assert.equal(investorFacts({ ...row, phone: null }).usPerson, true);
    assert.equal(investorFacts({ ...row, phone: "+1 415", us_person: false }).usPerson, false);
    assert.equal(investorFacts({ ...row, phone: "+44 20", us_person: true }).usPerson, true);
    assert.equal(
      investorFacts({ ...row, accreditation_status: "self_certified", accreditation_type: "506b" }).accreditation,
      "selfCertified506b",
    );
  });

  it("the demo traders are agents in the sandbox only, each a verified 506c non-US investor", () => {
    const keys = { demoTraders: [{ address: A }, { address: B }] };
    assert.deepEqual(sandboxAgents({ mode: "sandbox", keys } as never), [A, B]);
    assert.deepEqual(sandboxAgents({ mode: "production", keys } as never), []);
    assert.deepEqual(sandboxAgentInvestors([A]), [{ address: A, facts: VERIFIED }]);
  });
});
