// The identity provider as a stack component (`npm start`): api/iam on config.ports.identity, issuer
// config.urls.identity, access tokens for the exchange API (resource config.urls.exchangeApi, audience
// config.exchangeApi.oidcAudience, "exchange-api" by default). Its own PGlite directory
// (<dataDir>/iam/pglite) or the shared Postgres; signing keys and secrets sealed with the API-key encryption key (resolveEncryptionKey: configured, or the sandbox's
// generated key beside the data dir).
import path from "node:path";
import { createDb } from "../../../db";
import { resolveEncryptionKey } from "../../../api/dex/config";
import { DEFAULT_CLIENT_ID, iamConfig, WEB_CALLBACK_PATH } from "../../../api/iam/config";
import { startIam } from "../../../api/iam/server";
import { systemClock } from "../../../runtime/clock";
import type { Component, ComponentHandle, StackContext } from "../types";

export const iamComponent: Component = {
  name: "iam",
  serving: true,
  async start(ctx: StackContext): Promise<ComponentHandle> {
    const dir = path.join(ctx.config.dataDir, "iam");
    const db = await createDb({
      dataDir: path.join(dir, "pglite"),
      databaseUrl: ctx.config.database.url,
      schema: "iam",
    });
    const encryptionKeyHex = resolveEncryptionKey({
      mode: ctx.config.mode,
      keyHex: ctx.config.dexApi.encryptionKeyHex,
      keyFile: ctx.config.dexApi.encryptionKeyFile,
      dataDir: ctx.config.dataDir,
    });
    // the audience is the one the exchange API requires (EXCHANGE_OIDC_AUDIENCE), so both sides read one setting
    const config = iamConfig({
      mode: ctx.config.mode,
      issuer: ctx.config.urls.identity,
      resource: ctx.config.urls.exchangeApi,
      audience: ctx.config.exchangeApi.oidcAudience,
      trustProxy: ctx.config.trustedProxies,
      // the code flow returns to the web app of this configuration (WEB_PORT, HOST)
      clients: [
        {
          clientId: DEFAULT_CLIENT_ID,
          redirectUris: [`${ctx.config.urls.web}${WEB_CALLBACK_PATH}`],
          passwordGrant: true,
          codeFlow: true,
        },
      ],
    });
    let iam;
    try {
      iam = await startIam({
        config,
        db,
        clock: systemClock,
        logger: ctx.logger.child({ component: "iam" }),
        encryptionKeyHex,
        host: ctx.config.host,
        port: ctx.config.ports.identity,
      });
    } catch (err) {
      await db.close();
      throw err;
    }
    const handle = iam;
    let stopped = false;
    return {
      urls: {
        "identity (iam)": handle.url,
        "iam discovery": `${handle.url}/.well-known/openid-configuration`,
        ...(config.mode === "sandbox" ? { "iam sandbox outbox": `${handle.url}/api/sandbox/outbox?phone=` } : {}),
      },
      info: { "iam client_id": DEFAULT_CLIENT_ID },
      async stop() {
        if (stopped) return;
        stopped = true;
        await handle.close();
        await db.close();
      },
      async health() {
        try {
          const r = await fetch(`${handle.url}/.well-known/openid-configuration`);
          return { ok: r.status === 200 };
        } catch (err) {
          return { ok: false, detail: String(err) };
        }
      },
    };
  },
};
