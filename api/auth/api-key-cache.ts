// The API key store's memory (api-keys.ts): looked-up keys (with their decrypted secret) and agent accounts,
// each kept for the cache's TTL, and one lookup per key at a time. When a cached entry expires under load,
// every order of that key in flight waits for the same lookup instead of each sending its own. `epoch` moves
// on at every forget(): a lookup started before a change (revocation, approval) answers its own callers but is
// not remembered.
import type { AgentAccount } from "../../pipeline/service";
import type { Clock } from "../../runtime/clock";

type Timed<V> = Map<string, { value: V; until: number }>;

export class ApiKeyCache<K> {
  /** moves on at every forget() */
  epoch = 0;
  readonly byApiKey: Timed<K> = new Map();
  readonly agents: Timed<AgentAccount | null> = new Map();
  readonly pendingKeys = new Map<string, Promise<K | null>>();
  readonly pendingAgents = new Map<string, Promise<AgentAccount | null>>();
  /** The agent account of a key by id, with the ciphertext it came from (the same bytes open to the same key),
   *  so that a cache refresh does not derive the account again (privateKeyToAccount: ~1 ms of pure JS).
   *  Dropped by forget(), as the cache entry is: a revoked key's agent does not stay in memory. */
  readonly agentAccounts = new Map<string, { sealed: string; account: AgentAccount }>();

  constructor(
    private readonly ttlMs: number,
    private readonly clock: Pick<Clock, "now">,
    /** the key id of a cached key */
    private readonly idOf: (value: K) => string,
  ) {}

  /** Drops everything known of key `id`. */
  forget(id: string): void {
    this.epoch++;
    this.agents.delete(id);
    this.agentAccounts.delete(id);
    this.pendingAgents.delete(id);
    for (const [k, v] of this.byApiKey) if (this.idOf(v.value) === id) this.byApiKey.delete(k);
    this.pendingKeys.clear();
  }

  /** `lookup` once per `k` at a time; its answer remembered unless forget() ran meanwhile */
  singleFlight<V>(pending: Map<string, Promise<V>>, k: string, lookup: () => Promise<V>, keep: (value: V) => void) {
    const running = pending.get(k);
    if (running) return running;
    const started = this.epoch;
    const p = lookup().then(
      (value) => {
        if (pending.get(k) === p) pending.delete(k);
        if (this.epoch === started) keep(value);
        return value;
      },
      (err: unknown) => {
        if (pending.get(k) === p) pending.delete(k);
        throw err;
      },
    );
    pending.set(k, p);
    return p;
  }

  /** The remembered answer for `k`, else `lookup` (single flight) with an answer that is not null remembered. */
  async through<V>(hits: Timed<V>, pending: Map<string, Promise<V>>, k: string, lookup: () => Promise<V>): Promise<V> {
    const hit = this.cached(hits, k);
    if (hit) return hit.value;
    return this.singleFlight(pending, k, lookup, (value) => value && this.remember(hits, k, value));
  }

  cached<V>(m: Timed<V>, k: string): { value: V } | undefined {
    const hit = m.get(k);
    if (hit && hit.until > this.clock.now()) return hit;
    if (hit) m.delete(k);
    return undefined;
  }

  remember<V>(m: Timed<V>, k: string, value: V): V {
    if (this.ttlMs > 0) {
      if (m.size > 10_000) m.clear();
      m.set(k, { value, until: this.clock.now() + this.ttlMs });
    }
    return value;
  }

  /** Keeps the agent account derived from `sealed` (unless forget() ran since `started`). */
  keepAgentAccount(id: string, sealed: string, account: AgentAccount, started: number): void {
    if (this.epoch !== started) return;
    if (this.agentAccounts.size >= 10_000) this.agentAccounts.clear();
    this.agentAccounts.set(id, { sealed, account });
  }
}
