// noble's FROST(secp256k1, SHA-256) against the RFC 9591 Appendix E.5 known answers: key shares, nonces,
// commitments, binding factors, signature shares and the final signature. H1/H4/H5 are recomputed here
// from the RFC's definitions so that the binding factors are checked independently of noble's internals.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { hash_to_field } from "@noble/curves/abstract/hash-to-curve.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import type { FrostPublic, NonceCommitments } from "@noble/curves/abstract/frost.js";
import { FROST_CONTEXT_STRING, frost, splitFrostSignature } from "../sdk/frost";

interface Vector {
  name: string;
  config: { MAX_PARTICIPANTS: number; MIN_PARTICIPANTS: number };
  inputs: {
    group_secret_key: string;
    group_public_key: string;
    message: string;
    share_polynomial_coefficients: string[];
    participant_shares: { identifier: number; participant_share: string }[];
  };
  participant_list: number[];
  round_one_outputs: {
    identifier: number;
    hiding_nonce_randomness: string;
    binding_nonce_randomness: string;
    hiding_nonce: string;
    binding_nonce: string;
    hiding_nonce_commitment: string;
    binding_nonce_commitment: string;
    binding_factor_input: string;
    binding_factor: string;
  }[];
  round_two_outputs: { identifier: number; sig_share: string }[];
  final_output: { sig: string };
}

const fixture = JSON.parse(readFileSync(join(__dirname, "testing/fixtures/rfc9591-secp256k1-sha256.json"), "utf8")) as {
  vectors: Vector[];
};
const Point = secp256k1.Point;
const Fn = Point.Fn;
const scalarHex = (v: bigint) => bytesToHex(Fn.toBytes(v));

// RFC 9591 section 6.5: H1 = hash_to_field(contextString || "rho"), H4/H5 = SHA-256(contextString || tag || m).
const H1 = (m: Uint8Array) =>
  hash_to_field(m, 1, {
    DST: `${FROST_CONTEXT_STRING}rho`,
    p: Fn.ORDER,
    m: 1,
    k: 128,
    expand: "xmd",
    hash: sha256,
  })[0][0];
const H4 = (m: Uint8Array) => sha256(concatBytes(utf8ToBytes(`${FROST_CONTEXT_STRING}msg`), m));
const H5 = (m: Uint8Array) => sha256(concatBytes(utf8ToBytes(`${FROST_CONTEXT_STRING}com`), m));

/** An RNG that hands out the vector's nonce randomness in order (hiding, then binding). */
const replayRng = (chunks: string[]) => (len?: number) => {
  const next = chunks.shift();
  assert.ok(next, "RNG drained");
  const bytes = hexToBytes(next);
  assert.equal(bytes.length, len);
  return bytes;
};

function setup(v: Vector) {
  const min = v.config.MIN_PARTICIPANTS;
  const max = v.config.MAX_PARTICIPANTS;
  const secret = hexToBytes(v.inputs.group_secret_key);
  const coeffs = v.inputs.share_polynomial_coefficients.map((c) => Fn.fromBytes(hexToBytes(c)));
  const poly = frost.utils.generateSecretPolynomial({ min, max }, secret, coeffs);
  const pub: FrostPublic = {
    signers: { min, max },
    commitments: poly.commitment,
    verifyingShares: Object.fromEntries(
      v.inputs.participant_shares.map((s) => [
        frost.Identifier.fromNumber(s.identifier),
        Point.BASE.multiply(Fn.fromBytes(hexToBytes(s.participant_share))).toBytes(true),
      ]),
    ),
  };
  const secrets = Object.fromEntries(
    v.inputs.participant_shares.map((s) => [
      s.identifier,
      { identifier: frost.Identifier.fromNumber(s.identifier), signingShare: hexToBytes(s.participant_share) },
    ]),
  );
  return { pub, secrets, msg: hexToBytes(v.inputs.message), poly };
}

