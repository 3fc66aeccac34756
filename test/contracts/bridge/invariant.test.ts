// Invariant (fast-check): over random sequences of deposits, mints (including replays and forged amounts),
// burns, release queueing (including replays), disputes, executions and time jumps, the wrapped supply on the
// "remote" side never exceeds what the vault holds, and both equal the running totals a naive model keeps.
import { expect } from "chai";
import fc from "fast-check";
import { loadFixture, time } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { CHALLENGE_PERIOD_SEC, deployBridgeSystem } from "./helpers/bridge";

type Action =
  | { t: "deposit"; amount: bigint }
  | { t: "mint"; pick: number; forge: boolean }
  | { t: "burn"; per10k: number }
  | { t: "queue"; pick: number }
  | { t: "dispute"; pick: number }
  | { t: "execute"; pick: number }
  | { t: "wait"; sec: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ t: fc.constant("deposit" as const), amount: fc.bigInt({ min: 1n, max: 50_000n * 10n ** 6n }) }),
  fc.record({ t: fc.constant("mint" as const), pick: fc.nat(), forge: fc.boolean() }),
  fc.record({ t: fc.constant("burn" as const), per10k: fc.integer({ min: 1, max: 10_000 }) }),
  fc.record({ t: fc.constant("queue" as const), pick: fc.nat() }),
  fc.record({ t: fc.constant("dispute" as const), pick: fc.nat() }),
  fc.record({ t: fc.constant("execute" as const), pick: fc.nat() }),
  fc.record({ t: fc.constant("wait" as const), sec: fc.integer({ min: 1, max: 2 * CHALLENGE_PERIOD_SEC }) }),
);

describe("invariant: wrapped supply <= locked in the vault", function () {
  this.timeout(600_000);

  it("holds over random action sequences", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 25 }), async (actions) => {
        const s = await loadFixture(deployBridgeSystem);
        const deposits: { nonce: bigint; amount: bigint }[] = [];
        const burns: { nonce: bigint; amount: bigint; queued: boolean }[] = [];
        const model = { minted: 0n, burned: 0n, deposited: 0n, released: 0n };
        const mintedNonces = new Set<bigint>();
        const pick = <T>(xs: T[], i: number) => (xs.length ? xs[i % xs.length] : undefined);
        const tryTx = async (p: Promise<unknown>) =>
          p
            .then((tx: any) => tx.wait())
            .then(
              () => true,
              () => false,
            );

        for (const a of actions) {
          if (a.t === "deposit") {
            const nonce = await s.depositFromAlice(a.amount);
            deposits.push({ nonce, amount: a.amount });
            model.deposited += a.amount;
          } else if (a.t === "mint") {
            const d = pick(deposits, a.pick);
            if (!d) continue;
            const signedAmount = a.forge ? d.amount + 1n : d.amount;
            const sig = s.sign(await s.mintMessage(d.nonce, s.bob.address, signedAmount));
            const ok = await tryTx(
              s.minter.connect(s.relayer).mint(d.nonce, s.addr.token, s.bob.address, d.amount, sig),
            );
            if (ok) {
              expect(a.forge, "a forged mint went through").to.equal(false);
              expect(mintedNonces.has(d.nonce), "a deposit minted twice").to.equal(false);
              mintedNonces.add(d.nonce);
              model.minted += d.amount;
            } else if (
              !a.forge &&
              !mintedNonces.has(d.nonce) &&
              d.amount <= (await s.minter.availableToMint(s.addr.token))
            ) {
              expect.fail(`honest mint of deposit ${d.nonce} refused`);
            }
          } else if (a.t === "burn") {
            const bal = await s.wrapped.balanceOf(s.bob.address);
            const amount = (bal * BigInt(a.per10k)) / 10_000n;
            if (amount === 0n) continue;
            await s.minter.connect(s.bob).burn(s.addr.wrapped, amount, s.alice.address);
            burns.push({ nonce: (await s.minter.core()).burnCount, amount, queued: false });
            model.burned += amount;
          } else if (a.t === "queue") {
            const b = pick(burns, a.pick);
            if (!b) continue;
            const m = await s.releaseMessage(b.nonce, s.alice.address, b.amount);
            const hsm = b.amount >= (await s.vault.tokenConfig(s.addr.token)).hsmThresholdWei ? s.hsmSign(m) : "0x";
            const ok = await tryTx(
              s.vault.connect(s.relayer).queueRelease(b.nonce, s.addr.token, s.alice.address, b.amount, s.sign(m), hsm),
            );
            if (ok) expect(b.queued, "a burn queued twice").to.equal(false);
            if (ok) b.queued = true;
          } else if (a.t === "dispute") {
            const b = pick(burns, a.pick);
            if (b) await tryTx(s.vault.connect(s.guardian).disputeRelease(b.nonce));
          } else if (a.t === "execute") {
            const b = pick(burns, a.pick);
            if (!b) continue;
            if (
              await tryTx(s.vault.connect(s.relayer).executeRelease(b.nonce, s.addr.token, s.alice.address, b.amount))
            )
              model.released += b.amount;
          } else {
            await time.increase(a.sec);
          }

          const supply = await s.wrapped.totalSupply();
          const locked = await s.token.balanceOf(s.addr.vault);
          expect(supply <= locked, `supply ${supply} > locked ${locked}`).to.equal(true);
          expect(supply).to.equal(model.minted - model.burned);
          expect(locked).to.equal(model.deposited - model.released);
        }
      }),
      { numRuns: 30, seed: Number(process.env.FC_SEED ?? 20261122) },
    );
  });
});
