// The password grant of spec 4.A / 5.1 step 1 (username = a phone number, password = a one-time code),
// registered with oidc-provider's `registerGrantType`, the way its documentation adds a grant. The tokens
// are the provider's own models (Grant, AccessToken in the JWT format of the exchange API's resource
// server, IdToken), so signing, the JWKS, the claims and the response shape stay the library's. The
// provider has already authenticated the client (a public client: client_id only) and checked that it
// may use this grant. Failures answer the OAuth error body (RFC 6749 5.2): invalid_request for a
// malformed phone or code, invalid_grant for a wrong, expired or used code, and 429 rate_limit_exceeded
// (with Retry-After) while the phone is locked.
import Provider, { errors, type Account, type ResourceServer, type TokenEndpointGrantContext } from "oidc-provider";
import type { IamConfig } from "./config";
import type { OtpService } from "./otp";
import { phoneSchema, type IamUser, type UserStore } from "./users";

export const PASSWORD_GRANT = "password";
/** what the password grant may ask for (spec 4.A: openid profile email phone); the default when omitted */
export const PASSWORD_GRANT_SCOPES = ["openid", "profile", "email", "phone"] as const;
const ALLOWED = new Set<string>([...PASSWORD_GRANT_SCOPES, "trading"]);

export function lockedOutError(retryAfterS: number): errors.CustomOIDCProviderError {
  const e = new errors.CustomOIDCProviderError(
    "rate_limit_exceeded",
    `too many wrong codes: this phone is locked, retry after ${retryAfterS} s`,
  );
  Object.assign(e, { status: 429, statusCode: 429 });
  return e;
}

export function registerPasswordGrant(
  provider: Provider,
  deps: {
    config: IamConfig;
    otp: OtpService;
    users: UserStore;
    resourceServer: ResourceServer;
    accountOf: (user: IamUser) => Account;
  },
): void {
  const { config, otp, users } = deps;
  async function handler(ctx: TokenEndpointGrantContext): Promise<void> {
    const params = ctx.oidc.params as Record<string, unknown>;
    const username = typeof params.username === "string" ? params.username : undefined;
    const password = typeof params.password === "string" ? params.password : undefined;
    if (!username) throw new errors.InvalidRequest("missing required parameter 'username' (a phone number)");
    if (!password) throw new errors.InvalidRequest("missing required parameter 'password' (the one-time code)");
    if (!phoneSchema.safeParse(username).success)
      throw new errors.InvalidRequest("username must be a phone number in E.164 form, e.g. +14155550123");
    if (!new RegExp(`^\\d{${config.limits.otpDigits}}$`).test(password)) {
      throw new errors.InvalidRequest(`password must be the ${config.limits.otpDigits}-digit one-time code`);
    }
    const requested =
      typeof params.scope === "string" && params.scope.trim() !== ""
        ? params.scope.trim().split(/\s+/)
        : [...PASSWORD_GRANT_SCOPES];
    const unknown = requested.filter((s) => !ALLOWED.has(s));
    if (unknown.length > 0)
      throw new errors.InvalidScope(`scope not allowed for this grant: ${unknown.join(" ")}`, unknown.join(" "));
    const scope = [...new Set(requested)].join(" ");

    const verdict = await otp.verify(username, password);
    if (!verdict.ok) {
      if (verdict.reason === "locked") {
        ctx.set("Retry-After", String(verdict.retryAfterS));
        throw lockedOutError(verdict.retryAfterS);
      }
      throw new errors.CustomOIDCProviderError(
        "invalid_grant",
        `wrong, expired or used one-time code (${verdict.attemptsLeft} attempts left before the phone is locked)`,
      );
    }
    const { user } = await users.loginByPhone(username);
    const client = ctx.oidc.client;
    const account = deps.accountOf(user);
    ctx.oidc.entity("Account", account);

    const grant = new provider.Grant({ accountId: user.id, clientId: client.clientId });
    const oidcScopes = requested.filter((s) => s !== "trading");
    if (oidcScopes.length > 0) grant.addOIDCScope(oidcScopes.join(" "));
    grant.addResourceScope(config.resource, scope);
    const grantId = await grant.save();
    ctx.oidc.entity("Grant", grant);

    const at = new provider.AccessToken({ accountId: user.id, client, grantId, gty: PASSWORD_GRANT, scope });
    at.resourceServer = new provider.ResourceServer(config.resource, deps.resourceServer);
    ctx.oidc.entity("AccessToken", at);
    const accessToken = await at.save();

    let idToken: string | undefined;
    if (requested.includes("openid")) {
      const claims = await account.claims("id_token", scope, {}, []);
      const token = new provider.IdToken({ ...claims }, { ctx });
      // the claims the id_token may carry: those of its OIDC scopes (IdToken reads `scope`, untyped)
      Object.assign(token, { scope: oidcScopes.join(" ") });
      idToken = await token.issue({ use: "idtoken" });
    }
    ctx.body = {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: at.expiration,
      scope,
      ...(idToken ? { id_token: idToken } : {}),
    };
  }
  provider.registerGrantType(PASSWORD_GRANT, handler, ["username", "password", "scope"]);
}
