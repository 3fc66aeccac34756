// The metrics registry: the order path's allocation-free counters and histogram read as Prometheus text,
// refusal reasons, scrape callbacks (a slow one is left behind), and GET /metrics on a node server.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { metrics, metricsResponse, metricsText, onScrape, refusalReason } from "./metrics";

test("orders accepted and refused, by entry and reason, and the match latency histogram, in Prometheus text", async () => {
  metrics.ordersAccepted.inc("rest");
  metrics.ordersAccepted.inc("rest");
  metrics.ordersRefused.inc("grpc", "INSUFFICIENT_BALANCE");
  metrics.matchLatency.observe(0.0002);
  metrics.matchLatency.observe(0.003);
  metrics.matchLatency.observe(5);
  const text = await metricsText();
  assert.match(text, /^dex_orders_accepted_total\{entry="rest"\} 2$/m);
  assert.match(text, /^dex_orders_refused_total\{entry="grpc",reason="INSUFFICIENT_BALANCE"\} 1$/m);
  assert.match(text, /^# TYPE dex_match_latency_seconds histogram$/m);
  // cumulative buckets: 0.0002 <= 0.00025; 0.003 <= 0.005; 5 only in +Inf
  assert.match(text, /^dex_match_latency_seconds_bucket\{le="0.0001"\} 0$/m);
  assert.match(text, /^dex_match_latency_seconds_bucket\{le="0.00025"\} 1$/m);
  assert.match(text, /^dex_match_latency_seconds_bucket\{le="0.005"\} 2$/m);
  assert.match(text, /^dex_match_latency_seconds_bucket\{le="1"\} 2$/m);
  assert.match(text, /^dex_match_latency_seconds_bucket\{le="\+Inf"\} 3$/m);
  assert.match(text, /^dex_match_latency_seconds_count 3$/m);
  assert.match(text, /^process_cpu_seconds_total /m, "the process's default metrics too");
});

test("a refusal's reason is its details.reason, else its code, else internal", () => {
  assert.equal(
    refusalReason({ code: "UNAUTHORIZED", details: { reason: "invalid_order_signature" } }),
    "invalid_order_signature",
  );
  assert.equal(refusalReason({ code: "INVALID_REQUEST", details: {} }), "INVALID_REQUEST");
  assert.equal(refusalReason(new Error("x")), "internal");
});

test("scrape callbacks set gauges before the read; one that hangs is left behind after a second", async () => {
  const removeHang = onScrape(() => new Promise(() => undefined));
  const remove = onScrape(() => metrics.settlementBacklog.set(7));
  const t = performance.now();
  const text = await metricsText();
  assert.ok(performance.now() - t < 3_000);
  assert.match(text, /^dex_settlement_backlog_trades 7$/m);
  remove();
  removeHang();
});

test("GET /metrics on a node server; other paths are left to the server", async () => {
  const server = http.createServer((req, res) => {
    if (metricsResponse(req, res)) return;
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const res = await fetch(`${base}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0.0.4/);
    assert.match(await res.text(), /^# HELP dex_orders_accepted_total /m);
    assert.equal((await fetch(`${base}/other`)).status, 404);
  } finally {
    server.close();
  }
});