for (const v of fixture.vectors) {
  test(`RFC 9591 FROST(secp256k1, SHA-256) vector ${v.name}: shares, nonces, binding factors, sig shares, signature`, () => {
    const { pub, secrets, msg, poly } = setup(v);

    // key shares: f(i) = s + a1*i, each consistent with the VSS commitments; group key = s*G
    assert.equal(bytesToHex(pub.commitments[0]), v.inputs.group_public_key);
    for (const s of v.inputs.participant_shares) {
      const fi = Fn.add(
        poly.secret,
        Fn.mul(Fn.fromBytes(hexToBytes(v.inputs.share_polynomial_coefficients[0])), BigInt(s.identifier)),
      );
      assert.equal(scalarHex(fi), s.participant_share);
      frost.validateSecret(secrets[s.identifier], pub);
    }
    const recovered = frost.combineSecret(
      v.participant_list.map((i) => secrets[i]),
      pub.signers,
    );
    assert.equal(bytesToHex(recovered), v.inputs.group_secret_key);

    // round one: nonces and commitments from the vector's randomness
    const nonces: Record<number, { hiding: Uint8Array; binding: Uint8Array }> = {};
    const commitmentList: NonceCommitments[] = [];
    for (const r1 of v.round_one_outputs) {
      const gen = frost.commit(
        secrets[r1.identifier],
        replayRng([r1.hiding_nonce_randomness, r1.binding_nonce_randomness]),
      );
      assert.equal(bytesToHex(gen.nonces.hiding), r1.hiding_nonce);
      assert.equal(bytesToHex(gen.nonces.binding), r1.binding_nonce);
      assert.equal(bytesToHex(gen.commitments.hiding), r1.hiding_nonce_commitment);
      assert.equal(bytesToHex(gen.commitments.binding), r1.binding_nonce_commitment);
      nonces[r1.identifier] = gen.nonces;
      commitmentList.push(gen.commitments);
    }

    // binding factors: rho_input = SerializeElement(PK) || H4(msg) || H5(encoded commitments) || SerializeScalar(id)
    const encoded = concatBytes(
      ...v.round_one_outputs.flatMap((r1) => [
        Fn.toBytes(BigInt(r1.identifier)),
        hexToBytes(r1.hiding_nonce_commitment),
        hexToBytes(r1.binding_nonce_commitment),
      ]),
    );
    const prefix = concatBytes(hexToBytes(v.inputs.group_public_key), H4(msg), H5(encoded));
    for (const r1 of v.round_one_outputs) {
      const input = concatBytes(prefix, Fn.toBytes(BigInt(r1.identifier)));
      assert.equal(bytesToHex(input), r1.binding_factor_input);
      assert.equal(scalarHex(H1(input)), r1.binding_factor);
    }

    // round two: signature shares, each verified against the signer's verifying share
    const shares: Record<string, Uint8Array> = {};
    for (const r2 of v.round_two_outputs) {
      const id = frost.Identifier.fromNumber(r2.identifier);
      const share = frost.signShare(secrets[r2.identifier], pub, nonces[r2.identifier], commitmentList, msg);
      assert.equal(bytesToHex(share), r2.sig_share);
      assert.equal(frost.verifyShare(pub, commitmentList, msg, id, share), true);
      shares[id] = share;
    }

    // aggregation: the final signature and its verification under the group key
    const sig = frost.aggregate(pub, commitmentList, msg, shares);
    assert.equal(bytesToHex(sig), v.final_output.sig);
    assert.equal(frost.verify(sig, msg, pub.commitments[0]), true);
    const words = splitFrostSignature(sig);
    assert.equal(words.R.compressed.slice(2), v.final_output.sig.slice(0, 66));
    assert.equal(words.z.slice(2), v.final_output.sig.slice(66));
    assert.equal(words.evm.length, 2 + 96 * 2);
    assert.equal(words.evm.slice(2 + 128), v.final_output.sig.slice(66));
    assert.ok(
      Point.fromAffine({ x: BigInt(words.R.x), y: BigInt(words.R.y) }).equals(
        Point.fromBytes(hexToBytes(v.final_output.sig.slice(0, 66))),
      ),
    );
  });

  test(`RFC 9591 vector ${v.name}: tampered inputs are refused`, () => {
    const { pub, secrets, msg } = setup(v);
    const sig = hexToBytes(v.final_output.sig);
    // another message
    assert.equal(frost.verify(sig, hexToBytes("74657375"), pub.commitments[0]), false);
    // z + 1
    const zPlus = sig.slice();
    zPlus[64] ^= 1;
    assert.equal(frost.verify(zPlus, msg, pub.commitments[0]), false);
    // z >= n is malformed, not merely wrong
    const zN = concatBytes(
      sig.subarray(0, 33),
      Fn.toBytes(0n).map(() => 0xff),
    );
    assert.throws(() => frost.verify(zN, msg, pub.commitments[0]));
    // a tampered signature share is caught by verifyShare and named by aggregate
    const commitmentList = v.round_one_outputs.map((r1) => ({
      identifier: frost.Identifier.fromNumber(r1.identifier),
      hiding: hexToBytes(r1.hiding_nonce_commitment),
      binding: hexToBytes(r1.binding_nonce_commitment),
    }));
    const [a, b] = v.round_two_outputs;
    const bad = hexToBytes(a.sig_share);
    bad[31] ^= 1;
    const idA = frost.Identifier.fromNumber(a.identifier);
    assert.equal(frost.verifyShare(pub, commitmentList, msg, idA, bad), false);
    assert.throws(
      () =>
        frost.aggregate(pub, commitmentList, msg, {
          [idA]: bad,
          [frost.Identifier.fromNumber(b.identifier)]: hexToBytes(b.sig_share),
        }),
      (err: Error & { cheaters?: string[] }) => Array.isArray(err.cheaters) && err.cheaters.includes(idA),
    );
    // the shares of 1 signer alone (below MIN_PARTICIPANTS) never give a valid signature
    assert.throws(() =>
      frost.signShare(
        secrets[a.identifier],
        pub,
        {
          hiding: hexToBytes(v.round_one_outputs[0].hiding_nonce),
          binding: hexToBytes(v.round_one_outputs[0].binding_nonce),
        },
        commitmentList.slice(0, 1),
        msg,
      ),
    );
  });
}
