// Wallet sessions: the wallet approves a session key once (an API key with read and trade, whose agent the
// wallet approves on chain, as for any API key); from then on the page signs account reads, orders and
// cancels with the key's HMAC, so the wallet is not asked again. The session (the wallet chosen, the key and
// its secret, its expiry) is kept in this browser's localStorage so that a reload restores it; it ends at
// its expiry, on "End session" or on Disconnect, which revoke the key (the API refuses it from then on).
// docs/decisions/web.md records the choice.
import { ApiError, explain, signedRequest } from "./api";
import { createApprovedKey, type CreateSteps } from "./apikey-create";
import type { ConnectedWallet } from "./wallet";

export interface WebSession {
  keyId: string;
  apiKey: string;
  secret: string;
  owner: `0x${string}`;
  /** Unix seconds: the agent approval's expiry, after which the key no longer trades */
  expiresAt: number;
  /** the wallet to reconnect on reload: "dev:<n>", "dev:integrator" or "ext:<rdns>" */
  walletChoice: string;
}

const STORE = "dex.session.v1";
/** A session lasts a day (the service allows longer approvals; a browser-held key should not live long). */
export const SESSION_SECONDS = 24 * 3600;

export function loadSession(): WebSession | null {
  try {
    const s = JSON.parse(localStorage.getItem(STORE) ?? "null") as WebSession | null;
    return s && typeof s.apiKey === "string" && typeof s.secret === "string" ? s : null;
  } catch {
    return null;
  }
}

const save = (s: WebSession | null) =>
  s ? localStorage.setItem(STORE, JSON.stringify(s)) : localStorage.removeItem(STORE);

export const expired = (s: WebSession) => s.expiresAt * 1000 <= Date.now();

/** The wallet, its account requests signed by the session key (no prompt, so reads run by themselves). */
export function withSession(w: ConnectedWallet, s: WebSession): ConnectedWallet {
  return { ...w, autoSign: true, session: { apiKey: s.apiKey, apiSecret: s.secret } };
}

/** The wallet approves a session key (two signatures: the key's creation request and its agent approval). */
export async function startSession(w: ConnectedWallet, walletChoice: string, steps: CreateSteps): Promise<WebSession> {
  const k = await createApprovedKey(
    w,
    { label: "web session", permissions: ["read", "trade"] },
    steps,
    SESSION_SECONDS,
  );
  const s: WebSession = {
    keyId: k.id,
    apiKey: k.api_key,
    secret: k.api_secret,
    owner: w.address,
    expiresAt: Number(k.agent_approval.message.expiry),
    walletChoice,
  };
  save(s);
  return s;
}

/** Revokes the key with its own signature (no prompt) and forgets it; a key already gone is no error. */
export async function endSession(s: WebSession): Promise<string> {
  save(null);
  const bySession = {
    address: s.owner,
    signRaw: () => Promise.reject(new Error("a session request is never signed by the wallet")),
    session: { apiKey: s.apiKey, apiSecret: s.secret },
  };
  try {
    await signedRequest(bySession, "DELETE", `/v1/api-keys/${s.keyId}`);
    return "";
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 404)) return "";
    return `The session key could not be revoked (${explain(err)}): revoke it in the API keys panel.`;
  }
}
