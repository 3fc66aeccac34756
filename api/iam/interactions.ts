// The code flow's sandbox login and consent pages (oidc-provider's interactions): a plain HTML form asks
// for the phone number and its one-time code (POST /api/otp sends one; in the sandbox it lands in the
// outbox), then a consent form grants the client the scopes it asked for. A test drives both over HTTP
// with the interaction cookie oidc-provider set. A wrong code re-renders the form with 400; a locked
// phone, 429; an unknown or finished interaction, oidc-provider's own error (SessionNotFound: 400).
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import type Provider from "oidc-provider";
import { z } from "zod";
import type { OtpService, OtpVerdict } from "./otp";
import { phoneSchema, type UserStore } from "./users";

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

function loginForm(uid: string, message?: string, phone = ""): string {
  return page(
    "Sign in",
    `${message ? `<p role="alert">${escapeHtml(message)}</p>` : ""}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label>Phone <input name="phone" value="${escapeHtml(phone)}" autocomplete="tel" required></label>
<label>Code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>
<button type="submit">Sign in</button></form>
<p>No code yet? POST {"phone": "..."} to /api/otp; in the sandbox it lands in /api/sandbox/outbox?phone=..., read with the phone's key (X-Sandbox-Phone-Key, answered by its first code request)</p>`,
  );
}

function consentForm(uid: string, clientId: string, scopes: string[]): string {
  return page(
    "Allow access",
    `<p>${escapeHtml(clientId)} asks for: ${scopes.map(escapeHtml).join(", ") || "sign-in only"}</p>
<form method="post" action="/interaction/${escapeHtml(uid)}/confirm"><button type="submit">Allow</button></form>
<form method="post" action="/interaction/${escapeHtml(uid)}/abort"><button type="submit">Deny</button></form>`,
  );
}

const loginBody = z.object({ phone: phoneSchema, code: z.string().regex(/^\d{4,10}$/, "the one-time code") });

export interface InteractionDeps {
  provider: () => Provider;
  otp: OtpService;
  users: UserStore;
  onFailedLogin?: (req: Request) => void;
}

type Handler = (deps: InteractionDeps, req: Request, res: Response) => Promise<void>;

export function createInteractionRouter(deps: InteractionDeps): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: "4kb", parameterLimit: 10 });
  const noStore = (_req: Request, res: Response, next: NextFunction) => {
    res.set("Cache-Control", "no-store");
    next();
  };
  const routes: [method: "get" | "post", path: string, handler: Handler, parseForm?: boolean][] = [
    ["get", "/interaction/:uid", showPrompt],
    ["post", "/interaction/:uid/login", login, true],
    ["post", "/interaction/:uid/confirm", confirm],
    ["post", "/interaction/:uid/abort", abort],
  ];
  for (const [method, path, handler, parseForm] of routes) {
    const run = (req: Request, res: Response) => handler(deps, req, res);
    if (parseForm) router[method](path, noStore, form, run);
    else router[method](path, noStore, run);
  }
  return router;
}

/** GET: the login form, or the consent form listing the scopes the client still lacks. */
async function showPrompt(deps: InteractionDeps, req: Request, res: Response): Promise<void> {
  const details = await deps.provider().interactionDetails(req, res);
  res.type("html");
  if (details.prompt.name === "login") {
    res.send(loginForm(details.uid));
    return;
  }
  const missing = [
    ...((details.prompt.details.missingOIDCScope as string[] | undefined) ?? []),
    ...Object.values(
      (details.prompt.details.missingResourceScopes as Record<string, string[]> | undefined) ?? {},
    ).flat(),
  ];
  res.send(consentForm(details.uid, String(details.params.client_id), [...new Set(missing)]));
}

async function login(deps: InteractionDeps, req: Request, res: Response): Promise<void> {
  const provider = deps.provider();
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name !== "login") {
    res.status(400).type("html").send(page("Sign in", "<p>this step is not a sign-in</p>"));
    return;
  }
  const parsed = loginBody.safeParse(req.body ?? {});
  if (!parsed.success) {
    res
      .status(400)
      .type("html")
      .send(loginForm(details.uid, parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")));
    return;
  }
  const { phone, code } = parsed.data;
  const verdict = await deps.otp.verify(phone, code);
  if (!verdict.ok) {
    deps.onFailedLogin?.(req);
    refuseLogin(res, details.uid, phone, verdict);
    return;
  }
  const { user } = await deps.users.loginByPhone(phone);
  await provider.interactionFinished(req, res, { login: { accountId: user.id } }, { mergeWithLastSubmission: false });
}

function refuseLogin(res: Response, uid: string, phone: string, verdict: Exclude<OtpVerdict, { ok: true }>): void {
  if (verdict.reason === "locked") {
    res
      .status(429)
      .set("Retry-After", String(verdict.retryAfterS))
      .type("html")
      .send(loginForm(uid, `too many wrong codes: this phone is locked, retry after ${verdict.retryAfterS} s`, phone));
  } else {
    res
      .status(400)
      .type("html")
      .send(loginForm(uid, `wrong, expired or used code (${verdict.attemptsLeft} attempts left)`, phone));
  }
}

/** POST confirm: grants the scopes and claims the prompt found missing. */
async function confirm(deps: InteractionDeps, req: Request, res: Response): Promise<void> {
  const provider = deps.provider();
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  if (prompt.name !== "consent" || !session?.accountId) {
    res.status(400).type("html").send(page("Allow access", "<p>this step is not a consent</p>"));
    return;
  }
  const grant = details.grantId
    ? ((await provider.Grant.find(details.grantId)) ??
      new provider.Grant({ accountId: session.accountId, clientId: String(params.client_id) }))
    : new provider.Grant({ accountId: session.accountId, clientId: String(params.client_id) });
  const d = prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(" "));
  if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(d.missingResourceScopes ?? {}))
    grant.addResourceScope(indicator, scopes.join(" "));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

async function abort(deps: InteractionDeps, req: Request, res: Response): Promise<void> {
  await deps
    .provider()
    .interactionFinished(
      req,
      res,
      { error: "access_denied", error_description: "the user denied access" },
      { mergeWithLastSubmission: false },
    );
}
