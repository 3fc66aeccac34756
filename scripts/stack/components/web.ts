// The trading web app as a stack component (`npm start`): builds web/ with Vite unless a build of the
// same content is cached (web/build.ts), then serves it on config.ports.web with the DEX REST API (/v1),
// the DEX WebSocket (/ws), the home chain's JSON-RPC (/rpc, an allowlist) and the indexer's candles on the
// same origin (web/server.ts), and the exchange app (/exchange) with the exchange API and the identity
// provider's login paths forwarded. Last in the list: the services it forwards to start before it.
import { buildWebApp } from "../../../web/build";
import { startWebServer } from "../../../web/server";
import type { Component, ComponentHandle, StackContext } from "../types";

export const webComponent: Component = {
  name: "web",
  async start(ctx: StackContext): Promise<ComponentHandle> {
    const log = ctx.logger.child({ component: "web" });
    const build = await buildWebApp();
    log.info(
      { hash: build.hash, built: build.built, ms: build.ms },
      build.built ? "web app built" : "web app build re-used",
    );
    const { config } = ctx;
    const server = await startWebServer({
      host: config.host,
      port: config.ports.web,
      distDir: build.dir,
      upstream: {
        dexRest: config.urls.dexRest.replace(/\/v1$/, ""),
        dexWs: config.urls.dexWs,
        rpc: ctx.chains.home.rpcUrl,
        indexer: () => ctx.started.get("indexer")?.urls?.graphql?.replace(/\/graphql$/, ""),
        exchangeApi: config.urls.exchangeApi.replace(/\/v1$/, ""),
        identity: config.urls.identity,
      },
      chainId: ctx.chains.home.chainId,
      mode: config.mode,
      devWalletKeys: config.keys.demoTraders.map((k) => k.privateKey),
      integratorKey: config.keys.integrator.privateKey,
    });
    let stopped = false;
    return {
      urls: { "trading app": `${server.url}/`, "exchange app": `${server.url}/exchange` },
      async stop() {
        if (stopped) return;
        stopped = true;
        await server.close();
      },
      async health() {
        try {
          const r = await fetch(`${server.url}/config.json`);
          return { ok: r.status === 200 };
        } catch (err) {
          return { ok: false, detail: String(err) };
        }
      },
    };
  },
};
