// FrostSecp256k1Verifier against the RFC 9591 vector and fresh noble FROST signatures; malformed inputs refused
// with named errors; the on-chain message digest equals the SDK's.
import { expect } from "chai";
import { ethers } from "hardhat";
import { secp256k1_FROST } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes, keccak256, toHex, type Hex } from "viem";
import vector from "./fixtures/rfc9591-secp256k1-sha256.json";
import { frostSignatureToSolidity, groupPublicKeyToXY } from "../../../sdk/frost-solidity";
import { BRIDGE_MESSAGE_TYPEHASH, getBridgeMessageDigest, type BridgeMessage } from "../../../sdk/bridge-message";
import { createFrostGroup, frostSign } from "./helpers/frost";

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
const word = (v: bigint) => toHex(v, { size: 32 }).slice(2);

function flipBit(hex: Hex, bit: number): Hex {
  const bytes = hexToBytes(hex);
  bytes[Math.floor(bit / 8)] ^= 1 << (bit % 8);
  return bytesToHex(bytes);
}

describe("FrostSecp256k1Verifier", () => {
  let harness: any;
  const pk = groupPublicKeyToXY(`0x${vector.inputs.group_public_key}`);
  const message = `0x${vector.inputs.message}` as Hex;
  const rfcSig = `0x${vector.final_output.sig}` as Hex;
  const sig96 = frostSignatureToSolidity(rfcSig);

  before(async () => {
    harness = await (await ethers.getContractFactory("BridgeFrostVerifierHarness")).deploy();
  });

  describe("RFC 9591 Appendix E.5 vector", () => {
    it("verifies off chain with noble (the fixture is the RFC's)", () => {
      expect(
        secp256k1_FROST.verify(
          hexToBytes(rfcSig),
          hexToBytes(message),
          hexToBytes(`0x${vector.inputs.group_public_key}`),
        ),
      ).to.equal(true);
    });

    it("verifies on chain", async () => {
      expect(await harness.verifyMessage(pk.x, pk.y, message, sig96)).to.equal(true);
    });

    it("fails on chain when any single bit of R, z or the message changes", async () => {
      // Every bit of z and of Rx, and a sample of message bits; a flipped Rx is (usually) off the curve and is
      // refused with FrostPointNotOnCurve, otherwise the equation fails.
      const rfcBytes = hexToBytes(rfcSig);
      for (let bit = 8; bit < 65 * 8; bit += 7) {
        const tampered = bytesToHex(rfcBytes.map((b, i) => (i === Math.floor(bit / 8) ? b ^ (1 << (bit % 8)) : b)));
        let encoded: Hex;
        try {
          encoded = frostSignatureToSolidity(tampered);
        } catch {
          // Rx no longer on the curve: send the original Ry with the tampered Rx.
          encoded = `0x${tampered.slice(4, 68)}${sig96.slice(66, 130)}${tampered.slice(68)}` as Hex;
        }
        const ok = await harness.verifyMessage(pk.x, pk.y, message, encoded).catch((e: Error) => {
          expect(e.message).to.match(/FrostPointNotOnCurve|FrostScalarOutOfRange|FrostCoordinateOutOfRange/);
          return false;
        });
        expect(ok, `bit ${bit}`).to.equal(false);
      }
      for (let bit = 0; bit < 32; bit++) {
        expect(await harness.verifyMessage(pk.x, pk.y, flipBit(message, bit), sig96)).to.equal(false);
      }
    });

    it("fails when Ry is the other root (R's parity, hence the challenge, changes)", async () => {
      const ry = BigInt(`0x${sig96.slice(66, 130)}`);
      const other = `0x${sig96.slice(2, 66)}${word(P - ry)}${sig96.slice(130)}` as Hex;
      expect(await harness.verifyMessage(pk.x, pk.y, message, other)).to.equal(false);
    });

    it("fails under another public key", async () => {
      const other = createFrostGroup().publicKey;
      expect(await harness.verifyMessage(other.x, other.y, message, sig96)).to.equal(false);
    });
  });

  describe("fresh 3-of-5 signatures over 32-byte digests", () => {
    const group = createFrostGroup(3, 5);
    it("verify for several signer subsets", async () => {
      for (const subset of [
        [0, 1, 2],
        [2, 3, 4],
        [0, 2, 4],
        [0, 1, 2, 3, 4],
      ]) {
        const digest = keccak256(toHex(`m-${subset.join()}`));
        const sig = frostSign(
          group,
          digest,
          subset.map((i) => group.ids[i]),
        );
        expect(await harness.verifyDigest(group.publicKey.x, group.publicKey.y, digest, sig)).to.equal(true);
        expect(await harness.verifyDigest(group.publicKey.x, group.publicKey.y, flipBit(digest, 0), sig)).to.equal(
          false,
        );
      }
    });

    it("2 shares of a 3-of-5 group do not make a signature; z from 2 shares with R from 3 does not verify", async () => {
      const digest = keccak256(toHex("two nodes"));
      expect(() => frostSign(group, digest, group.ids.slice(0, 2))).to.throw();
      // The closest a 2-node coalition gets: a real 3-node R with a z that lacks the third node's share.
      const honest = frostSign(group, digest);
      const z = BigInt(`0x${honest.slice(130)}`);
      const forged = `${honest.slice(0, 130)}${word((z + 12345n) % N)}` as Hex;
      expect(await harness.verifyDigest(group.publicKey.x, group.publicKey.y, digest, forged)).to.equal(false);
    });
  });

  describe("malformed signatures and keys are refused with named errors", () => {
    const digest = keccak256(toHex("malformed"));
    const group = createFrostGroup(3, 5);
    const good = frostSign(group, digest);
    const { x, y } = group.publicKey;
    const rx = BigInt(`0x${good.slice(2, 66)}`);
    const ry = BigInt(`0x${good.slice(66, 130)}`);
    const z = BigInt(`0x${good.slice(130)}`);
    const enc = (a: bigint, b: bigint, c: bigint) => `0x${word(a)}${word(b)}${word(c)}` as Hex;

    it("accepts the well-formed signature", async () => {
      expect(await harness.verifyDigest(x, y, digest, good)).to.equal(true);
    });
    it("wrong lengths", async () => {
      const rfc65 = `0x02${good.slice(2, 66)}${good.slice(130)}`;
      for (const s of ["0x", good.slice(0, -2), `${good}00`, rfc65, `${good}${good.slice(2)}`]) {
        await expect(harness.verifyDigest(x, y, digest, s)).to.be.revertedWithCustomError(
          harness,
          "FrostSignatureLengthInvalid",
        );
      }
    });
    it("z == 0, z == n, z > n", async () => {
      for (const bad of [0n, N, N + 1n, 2n ** 256n - 1n]) {
        await expect(harness.verifyDigest(x, y, digest, enc(rx, ry, bad)))
          .to.be.revertedWithCustomError(harness, "FrostScalarOutOfRange")
          .withArgs(bad);
      }
    });
    it("Rx >= p or Ry >= p", async () => {
      await expect(harness.verifyDigest(x, y, digest, enc(P, ry, z))).to.be.revertedWithCustomError(
        harness,
        "FrostCoordinateOutOfRange",
      );
      await expect(harness.verifyDigest(x, y, digest, enc(rx, P + 1n, z))).to.be.revertedWithCustomError(
        harness,
        "FrostCoordinateOutOfRange",
      );
    });
    it("R off the curve", async () => {
      await expect(harness.verifyDigest(x, y, digest, enc(rx, ry ^ 2n, z))).to.be.revertedWithCustomError(
        harness,
        "FrostPointNotOnCurve",
      );
      await expect(harness.verifyDigest(x, y, digest, enc(0n, 0n, z))).to.be.revertedWithCustomError(
        harness,
        "FrostPointNotOnCurve",
      );
    });
    it("public key off the curve, zero, or x >= n", async () => {
      await expect(harness.verifyDigest(x, y ^ 2n, digest, good)).to.be.revertedWithCustomError(
        harness,
        "FrostPublicKeyInvalid",
      );
      await expect(harness.verifyDigest(0n, y, digest, good)).to.be.revertedWithCustomError(
        harness,
        "FrostPublicKeyInvalid",
      );
      await expect(harness.verifyDigest(N, y, digest, good)).to.be.revertedWithCustomError(
        harness,
        "FrostPublicKeyInvalid",
      );
    });
    it("BridgeFrostVerifier refuses to be deployed with an invalid group key", async () => {
      const factory = await ethers.getContractFactory("BridgeFrostVerifier");
      await expect(factory.deploy(1n, x, y ^ 2n)).to.be.revertedWithCustomError(factory, "FrostPublicKeyInvalid");
      await expect(factory.deploy(1n, 0n, 0n)).to.be.revertedWithCustomError(factory, "FrostPublicKeyInvalid");
      const v: any = await factory.deploy(1n, x, y);
      expect(await v.isValidBridgeSignature(digest, good)).to.equal(
        v.interface.getFunction("isValidBridgeSignature").selector,
      );
      expect(await v.isValidBridgeSignature(flipBit(digest, 3), good)).to.equal("0xffffffff");
    });
    it("an all-zero 96-byte signature", async () => {
      await expect(harness.verifyDigest(x, y, digest, enc(0n, 0n, 0n))).to.be.revertedWithCustomError(
        harness,
        "FrostScalarOutOfRange",
      );
    });
  });

  describe("gas", () => {
    it("verification alone stays within 10,000 gas", async () => {
      const group = createFrostGroup(3, 5);
      const digest = keccak256(toHex("gas"));
      const sig = frostSign(group, digest);
      const [valid, gasUsed] = await harness.measureVerify(
        group.publicKey.x,
        group.publicKey.y % 2n === 1n,
        digest,
        sig,
      );
      expect(valid).to.equal(true);
      expect(Number(gasUsed)).to.be.lessThanOrEqual(10_000);
    });
  });

  describe("BridgeMessageHash equals sdk/bridge-message.ts", () => {
    it("typehash and digests of random messages agree", async () => {
      expect(await harness.typehash()).to.equal(BRIDGE_MESSAGE_TYPEHASH);
      const rnd = (n: number) => bytesToHex(ethers.randomBytes(n) as Uint8Array);
      for (let i = 0; i < 8; i++) {
        const m: BridgeMessage = {
          kind: (i % 2) as 0 | 1,
          srcChainId: BigInt(rnd(8)),
          srcContract: ethers.getAddress(rnd(20)) as Hex,
          dstChainId: BigInt(rnd(32)),
          dstContract: ethers.getAddress(rnd(20)) as Hex,
          nonce: BigInt(rnd(8)),
          token: ethers.getAddress(rnd(20)) as Hex,
          recipient: ethers.getAddress(rnd(20)) as Hex,
          amountWei: BigInt(rnd(32)),
          keyEpoch: BigInt(rnd(8)),
        };
        const onChain = await harness.digest({ ...m, amount: m.amountWei });
        expect(onChain).to.equal(getBridgeMessageDigest(m));
      }
    });
  });
});
