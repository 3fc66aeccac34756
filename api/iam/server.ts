// The identity provider's HTTP server: oidc-provider (discovery, JWKS, authorization, token with the
// password grant, userinfo, revocation) behind a small Express app that adds the one-time-code endpoint,
// the code flow's sandbox login/consent pages and the sandbox endpoints (absent, 404, in production mode).
//   POST /api/otp                      {phone}                    -> 200 {data:{phone, expiresAt, expiresIn, sandboxPhoneKey?}, message}
//   GET  /api/sandbox/outbox?phone=&limit=  (X-Sandbox-Phone-Key)  -> 200 {data:[{code, sentAt, expiresAt}], message}
//   POST /api/sandbox/organizations    {name}                     -> 201 {data:{id, name, sandboxOrganizationKey}, message}
//   POST /api/sandbox/users            {phone, organizationId, name?} (both keys) -> 201 {data:{id, phone, organizationId, name}, message}
// (the sandbox's keys: api/iam/sandbox.ts)
// Signing keys rotate by `rotateSigningKey()` and by the hourly maintenance (a key older than
// config.keyRotationMs); each rotation builds a new Provider over the same SQL adapter, so grants,
// sessions and refresh tokens survive it, and the retired key stays in the JWKS until its tokens expire.
import http from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Request, type RequestHandler } from "express";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
import type Provider from "oidc-provider";
import type { Logger } from "pino";
import { z } from "zod";
import type { Db } from "../../db";
import type { Clock } from "../../runtime/clock";
import { jsonBodiesOnly, JSON_ONLY_MESSAGE } from "../json-only";
import { createSqlAdapterFactory, sweepExpiredModels } from "./adapter";
import { maxJwtLifetimeMs, type IamConfig } from "./config";
import { IamApiError, iamErrorHandler } from "./errors";
import { createInteractionRouter } from "./interactions";
import { createIamKeys, type IamKeys } from "./keys";
import { createOtpService, createSandboxOutbox, type OtpSender, type OtpService } from "./otp";
import { createProvider, IAM_ROUTES, type ProviderDeps } from "./provider";
import { createSandboxKeys, createSandboxRouter, type SandboxKeys } from "./sandbox";
import { createUserStore, phoneSchema, type UserStore } from "./users";

export interface IamDeps {
  config: IamConfig;
  db: Db;
  clock: Clock;
  logger: Logger;
  /** 32 bytes hex sealing the signing keys and secrets at rest (the API-key encryption key) */
  encryptionKeyHex: string;
  /** production: the SMS gateway (none: POST /api/otp answers 503); sandbox: the outbox when omitted */
  otpSender?: OtpSender;
  host: string;
  /** 0: a free port */
  port: number;
}

export interface IamHandle {
  /** the base URL (the issuer, when config.issuer names this listener) */
  readonly url: string;
  readonly keys: IamKeys;
  readonly users: UserStore;
  readonly otp: OtpService;
  /** a new signing key now; returns its kid */
  rotateSigningKey(): Promise<string>;
  /** the hourly maintenance, on demand: expired keys dropped, an old key rotated, expired rows swept */
  maintain(): Promise<void>;
  close(): Promise<void>;
}

type SandboxOutbox = ReturnType<typeof createSandboxOutbox>;

const otpBody = z.object({ phone: phoneSchema }).strict();

const iso = (ms: number) => new Date(ms).toISOString();

