// The components `npm start` runs by default, each guarded by the existence of its module: the services
// land one by one, and a start must work with whichever are there. To add one: a line in REGISTRY below
// pointing at a module that exports a `Component` (types.ts).
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../../config";
import type { Component, ComponentHandle, StackContext } from "./types";

const INDEXER_MODULE = path.join(REPO_ROOT, "indexer", "run.ts");

interface IndexerModule {
  startIndexer(opts: {
    deploymentsFile: string;
    port: number;
    dataDir: string;
    databaseUrl?: string;
    schema: string;
    logLevel?: "error" | "warn" | "info" | "debug" | "trace";
    onLog?: (line: string) => void;
    cpus?: string;
  }): Promise<{ url: string; port: number; pid: number; stop(): Promise<void> }>;
}

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
  async start(ctx: StackContext): Promise<ComponentHandle> {
    const { startIndexer } = (await import(INDEXER_MODULE)) as IndexerModule;
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
    });
    return {
      stop: () => indexer.stop(),
      urls: { graphql: `${indexer.url}/graphql`, sql: `${indexer.url}/sql` },
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

/**
 * Components other engineers own, loaded only when started: a module that does not exist yet is simply
 * not in the list, and one that fails to load fails its own start, not the stack's import. In start
 * order: a component may use the handles of those before it (`ctx.started`). To add a service: one line.
 */
const REGISTRY: readonly { name: string; module: string; exportName: string }[] = [
  { name: "pipeline", module: "pipeline/component.ts", exportName: "pipelineComponent" },
  // After the pipeline: serves its DexService (REST, WebSocket, gRPC).
  { name: "dex-api", module: "api/dex/component.ts", exportName: "dexApiComponent" },
  // Before the indexer: it adds BridgeVault and BridgeMinter to the deployments the indexer reads.
  { name: "bridge", module: "scripts/stack/bridge-component.ts", exportName: "bridgeComponent" },
];

function lazyComponent(entry: (typeof REGISTRY)[number]): Component {
  const load = async (): Promise<Component> => {
    const mod = (await import(path.join(REPO_ROOT, entry.module))) as Record<string, Component | undefined>;
    const component = mod[entry.exportName];
    if (!component || typeof component.start !== "function") {
      throw new Error(`${entry.module} does not export a Component named ${entry.exportName}`);
    }
    return component;
  };
  return {
    name: entry.name,
    // the module's own provisioning step, if it has one (run by the stack before anything serves)
    async provision(ctx) {
      const component = await load();
      await component.provision?.(ctx);
    },
    async start(ctx) {
      return (await load()).start(ctx);
    },
  };
}

/**
 * The default components whose modules exist in this checkout, in start order, narrowed by
 * `config.stackComponents` (STACK_COMPONENTS=all | none | name,name).
 */
export function defaultComponents(selection: readonly string[] = ["all"]): Component[] {
  const available: Component[] = REGISTRY.filter((e) => fs.existsSync(path.join(REPO_ROOT, e.module))).map(lazyComponent);
  if (fs.existsSync(INDEXER_MODULE)) available.push(indexerComponent);
  if (selection.includes("none")) return [];
  if (selection.includes("all")) return available;
  return available.filter((c) => selection.includes(c.name));
}
