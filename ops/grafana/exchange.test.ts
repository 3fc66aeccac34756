// The Grafana dashboard (ops/grafana/exchange.json) is a dashboard in Grafana's JSON model (the fields
// Grafana reads to lay out and query its panels), and every query names metrics our services export:
// each of runtime/metrics.ts's metrics is charted, and nothing charted is missing from the registry.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { z } from "zod";
import { METRIC_NAMES, registry } from "../../runtime/metrics";

const datasource = z.object({ type: z.literal("prometheus"), uid: z.string().min(1) });
const target = z.object({
  refId: z.string().regex(/^[A-Z]$/),
  expr: z.string().min(1),
  legendFormat: z.string().optional(),
  datasource: datasource.optional(),
});
const panel = z.object({
  id: z.number().int().positive(),
  type: z.enum(["timeseries", "stat", "gauge", "bargauge", "table", "heatmap"]),
  title: z.string().min(1),
  datasource,
  gridPos: z.object({
    h: z.number().int().positive(),
    w: z.number().int().min(1).max(24),
    x: z.number().int().min(0).max(23),
    y: z.number().int().min(0),
  }),
  targets: z.array(target).min(1),
  fieldConfig: z
    .object({ defaults: z.object({ unit: z.string().optional() }).passthrough(), overrides: z.array(z.unknown()) })
    .optional(),
});
const dashboard = z.object({
  title: z.string().min(1),
  uid: z.string().regex(/^[a-zA-Z0-9_-]{1,40}$/),
  schemaVersion: z.number().int().min(30),
  version: z.number().int(),
  time: z.object({ from: z.string(), to: z.string() }),
  templating: z.object({ list: z.array(z.object({ name: z.string(), type: z.string() }).passthrough()) }),
  panels: z.array(panel).min(1),
});

const file = path.join(__dirname, "exchange.json");

test("the dashboard is Grafana's JSON model and charts every metric the services export, and no other", () => {
  const parsed = dashboard.parse(JSON.parse(fs.readFileSync(file, "utf8")));
  const ids = parsed.panels.map((p) => p.id);
  assert.equal(new Set(ids).size, ids.length, "panel ids are unique");
  // the ${datasource} variable the panels use is defined
  assert.ok(parsed.templating.list.some((v) => v.name === "datasource" && v.type === "datasource"));
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's own variable syntax, not a template literal
  for (const p of parsed.panels) assert.equal(p.datasource.uid, "${datasource}", p.title);
  for (const p of parsed.panels) assert.ok(p.gridPos.x + p.gridPos.w <= 24, `${p.title} fits the grid`);

  const exported = new Set(registry.getMetricsAsArray().map((m) => m.name));
  const used = new Set<string>();
  for (const p of parsed.panels) {
    for (const t of p.targets) {
      // the metric names of a query: its identifiers in our namespace (dex_) or prom-client's (process_, nodejs_)
      for (const [name] of t.expr.matchAll(/\b(?:dex|process|nodejs)_[a-z0-9_]*/g)) {
        const base = name.replace(/_(bucket|sum|count)$/, "");
        assert.ok(exported.has(name) || exported.has(base), `${p.title}: ${name} is exported`);
        used.add(exported.has(name) ? name : base);
      }
    }
  }
  for (const name of METRIC_NAMES) assert.ok(used.has(name), `${name} is charted`);
});
