// The off-chain signature rule (sdk/signature.ts, used by the pipeline's recoverSigner) against the
// deployed contract: every edge-case variant of one signature is fed to both, and both must agree on
// which are refused as malformed and, for the rest, on the address they recover. A signature the intake
// accepts but the contract refuses would revert a whole settle batch (issue 11, "v rewritten to 0/1").
import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { getAddress, type Address } from "viem";
import { recoverSigner } from "../../../pipeline/intake/recover";
import { ecdsaSignatureProblem } from "../../../sdk/signature";
import { signatureEdgeCases } from "../../../sdk/signature-cases";
import { deployFixture, fill, orderFor, settle, signed, ETH, OrderSide, ENCODINGS, useEncoding } from "./fixtures";

for (const enc of ENCODINGS)
  describe(`Settlement vs the off-chain signature rule (${enc})`, () => {
    before(() => useEncoding(enc));

    it("refuses exactly the signatures the rule refuses, and recovers the same signer for the others", async () => {
      const f = await loadFixture(deployFixture);
      const template = await signed(f, f.keys.alice, await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH));
      const cases = signatureEdgeCases(template.signature);
      const seen = { refused: 0, foreign: 0, settled: 0 };
      for (const c of cases) {
        // a fresh order per case (same shape), signed by alice; the case rewrites its signature
        const maker = await signed(f, f.keys.bob, await orderFor(f, f.bob.address as Address, OrderSide.SELL, ETH));
        const good = await signed(f, f.keys.alice, await orderFor(f, f.alice.address as Address, OrderSide.BUY, ETH));
        const variant = signatureEdgeCases(good.signature).find((x) => x.name === c.name)!;
        const taker = { ...good, signature: variant.signature };
        const offChain = recoverSigner(taker.hash, taker.signature);
        const problem = ecdsaSignatureProblem(taker.signature);
        const tx = settle(f, [maker, taker], [fill(maker, taker, ETH / 4n)]);
        // the rule refuses => no signer off chain (a form the rule allows may still not recover: r not on the curve)
        if (problem !== null) expect(offChain, c.name).to.equal(null);
        if (offChain === null) {
          seen.refused += 1;
          await expect(tx, c.name).to.be.revertedWithCustomError(
            f.settlement,
            problem === "s_high" ? "SettlementSignatureHighS" : "SettlementSignatureMalformed",
          );
        } else if (offChain.toLowerCase() === f.alice.address.toLowerCase()) {
          seen.settled += 1;
          await expect(tx, c.name).to.emit(f.settlement, "BatchSettled");
        } else {
          seen.foreign += 1;
          await expect(tx, c.name)
            .to.be.revertedWithCustomError(f.settlement, "SettlementSignerNotAuthorized")
            .withArgs(f.alice.address, getAddress(offChain));
        }
      }
      // the variants cover all three outcomes
      expect(seen.refused).to.be.greaterThan(5);
      expect(seen.settled).to.be.greaterThan(0);
      expect(seen.foreign).to.be.greaterThan(0);
    });
  });
