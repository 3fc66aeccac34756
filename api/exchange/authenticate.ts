// The exchange API's two headers (spec 5.1): `Authorization: Bearer <identity token>` and
// `tenant-authorization: <tenant token>` (a `Bearer ` prefix is accepted too). requireIdentity checks the
// first (for POST /v1/auth/tenant-token); requireTenant checks both, binds them to each other, finds (or on
// the first call creates) the caller's account and sets res.locals.principal.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { AccountRecord, AccountStore, KycStatus, OrgScope } from "./accounts";
import { unauthorized } from "./errors";
import type { IdentityClaims, IdentityVerifier } from "./identity-tokens";
import type { TenantTokens } from "./tenant-tokens";

/** What an authenticated handler (X5's custody and funding routes too) reads from res.locals.principal. */
export interface Principal {
  userId: string;
  orgId: string;
  accountId: string;
  phone: string;
  /** the identity token's issuer: with orgId, the scope of every query */
  issuer: string;
}

/** The custody the exchange API needs (api/exchange/custody's createCustody satisfies it). */
export interface AccountCustody {
  /** creates the account's on-chain address (and in the sandbox preloads test funds); idempotent */
  ensureAccount(accountId: string): Promise<unknown>;
  /** `address`: the account's own address in Settlement; cash = its demo USD there (the chain's figure) */
  balances(accountId: string): Promise<{ address: string; cashUnits: bigint; availableCashUnits: bigint }>;
}

export interface AuthDeps {
  identity: IdentityVerifier;
  tenants: TenantTokens;
  accounts: AccountStore;
  custody: AccountCustody;
  /** KYC status of a new account (sandbox: approved; production: not_started) */
  initialKyc: KycStatus;
  /** per-user rate limit, run once the identity token verified */
  userLimit?: RequestHandler;
}

function headerToken(value: string | string[] | undefined, bearerRequired: boolean, header: string): string {
  if (value === undefined || value === "") throw unauthorized(`missing_${header}`, `the ${header} header is required`);
  if (Array.isArray(value)) throw unauthorized(`malformed_${header}`);
  const m = /^Bearer +(\S+)$/i.exec(value.trim());
  if (m) return m[1];
  if (bearerRequired || /\s/.test(value.trim())) throw unauthorized(`malformed_${header}`, `${header}: Bearer <token>`);
  return value.trim();
}

export const identityOf = (res: Response): IdentityClaims => res.locals.identity as IdentityClaims;
export const principalOf = (res: Response): Principal => res.locals.principal as Principal;
export const accountOf = (res: Response): AccountRecord => res.locals.account as AccountRecord;
export const scopeOf = (res: Response): OrgScope => {
  const p = principalOf(res);
  return { issuer: p.issuer, orgId: p.orgId };
};

function runLimit(limit: RequestHandler | undefined, req: Request, res: Response): Promise<void> {
  if (!limit) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const r = limit(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
    if (r && typeof (r as Promise<void>).catch === "function") (r as Promise<void>).catch(reject);
  });
}

/** The identity token alone: sets res.locals.identity. */
export function requireIdentity(deps: Pick<AuthDeps, "identity" | "userLimit">): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const identity = await deps.identity.verify(headerToken(req.headers.authorization, true, "authorization"));
    res.locals.identity = identity;
    await runLimit(deps.userLimit, req, res);
    next();
  };
}

/** Both tokens, bound to each other: sets res.locals.identity, .account and .principal. */
export function requireTenant(deps: AuthDeps): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    // once per request: several routers mounted behind this check (app.ts) must not verify and count it again
    if (res.locals.principal) return next();
    const identity = await deps.identity.verify(headerToken(req.headers.authorization, true, "authorization"));
    res.locals.identity = identity;
    await runLimit(deps.userLimit, req, res);
    await deps.tenants.verify(
      headerToken(req.headers["tenant-authorization"], false, "tenant-authorization"),
      identity,
    );
    let account = await deps.accounts.ensure(identity, deps.initialKyc);
    if (!account.custodyReady) {
      await deps.custody.ensureAccount(account.id);
      await deps.accounts.markCustodyReady(account.id);
      account = { ...account, custodyReady: true };
    }
    res.locals.account = account;
    res.locals.principal = {
      userId: identity.sub,
      orgId: identity.owner,
      accountId: account.id,
      phone: identity.phone ?? account.phone ?? "",
      issuer: identity.issuer,
    } satisfies Principal;
    next();
  };
}
