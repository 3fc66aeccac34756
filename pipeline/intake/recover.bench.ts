// tsx pipeline/intake/recover.bench.ts — cost of one order's signature check, per approach.
import { hashTypedData, recoverTypedDataAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { hexToBytes } from "@noble/hashes/utils.js";
import { ORDER_TYPES, getSettlementDomain as settlementDomain } from "../order";
import { createOrderDigester, getDomainSeparator } from "../../runtime/order-digest";
import { recoverSigner, recoveryBackend } from "./recover";
import { fixtureOrder } from "../testing/batcher-fixture";

async function time(label: string, n: number, fn: () => unknown): Promise<void> {
  for (let i = 0; i < Math.min(200, n); i++) await fn();
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn();
  console.log(`${label.padEnd(44)} ${(((performance.now() - t) * 1000) / n).toFixed(1).padStart(8)} us/op`);
}

async function main(): Promise<void> {
  const acc = privateKeyToAccount(generatePrivateKey());
  const domain = settlementDomain(31337, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
  const own = { trader: acc.address, baseToken: acc.address, quoteToken: acc.address };
  const o = fixtureOrder(7n, { ...own, price: 2_500_000_000n, amount: 10n ** 18n, expiry: 1n << 40n });
  const signature = await acc.signTypedData({ domain, types: ORDER_TYPES, primaryType: "Order", message: o });
  const digester = createOrderDigester(getDomainSeparator(domain));
  const digest = digester(o);
  const rec = new Uint8Array(65);
  rec.set(hexToBytes(signature.slice(2, 130)), 1);
  rec[0] = parseInt(signature.slice(130), 16) - 27;
  const msg = hexToBytes(digest.slice(2));
  console.log(`recoverSigner backend: ${recoveryBackend}`);
  await time("viem recoverTypedDataAddress", 1000, () =>
    recoverTypedDataAddress({ domain, types: ORDER_TYPES, primaryType: "Order", message: o, signature }),
  );
  await time("viem hashTypedData", 3000, () =>
    hashTypedData({ domain, types: ORDER_TYPES, primaryType: "Order", message: o }),
  );
  await time("hand-encoded digest (runtime/order-digest)", 20000, () => digester(o));
  await time("@noble/curves recoverPublicKey on the digest", 1000, () =>
    secp256k1.recoverPublicKey(rec, msg, { prehash: false }),
  );
  await time("recoverSigner (pipeline/recover)", 10000, () => recoverSigner(digest, signature));
}
main();
