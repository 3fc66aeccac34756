import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { addressArb as addr, orderArb } from "../testing/order-arbitraries";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ORDER_TYPES, getSettlementDomain, type Order } from "../order";
import { agentAccount } from "./agent-signer";
import { createOrderDigester, getDomainSeparator } from "../../runtime/order-digest";
import { recoverSigner, recoveryBackend } from "./recover";
import { fixtureOrder } from "../testing/batcher-fixture";

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** any valid secp256k1 private key: 1 <= k < n */
const keyArb = fc.bigInt({ min: 1n, max: N - 1n }).map((k) => `0x${k.toString(16).padStart(64, "0")}` as Hex);
const domainArb = fc.record({ chainId: fc.integer({ min: 1, max: 2 ** 31 }), settlement: addr });

test("the agent's native order signature is byte for byte viem's signTypedData, for random keys, domains and orders", async () => {
  // the production path is the native one; the property must cover it
  assert.equal(recoveryBackend, "native");
  await fc.assert(
    fc.asyncProperty(keyArb, domainArb, orderArb, async (key, d, o: Order) => {
      const domain = getSettlementDomain(d.chainId, d.settlement);
      const agent = agentAccount(key);
      const sig = agent.signDigest(createOrderDigester(getDomainSeparator(domain))(o));
      const viemSig = await privateKeyToAccount(key).signTypedData({
        domain,
        types: ORDER_TYPES,
        primaryType: "Order",
        message: o,
      });
      assert.equal(sig, viemSig);
    }),
    { numRuns: 200 },
  );
});

test("the agent account is still the key's viem account (address, signTypedData) and its signature recovers to it", async () => {
  const key = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as Hex;
  const agent = agentAccount(key);
  const viem = privateKeyToAccount(key);
  assert.equal(agent.address, viem.address);
  assert.equal(agent.type, "local");
  const domain = getSettlementDomain(31337, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
  const own = { trader: viem.address, baseToken: viem.address, quoteToken: viem.address };
  const o = fixtureOrder(2n ** 63n, { ...own, side: 1, price: 10n, amount: 5n, expiry: 99n, flags: 1 });
  const digest = createOrderDigester(getDomainSeparator(domain))(o);
  assert.equal(recoverSigner(digest, agent.signDigest(digest)), viem.address.toLowerCase());
  assert.equal(
    await agent.signTypedData({ domain, types: ORDER_TYPES, primaryType: "Order", message: o }),
    agent.signDigest(digest),
  );
});

test("signDigest refuses anything but a 32-byte digest", () => {
  const agent = agentAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
  assert.throws(() => agent.signDigest(`0x${"11".repeat(31)}` as Hex), /32 bytes/);
  assert.throws(() => agent.signDigest(`0x${"11".repeat(33)}` as Hex), /32 bytes/);
  assert.match(agent.signDigest(`0x${"11".repeat(32)}` as Hex), /^0x[0-9a-f]{128}(1b|1c)$/);
});