export async function startIam(deps: IamDeps): Promise<IamHandle> {
  const { config, db, logger } = deps;
  const ctx = await createServices(deps);
  const { keys, users, otp, providers } = ctx;
  const server = http.createServer(buildApp(ctx));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(deps.port, deps.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${deps.host}:${port}`;

  async function maintain(): Promise<void> {
    if (await keys.maintain(config.keyRotationMs)) await providers.rebuild();
    await sweepExpiredModels(db);
  }
  const timer = setInterval(() => maintain().catch((err) => logger.error({ err }, "IAM maintenance failed")), 3600_000);
  timer.unref();

  return {
    url,
    keys,
    users,
    otp,
    async rotateSigningKey() {
      const kid = await keys.rotate();
      await providers.rebuild();
      return kid;
    },
    maintain,
    async close() {
      clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The services the HTTP app is built over. */
interface IamContext {
  config: IamConfig;
  logger: Logger;
  keys: IamKeys;
  users: UserStore;
  otp: OtpService;
  /** the sandbox's outbox and the keys that read it: both null in production or with a real gateway */
  sandbox: { outbox: SandboxOutbox; keys: SandboxKeys } | null;
  providers: ProviderSlot;
}

async function createServices(deps: IamDeps): Promise<IamContext> {
  const { config, db, clock, logger } = deps;
  const keys = createIamKeys({
    db,
    clock,
    encryptionKeyHex: deps.encryptionKeyHex,
    retainMs: maxJwtLifetimeMs(config.tokens),
  });
  await keys.maintain(config.keyRotationMs);
  const users = createUserStore(db, clock);
  const outbox = config.mode === "sandbox" ? createSandboxOutbox(db, clock) : null;
  const otp = createOtpService({
    db,
    clock,
    limits: config.limits,
    pepperHex: await keys.secret("otp-pepper"),
    sender: deps.otpSender ?? outbox,
  });
  // codes that land in the outbox are read with the phone's sandbox key
  const sandbox = outbox && !deps.otpSender ? { outbox, keys: createSandboxKeys(db, clock) } : null;
  const cookieKeys = [await keys.secret("cookie-key")];
  const providers = new ProviderSlot(
    { config, cookieKeys, adapter: createSqlAdapterFactory(db), users, otp },
    keys,
    logger,
  );
  await providers.rebuild();
  return { config, logger, keys, users, otp, sandbox, providers };
}

/** The current oidc-provider, rebuilt over the same SQL adapter when the signing keys change. */
class ProviderSlot {
  provider!: Provider;
  handler!: ReturnType<Provider["callback"]>;

  constructor(
    private readonly deps: Omit<ProviderDeps, "jwks">,
    private readonly keys: IamKeys,
    private readonly logger: Logger,
  ) {}

  async rebuild(): Promise<void> {
    const next = createProvider({ ...this.deps, jwks: await this.keys.privateJwks() });
    next.on("server_error", (_ctx, err) => this.logger.error({ err }, "oidc-provider server error"));
    this.handler = next.callback();
    this.provider = next;
  }
}

type PerIp = (name: string, limit: number, extra: Partial<Parameters<typeof rateLimit>[0]>) => RequestHandler;

function buildApp(ctx: IamContext): express.Express {
  const { config, providers } = ctx;
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.trustProxy as boolean | number | string | string[]);
  const clientIp = (req: Request) => ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? "unknown");
  const perIp: PerIp = (name, limit, extra) =>
    rateLimit({
      windowMs: config.limits.ipWindowMs,
      limit,
      legacyHeaders: true,
      standardHeaders: false,
      keyGenerator: (req) => `${name}:${clientIp(req)}`,
      validate: { keyGeneratorIpFallback: false },
      ...extra,
    });
  mountJsonEndpoints(app, ctx, perIp);

  // ---- the code flow's login and consent pages
  const failedLogins = perIp("failed-login", config.limits.failedLoginsPerIp, {
    skipSuccessfulRequests: true,
    handler: (_req, res) => {
      res
        .status(429)
        .json({ error: "rate_limit_exceeded", error_description: "too many failed logins from this address" });
    },
  });
  app.use("/interaction/:uid/login", failedLogins);
  app.use(createInteractionRouter({ provider: () => providers.provider, otp: ctx.otp, users: ctx.users }));

  // ---- the token endpoint: failed logins per IP, then oidc-provider
  app.post(IAM_ROUTES.token, failedLogins);
  app.use(iamErrorHandler(ctx.logger));
  // everything else is oidc-provider's (it reads its own bodies)
  app.use((req, res) => providers.handler(req, res));
  return app;
}

/** The one-time code and the sandbox endpoints: JSON, the spec's error body. */
function mountJsonEndpoints(app: express.Express, ctx: IamContext, perIp: PerIp): void {
  const { config, otp, sandbox } = ctx;
  const json = [
    jsonBodiesOnly((ct) => new IamApiError("UNSUPPORTED_MEDIA_TYPE", JSON_ONLY_MESSAGE, { content_type: ct })),
    express.json({ limit: config.bodyLimitBytes, strict: true }),
  ];
  const otpLimiter = perIp("otp", config.limits.otpRequestsPerIp, {
    handler: (_req, res, next) =>
      next(
        new IamApiError("RATE_LIMIT_EXCEEDED", "too many code requests from this address", {
          retry_after: Number(res.getHeader("Retry-After") ?? 1),
        }),
      ),
  });
  app.post("/api/otp", otpLimiter, ...json, async (req, res) => {
    const { phone } = otpBody.parse(req.body ?? {});
    const { expiresAtMs } = await otp.request(phone);
    const sandboxPhoneKey = (await sandbox?.keys.claimPhone(phone)) ?? undefined;
    res.json({
      data: {
        phone,
        expiresAt: iso(expiresAtMs),
        expiresIn: Math.round(config.limits.otpTtlMs / 1000),
        ...(sandboxPhoneKey ? { sandboxPhoneKey } : {}),
      },
      message: sandboxPhoneKey ? "code sent; this phone's sandbox key is shown once: the outbox needs it" : "code sent",
    });
  });

  const router = express.Router();
  router.use((_req, _res, next) => next(sandbox ? undefined : new IamApiError("ROUTE_NOT_FOUND", "not found")));
  if (sandbox) router.use(createSandboxRouter({ keys: sandbox.keys, outbox: sandbox.outbox, users: ctx.users, json }));
  router.use((_req, _res, next) => next(new IamApiError("ROUTE_NOT_FOUND", "not found")));
  app.use("/api/sandbox", router);
}
