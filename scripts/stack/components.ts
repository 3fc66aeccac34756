// The composition root's list of services: `npm start` runs these, in this order. Every edge is a static
// import, so the dependency check (.dependency-cruiser.cjs) sees it.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../../config";
import type { Component, ComponentHandle, StackContext } from "./types";
import { startIndexer } from "../../indexer/run";
import { pipelineComponent } from "./components/pipeline";
import { dexApiComponent } from "./components/dex-api";
import { bridgeComponent } from "./components/bridge";
import { exchangeApiComponent } from "./components/exchange-api";
import { iamComponent } from "./components/iam";
import { simulatorComponent } from "./components/simulator";
import { webComponent } from "./components/web";

function hashFiles(hash: ReturnType<typeof createHash>, dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === "node_modules" || entry.name.startsWith(".") || entry.name === "generated") continue;
      hashFiles(hash, p);
    } else if (entry.name.endsWith(".ts")) {
      hash.update(p).update(fs.readFileSync(p));
    }
  }
}

/**
 * Ponder keeps one build per database schema and refuses another build on it. The schema is named after
 * what makes a build (the deployments and the indexer's code), so an unchanged restart resumes where it
 * was and a changed one indexes afresh into a new schema.
 */
export function indexerSchemaName(deploymentsFile: string): string {
  const hash = createHash("sha256");
  const d = JSON.parse(fs.readFileSync(deploymentsFile, "utf8")) as Record<string, { rpcUrl?: string; wsUrl?: string }>;
  // URLs change with ports; they do not change what is indexed.
  for (const side of Object.values(d)) {
    delete side.rpcUrl;
    delete side.wsUrl;
  }
  hash.update(JSON.stringify(d));
  hashFiles(hash, path.join(REPO_ROOT, "indexer"));
  return `idx_${hash.digest("hex").slice(0, 12)}`;
}

export const indexerComponent: Component = {
  name: "indexer",
  // the longest start (Ponder's own process): the exchange API and the web app read its URL when asked
  alongside: true,
  async start(ctx: StackContext): Promise<ComponentHandle> {
    const log = ctx.logger.child({ component: "indexer" });
    const indexer = await startIndexer({
      deploymentsFile: ctx.deploymentsFile,
      port: ctx.config.ports.indexer,
      dataDir: path.join(ctx.config.dataDir, "indexer"),
      databaseUrl: ctx.config.database.url,
      schema: indexerSchemaName(ctx.deploymentsFile),
      logLevel: "warn",
      onLog: (line) => log.warn(line),
      cpus: ctx.config.indexerCpus,
      hotFront: ctx.config.indexerHotFront,
    });
    return {
      stop: () => indexer.stop(),
      // Ponder exiting on its own (a crash, a kill): the stack's supervisor starts the indexer again
      exited: indexer.exited,
      urls: { graphql: `${indexer.url}/graphql`, sql: `${indexer.url}/sql`, metrics: `${indexer.url}/metrics` },
      async health() {
        try {
          const res = await fetch(`${indexer.url}/ready`);
          return { ok: res.status === 200, detail: `ready ${res.status}` };
        } catch (e) {
          return { ok: false, detail: String(e) };
        }
      },
    };
  },
};

/** Every service of `npm start`, in start order: a component may use the handles of those before it
 *  (`ctx.started`). To add a service: import its Component and add it here. */
const ALL: readonly Component[] = [
  pipelineComponent,
  // After the pipeline: serves its DexService (REST, WebSocket, gRPC).
  dexApiComponent,
  // As early as can be, after the DEX API (its feeds carry the first live trades): the simulated market's agents
  // trade through the pipeline (SIMULATOR=off leaves it out). Its start does not wait for its history replay,
  // which goes on while the rest starts; the live agents start the moment it ends (on a restart, at once). The
  // eligibility registry knows its agents from the exchange API's provisioning on (scripts/stack/agents-registry.ts).
  simulatorComponent,
  // Started alongside the next ones (its start is the longest): it reads the deployments, every contract of
  // which (the bridge's too) the provisioning recorded before any component starts.
  indexerComponent,
  // The identity provider (api/iam): needs nothing else; the exchange API verifies its tokens.
  iamComponent,
  // After the iam (its issuer's discovery and JWKS): the exchange API, its custody and funding.
  exchangeApiComponent,
  bridgeComponent,
  // Last: the trading web app forwards to the DEX API, the home chain and the indexer.
  webComponent,
];

/** The components in start order, narrowed by `config.stackComponents` (STACK_COMPONENTS=all | none | name,name). */
export function defaultComponents(selection: readonly string[] = ["all"]): Component[] {
  if (selection.includes("none")) return [];
  if (selection.includes("all")) return [...ALL];
  return ALL.filter((c) => selection.includes(c.name));
}
