// The placer's request to the DEX service has one hidden class per kind (wallet-signed, API key): built as
// `{ ...intent, kind, ... }` every request had a V8 map of its own (a spread followed by more properties), and
// each reader of it along the order path went megamorphic (docs/decisions/pipeline.md, "REST order entry").
import { test } from "node:test";
import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { fileHarness, fileKey, fundedWallet } from "../../api/testing/harness";
import { keyHeaders, signedOrderBody } from "../../api/testing/signing";

setFlagsFromString("--allow-natives-syntax");
const sameMap = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: object, b: object) => boolean;

const WARM_ORDERS = 50;
const h = fileHarness();
const k = fileKey(h);

async function place(body: unknown, headers: Record<string, string> = {}): Promise<void> {
  const res = await fetch(`${h.url}/orders`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 201, await res.text());
}

test("orders of one kind reach the service as objects of one hidden class, once the placer is warm", async () => {
  const w = fundedWallet(h);
  const from = h.service.placeCalls.length;
  // enough orders for V8 to optimize the placer (the first requests of a spread shared a map)
  for (let i = 0; i < WARM_ORDERS; i++) {
    const id = `shape-${i}`;
    await place(await signedOrderBody(w, { side: "sell", price: 2000, size: 0.1, client_order_id: id }));
    await place(
      { symbol: "WETH-USD", side: "buy", type: "limit", price: 1000, size: 0.1, client_order_id: id },
      keyHeaders(k),
    );
  }
  const calls = h.service.placeCalls.slice(from);
  const signed = calls.filter((c) => c.kind === "signed");
  const byKey = calls.filter((c) => c.kind === "api_key");
  assert.equal(signed.length, WARM_ORDERS);
  assert.equal(byKey.length, WARM_ORDERS);
  for (const list of [signed, byKey]) {
    const differ = list.filter((c) => !sameMap(c, list[0]!)).length;
    assert.equal(differ, 0, `${list[0]!.kind}: ${differ} of ${list.length} requests with a hidden class of their own`);
  }
});
