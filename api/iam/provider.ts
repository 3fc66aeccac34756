// The OpenID provider: oidc-provider configured for the exchange. Endpoints (also in discovery):
// authorization /api/login/oauth/authorize, token /api/login/oauth/access_token (spec 4.A), JWKS
// /.well-known/jwks.json, userinfo /api/userinfo, revocation /api/login/oauth/revoke. Access tokens for the
// exchange API are JWTs (the resource server of `config.resource`, audience `config.audience`) with the
// user's organization as `owner` and their `phone`; 2 hours from the password grant, 1 hour from the code
// flow (spec 8). The code flow needs PKCE (S256); refresh tokens rotate on every use and a reused one
// revokes its whole grant (oidc-provider's refresh_token grant does this when rotation is on).
import Provider, { errors, type Account, type Configuration, type ResourceServer } from "oidc-provider";
import type { JWK } from "jose";
import type { Adapter } from "oidc-provider";
import type { IamConfig } from "./config";
import { SIGNING_ALG } from "./keys";
import type { OtpService } from "./otp";
import { registerPasswordGrant } from "./password-grant";
import type { IamUser, UserStore } from "./users";

export const IAM_ROUTES = {
  authorization: "/api/login/oauth/authorize",
  token: "/api/login/oauth/access_token",
  jwks: "/.well-known/jwks.json",
  userinfo: "/api/userinfo",
  revocation: "/api/login/oauth/revoke",
  end_session: "/api/logout",
} as const;

/** the path of the sandbox login / consent pages of one interaction */
export const interactionPath = (uid: string) => `/interaction/${uid}`;

export interface ProviderDeps {
  config: IamConfig;
  /** private JWKs, the signing key first */
  jwks: JWK[];
  cookieKeys: string[];
  adapter: (name: string) => Adapter;
  users: UserStore;
  otp: OtpService;
}

