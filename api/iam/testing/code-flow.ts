// The browser's side of the OIDC code flow, for tests: a cookie jar, redirects followed by hand, and the
// sandbox login (phone + one-time code from the outbox) and consent pages driven over HTTP.
import assert from "node:assert/strict";
import * as oidc from "openid-client";
import { requestCode, TEST_REDIRECT } from "./harness";

/** The browser's part: a cookie jar and redirects followed by hand. */
export class Browser {
  private jar = new Map<string, string>();
  private remember(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split("=")[1]) < Date.now());
      if (value === "" || expired) this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }
  private cookie() {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  async get(url: string): Promise<Response> {
    const res = await fetch(url, { headers: { cookie: this.cookie() }, redirect: "manual" });
    this.remember(res);
    return res;
  }
  async post(url: string, fields: Record<string, string>): Promise<Response> {
    const res = await fetch(url, {
      method: "POST",
      headers: { cookie: this.cookie(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
      redirect: "manual",
    });
    this.remember(res);
    return res;
  }
  /** follows 3xx while they stay on `origin`; returns the first response that is not a redirect there,
   *  or the URL of a redirect that leaves it (the client's redirect_uri) */
  async follow(res: Response, origin: string): Promise<{ res: Response; url: string }> {
    let url = res.url;
    while (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get("location")!, url).href;
      if (!url.startsWith(origin)) return { res, url };
      res = await this.get(url);
    }
    return { res, url };
  }
}

/** Runs the authorization request with PKCE up to the redirect back to the client (code in its query). */
export async function login(
  iamUrl: string,
  config: oidc.Configuration,
  o: { scope: string; phone: string; redirectUri?: string },
) {
  const redirectUri = o.redirectUri ?? TEST_REDIRECT;
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const authUrl = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: o.scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    state,
  });
  const browser = new Browser();
  let step = await browser.follow(await browser.get(authUrl.href), iamUrl);
  assert.equal(step.res.status, 200);
  assert.match(step.url, /\/interaction\/[^/]+$/);
  const loginPage = await step.res.text();
  assert.match(loginPage, /name="phone"/);
  const code = await requestCode(iamUrl, o.phone);
  step = await browser.follow(await browser.post(`${step.url}/login`, { phone: o.phone, code }), iamUrl);
  // the consent page of the scopes asked for
  assert.equal(step.res.status, 200);
  const consent = await step.res.text();
  assert.match(consent, /trading/);
  step = await browser.follow(await browser.post(`${step.url}/confirm`, {}), iamUrl);
  assert.ok(step.url.startsWith(redirectUri), step.url);
  return { callback: new URL(step.url), codeVerifier, state, browser };
}