export function accountOf(user: IamUser): Account {
  return {
    accountId: user.id,
    claims: () => ({
      sub: user.id,
      owner: user.organizationId,
      name: user.name,
      phone_number: user.phone,
      phone_number_verified: true,
    }),
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function createProvider(d: ProviderDeps): Provider {
  const { config } = d;
  const resourceServer: ResourceServer = {
    audience: config.audience,
    scope: "trading",
    accessTokenFormat: "jwt",
    jwt: { sign: { alg: SIGNING_ALG } },
  };
  const configuration: Configuration = {
    ...STATIC_CONFIGURATION,
    adapter: d.adapter,
    clients: clientsOf(config),
    jwks: { keys: d.jwks },
    cookies: { keys: d.cookieKeys },
    ...accountHooks(d.users),
    features: featuresOf(config, resourceServer),
    ttl: ttlOf(config),
  };
  const provider = new Provider(config.issuer, configuration);
  // X-Forwarded-Host / -Proto are believed from every hop or none (koa has no per-address rule): only when
  // every hop is trusted; the client address (the per-IP limits) is Express's, under config.trustProxy
  provider.proxy = config.trustProxy === true;
  reportGrantedScopes(provider);
  registerPasswordGrant(provider, { config, otp: d.otp, users: d.users, resourceServer, accountOf });
  return provider;
}

/** What does not depend on the deployment: claims, scopes, token format, PKCE, routes, algorithms. */
const STATIC_CONFIGURATION: Configuration = {
  claims: {
    openid: ["sub", "owner"],
    profile: ["name"],
    phone: ["phone_number", "phone_number_verified"],
    email: ["email", "email_verified"],
  },
  scopes: ["openid", "offline_access", "profile", "email", "phone", "trading"],
  formats: {
    customizers: {
      // nbf = iat: the token is valid from its issue, which verifiers may check
      jwt(_ctx, _token, jwt) {
        jwt.payload.nbf = jwt.payload.iat;
      },
    },
  },
  rotateRefreshToken: true,
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
  pkce: { required: () => true },
  conformIdTokenClaims: false,
  interactions: { url: (_ctx, interaction) => interactionPath(interaction.uid) },
  routes: IAM_ROUTES,
  enabledJWA: { idTokenSigningAlgValues: [SIGNING_ALG], userinfoSigningAlgValues: [SIGNING_ALG] },
  clientDefaults: {
    id_token_signed_response_alg: SIGNING_ALG,
    grant_types: ["authorization_code"],
    response_types: ["code"],
  },
  async renderError(ctx, out) {
    ctx.type = "html";
    ctx.body = `<!doctype html><meta charset="utf-8"><title>Error</title><h1>${escapeHtml(String(out.error))}</h1><p>${escapeHtml(String(out.error_description ?? ""))}</p>`;
  },
};

/** Public clients: the password grant and/or the code flow with refresh tokens. */
function clientsOf(config: IamConfig): Configuration["clients"] {
  return config.clients.map((c) => ({
    client_id: c.clientId,
    token_endpoint_auth_method: "none",
    grant_types: [
      ...(c.passwordGrant ? ["password"] : []),
      ...(c.codeFlow ? ["authorization_code", "refresh_token"] : []),
    ],
    response_types: c.codeFlow ? ["code"] : [],
    redirect_uris: c.codeFlow ? c.redirectUris : [],
    id_token_signed_response_alg: SIGNING_ALG,
  }));
}

/** The account behind a subject, and the organization and phone every access token carries. */
function accountHooks(users: UserStore): Pick<Configuration, "findAccount" | "extraTokenClaims"> {
  return {
    async findAccount(_ctx, sub) {
      const user = await users.findById(sub);
      return user ? accountOf(user) : undefined;
    },
    async extraTokenClaims(_ctx, token) {
      const accountId = "accountId" in token ? token.accountId : undefined;
      if (!accountId) return undefined;
      const user = await users.findById(accountId);
      return user ? { owner: user.organizationId, phone: user.phone } : undefined;
    },
  };
}

function featuresOf(config: IamConfig, resourceServer: ResourceServer): Configuration["features"] {
  return {
    devInteractions: { enabled: false },
    revocation: { enabled: true },
    userinfo: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => config.resource,
      useGrantedResource: () => true,
      getResourceServerInfo(_ctx, indicator) {
        if (indicator !== config.resource) throw new errors.InvalidTarget();
        return resourceServer;
      },
    },
  };
}

function ttlOf(config: IamConfig): Configuration["ttl"] {
  return {
    AccessToken: (_ctx, token) =>
      token.gty?.split(" ")[0] === "password" ? config.tokens.passwordAccessTokenS : config.tokens.codeFlowAccessTokenS,
    IdToken: config.tokens.idTokenS,
    RefreshToken: config.tokens.refreshTokenS,
    AuthorizationCode: config.tokens.authorizationCodeS,
    Grant: config.tokens.refreshTokenS,
    Session: config.tokens.sessionS,
    Interaction: config.tokens.interactionS,
  };
}

/** The token response's `scope` names every scope granted (RFC 6749 5.1), not only the access token's resource
 *  scope: oidc-provider answers the resource server's ("trading") alone, though the code or refresh token also
 *  carries the OIDC scopes it was granted ("openid" with an id_token). */
function reportGrantedScopes(provider: Provider): void {
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route !== "token" || ctx.status !== 200) return;
    const body = ctx.body as { scope?: unknown } | undefined;
    if (!body || typeof body.scope !== "string") return;
    const e = ctx.oidc.entities as { AuthorizationCode?: { scope?: string }; RefreshToken?: { scope?: string } };
    const granted = (e.AuthorizationCode?.scope ?? e.RefreshToken?.scope ?? "").split(" ");
    body.scope = [...new Set([...granted, ...body.scope.split(" ")])].filter(Boolean).join(" ");
  });
}
