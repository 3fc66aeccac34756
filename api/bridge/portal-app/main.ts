// The tenant portal's browser module (bundled by ../portal-bundle.ts with esbuild, served as /portal/app.js).
// The page (../portal.ts) is branded server-side; this module connects a wallet (EIP-6963 extensions found
// through mipd, and in the sandbox a development wallet holding the demo keys from /portal/config.json),
// shows the wallet's balances on both chains in decimals, starts a transfer (POST /api/v1/transfer/initiate),
// has the wallet sign and send the calls it returns (approve + deposit, or burn) through viem, signs the
// link message and completes the transfer, then follows it step by step (GET /api/v1/transfer/:id). The
// chains are read and written through the same origin's /portal/rpc/<chainId> (an allowlist of JSON-RPC
// methods). Every transfer's capability is kept in this browser's localStorage (the history).
import { createStore, type EIP6963ProviderDetail } from "mipd";
// viem's tree-shakable form (createClient + the actions used) keeps the bundle small
import {
  createClient,
  custom,
  defineChain,
  erc20Abi,
  http,
  type Address,
  type Chain,
  type Client,
  type Hex,
} from "viem";
import {
  addChain,
  getBlockNumber,
  getChainId,
  readContract,
  sendTransaction,
  signMessage,
  switchChain,
  waitForTransactionReceipt,
} from "viem/actions";
import { privateKeyToAccount } from "viem/accounts";
import { formatAmount, parseAmount } from "./amount";

interface TenantToken {
  symbol: string;
  address: Address;
  decimals: number;
  homeToken?: Address;
}
interface TenantChain {
  chainId: number;
  name: string;
  role: "home" | "remote";
  contracts: Record<string, Address>;
  tokens: TenantToken[];
}
interface Tenant {
  tenantId: string;
  name: string;
  mpcMode: string;
  chains: TenantChain[];
  signing: { threshold?: string };
}
interface PortalConfig {
  mode: "sandbox" | "production";
  devWalletKeys: Hex[];
  /** blocks on top of a deposit or burn before the relayer acts, per chain id */
  confirmations: Record<string, number>;
}
interface Call {
  step: string;
  chainId: number;
  to: Address;
  value: string;
  data: Hex;
}
interface TransferView {
  id: string;
  direction: "deposit" | "withdrawal";
  status: string;
  token: Address;
  amount: string;
  sender: Address;
  recipient: Address;
  signers: number[];
  readyAt: string | null;
  lastError: string | null;
  timestamps: Record<string, string | null>;
  txHashes: Record<string, string | null>;
}
interface HistoryEntry {
  id: string;
  accessToken: string;
  direction: "deposit" | "withdrawal";
  symbol: string;
  amount: string;
  decimals: number;
  sender: Address;
  recipient: Address;
  at: string;
  /** the page's own progress before the API knows the transaction */
  sent?: Record<string, Hex>;
  sourceBlock?: string;
  sourceChainId?: number;
}
interface Wallet {
  label: string;
  address: Address;
  send(call: Call): Promise<Hex>;
  signMessage(message: string): Promise<Hex>;
}
class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
const short = (h: string) => `${h.slice(0, 8)}…${h.slice(-6)}`;
const host = document.body.dataset.hostname ?? location.hostname;
const LINK_MESSAGE = (id: string, txHash: string) =>
  `Link bridge transfer ${id.toLowerCase()} to transaction ${txHash.toLowerCase()}`;
const TERMINAL = new Set(["minted", "released", "disputed", "failed"]);

let tenant: Tenant;
let config: PortalConfig;
let home: TenantChain;
let remote: TenantChain;
const chains = new Map<number, Chain>();
const readers = new Map<number, Client>();
let wallet: Wallet | undefined;
let balances = new Map<string, bigint>();
let followed: string | undefined;
let followTimer: number | undefined;
const extensions = new Map<string, EIP6963ProviderDetail>();

async function api<T>(path: string, init: RequestInit & { accessToken?: string } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (init.body) headers["content-type"] = "application/json";
  if (init.accessToken) headers["x-transfer-token"] = init.accessToken;
  let res: Response;
  try {
    res = await fetch(path, { ...init, headers });
  } catch {
    throw new ApiError("The bridge cannot be reached: check your connection and try again.", "NETWORK");
  }
  const body = (await res.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!res.ok || body.error)
    throw new ApiError(
      body.error?.message ?? `The bridge answered ${res.status}.`,
      body.error?.code ?? String(res.status),
    );
  return body as T;
}

function chainOf(c: TenantChain): Chain {
  return defineChain({
    id: c.chainId,
    name: c.name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [`${location.origin}/portal/rpc/${c.chainId}`] } },
  });
}
const reader = (chainId: number) => readers.get(chainId)!;

// ---------- wallets ----------

function developmentWallet(key: Hex, index: number): Wallet {
  const account = privateKeyToAccount(key);
  return {
    label: `Development wallet: demo trader ${index + 1}`,
    address: account.address,
    async send(call) {
      const chain = chains.get(call.chainId)!;
      const client = createClient({ account, chain, transport: http(chain.rpcUrls.default.http[0]) });
      return sendTransaction(client, { account, chain, to: call.to, data: call.data, value: BigInt(call.value) });
    },
    signMessage: (message) => account.signMessage({ message }),
  };
}

async function extensionWallet(detail: EIP6963ProviderDetail): Promise<Wallet> {
  const provider = detail.provider;
  const accounts = (await provider.request({ method: "eth_requestAccounts" })) as Address[];
  if (!accounts?.length) throw new Error(`${detail.info.name} shared no account.`);
  const address = accounts[0];
  const clientFor = (chain: Chain) => createClient({ account: address, chain, transport: custom(provider) });
  return {
    label: detail.info.name,
    address,
    async send(call) {
      const chain = chains.get(call.chainId)!;
      const client = clientFor(chain);
      if ((await getChainId(client)) !== chain.id) {
        try {
          await switchChain(client, { id: chain.id });
        } catch {
          try {
            await addChain(client, { chain });
          } catch {
            throw new Error(
              `Switch ${detail.info.name} to ${chain.name} (chain ${chain.id}, ${chain.rpcUrls.default.http[0]}) and try again.`,
            );
          }
        }
      }
      return sendTransaction(client, {
        account: address,
        chain,
        to: call.to,
        data: call.data,
        value: BigInt(call.value),
      });
    },
    signMessage: (message) => signMessage(clientFor(chains.get(home.chainId)!), { account: address, message }),
  };
}

function renderWalletChoices(): void {
  const select = $<HTMLSelectElement>("wallet-choice");
  const current = select.value;
  const options: string[] = [];
  config.devWalletKeys.forEach((key, i) =>
    options.push(
      `<option value="dev:${i}">Development wallet: demo trader ${i + 1} (${short(privateKeyToAccount(key).address)})</option>`,
    ),
  );
  for (const [uuid, d] of extensions) options.push(`<option value="ext:${esc(uuid)}">${esc(d.info.name)}</option>`);
  select.innerHTML = options.length
    ? options.join("")
    : `<option value="">No wallet found: install a browser wallet</option>`;
  if (current && [...select.options].some((o) => o.value === current)) select.value = current;
}

async function connect(): Promise<void> {
  const choice = $<HTMLSelectElement>("wallet-choice").value;
  const status = $("wallet-status");
  try {
    if (choice.startsWith("dev:")) {
      const i = Number(choice.slice(4));
      wallet = developmentWallet(config.devWalletKeys[i], i);
    } else if (choice.startsWith("ext:")) {
      const d = extensions.get(choice.slice(4));
      if (!d) throw new Error("That wallet is gone: choose another.");
      status.textContent = `Waiting for ${d.info.name}…`;
      wallet = await extensionWallet(d);
    } else throw new Error("No wallet to connect.");
  } catch (e) {
    wallet = undefined;
    status.textContent = `Not connected: ${e instanceof Error ? e.message : String(e)}`;
    return;
  }
  status.innerHTML = `Connected: ${esc(wallet.label)} <code id="wallet-address">${wallet.address}</code>`;
  const recipient = $<HTMLInputElement>("recipient");
  if (!recipient.value) recipient.value = wallet.address;
  $<HTMLButtonElement>("submit").disabled = false;
  await refreshBalances();
  renderHistory();
}

// ---------- balances ----------

const key = (chainId: number, token: string) => `${chainId}:${token.toLowerCase()}`;

async function refreshBalances(): Promise<void> {
  if (!wallet) return;
  const who = wallet.address;
  const rows: string[] = [];
  const next = new Map<string, bigint>();
  await Promise.all(
    [home, remote].flatMap((c) =>
      c.tokens.map(async (t) => {
        try {
          next.set(
            key(c.chainId, t.address),
            await readContract(reader(c.chainId), {
              address: t.address,
              abi: erc20Abi,
              functionName: "balanceOf",
              args: [who],
            }),
          );
        } catch {
          /* shown as unknown */
        }
      }),
    ),
  );
  balances = next;
  for (const t of home.tokens) {
    const w = remote.tokens.find((x) => x.homeToken?.toLowerCase() === t.address.toLowerCase());
    const h = next.get(key(home.chainId, t.address));
    const r = w ? next.get(key(remote.chainId, w.address)) : undefined;
    rows.push(
      `<tr><th scope="row">${esc(t.symbol)}</th><td data-balance="home-${esc(t.symbol)}">${h === undefined ? "–" : formatAmount(h, t.decimals)}</td><td data-balance="remote-${esc(t.symbol)}">${r === undefined ? "–" : formatAmount(r, t.decimals)}</td></tr>`,
    );
  }
  $("balances").innerHTML =
    `<caption class="sr">Balances of the connected wallet</caption><tr><th scope="col">Token</th><th scope="col">${esc(home.name)}</th><th scope="col">${esc(remote.name)} (wrapped)</th></tr>${rows.join("")}`;
  showAvailable();
}

/** The token the form moves, on the side it leaves from. */
function source(): { chain: TenantChain; token: TenantToken; home: TenantToken } {
  const direction = $<HTMLSelectElement>("direction").value;
  const h = home.tokens.find((t) => t.symbol === $<HTMLSelectElement>("token").value) ?? home.tokens[0];
  if (direction === "deposit") return { chain: home, token: h, home: h };
  const w = remote.tokens.find((x) => x.homeToken?.toLowerCase() === h.address.toLowerCase())!;
  return { chain: remote, token: w, home: h };
}

function showAvailable(): void {
  const s = source();
  const b = balances.get(key(s.chain.chainId, s.token.address));
  $("available").textContent = wallet
    ? `Available on ${s.chain.name}: ${b === undefined ? "unknown" : formatAmount(b, s.token.decimals)} ${s.home.symbol}`
    : "Connect a wallet to see your balance.";
}

// ---------- transfers ----------

const historyKey = () => `bridge-portal:${host}:${tenant.tenantId}`;
function loadHistory(): HistoryEntry[] {
  try {
    return JSON.parse(localStorage.getItem(historyKey()) ?? "[]") as HistoryEntry[];
  } catch {
    return [];
  }
}
function saveEntry(entry: HistoryEntry): void {
  const list = loadHistory().filter((e) => e.id !== entry.id);
  list.unshift(entry);
  try {
    localStorage.setItem(historyKey(), JSON.stringify(list.slice(0, 50)));
  } catch {
    /* private mode: the transfer still runs, it is just not remembered */
  }
}

function formError(message: string, field?: "amount" | "recipient"): void {
  const el = $("form-error");
  el.textContent = message;
  el.hidden = message === "";
  for (const id of ["amount", "recipient"])
    $<HTMLInputElement>(id).setAttribute("aria-invalid", id === field ? "true" : "false");
}

async function submit(e: Event): Promise<void> {
  e.preventDefault();
  formError("");
  if (!wallet) return formError("Connect a wallet first.");
  const s = source();
  const direction = $<HTMLSelectElement>("direction").value as "deposit" | "withdrawal";
  const checked = parseAmount(
    $<HTMLInputElement>("amount").value,
    s.token.decimals,
    s.home.symbol,
    balances.get(key(s.chain.chainId, s.token.address)),
  );
  if (!checked.ok) return formError(checked.error, "amount");
  const recipient = $<HTMLInputElement>("recipient").value.trim();
  if (!/^0x[0-9a-fA-F]{40}$/.test(recipient))
    return formError("The recipient is not an address: 0x followed by 40 hexadecimal digits.", "recipient");
  const button = $<HTMLButtonElement>("submit");
  button.disabled = true;
  const me = wallet;
  let entry: HistoryEntry | undefined;
  try {
    const started = await api<{ transfer: TransferView; calls: Call[]; accessToken: string }>(
      "/api/v1/transfer/initiate",
      {
        method: "POST",
        body: JSON.stringify({
          direction,
          token: s.home.symbol,
          amount: checked.baseUnits.toString(),
          sender: me.address,
          recipient,
        }),
      },
    );
    entry = {
      id: started.transfer.id,
      accessToken: started.accessToken,
      direction,
      symbol: s.home.symbol,
      amount: checked.baseUnits.toString(),
      decimals: s.token.decimals,
      sender: me.address,
      recipient: recipient as Address,
      at: new Date().toISOString(),
      sent: {},
    };
    saveEntry(entry);
    follow(entry.id, started.transfer);
    let last: { hash: Hex; chainId: number } | undefined;
    for (const call of started.calls) {
      setNote(`Confirm the ${call.step} in your wallet…`);
      const hash = await me.send(call);
      entry.sent![call.step] = hash;
      saveEntry(entry);
      renderFollowed();
      setNote(`Waiting for the ${call.step} transaction to be mined…`);
      const receipt = await waitForTransactionReceipt(reader(call.chainId), { hash, pollingInterval: 500 });
      if (receipt.status !== "success") throw new Error(`The ${call.step} transaction ${short(hash)} failed on chain.`);
      entry.sourceBlock = receipt.blockNumber.toString();
      entry.sourceChainId = call.chainId;
      saveEntry(entry);
      last = { hash, chainId: call.chainId };
    }
    if (!last) throw new Error("The bridge returned nothing to sign.");
    await linkTransfer(entry, me, last.hash);
    setNote("");
    $<HTMLInputElement>("amount").value = "";
  } catch (err) {
    const message =
      err instanceof Error ? ((err as { shortMessage?: string }).shortMessage ?? err.message) : String(err);
    formError(entry ? `The transfer stopped: ${message}` : message);
    setNote("");
  } finally {
    button.disabled = false;
    await refreshBalances();
    renderHistory();
  }
}

async function linkTransfer(entry: HistoryEntry, me: Wallet, txHash: Hex): Promise<void> {
  setNote("Sign the message that links the transaction to your transfer…");
  const signature = await me.signMessage(LINK_MESSAGE(entry.id, txHash));
  const view = await api<TransferView>(`/api/v1/transfer/${entry.id}/complete`, {
    method: "POST",
    accessToken: entry.accessToken,
    body: JSON.stringify({ txHash, signature }),
  });
  if (followed === entry.id) renderTimeline(entry, view);
}

function setNote(text: string): void {
  $("progress-note").textContent = text;
}

// ---------- the timeline ----------

interface Step {
  id: string;
  title: string;
  detail: string;
  state: "done" | "active" | "pending" | "failed";
}

const at = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleTimeString() : "");
const heads = new Map<number, bigint>();

function steps(entry: HistoryEntry, v: TransferView | undefined): Step[] {
  const deposit = entry.direction === "deposit";
  const src = deposit ? home : remote;
  const dst = deposit ? remote : home;
  const status = v?.status ?? "initiated";
  const linked = status !== "initiated";
  const ts = v?.timestamps ?? {};
  const sourceTx = (v?.txHashes[deposit ? "deposit" : "burn"] ?? entry.sent?.[deposit ? "deposit" : "burn"]) as
    | string
    | undefined;
  const need = config.confirmations[String(src.chainId)] ?? 0;
  const head = heads.get(src.chainId);
  const depth =
    entry.sourceBlock !== undefined && head !== undefined ? Number(head - BigInt(entry.sourceBlock)) : undefined;
  const acted = ["signed", "minted", "release_queued", "released", "disputed"].includes(status);
  const final = acted || (linked && depth !== undefined && depth >= need);
  const [k, n] = (tenant.signing.threshold ?? "").split("-of-").map(Number);
  const signedBy = v?.signers.length ?? 0;
  const signed = Boolean(ts.signedAt);
  const list: Omit<Step, "state">[] = [
    {
      id: "signed",
      title: "Signed in your wallet",
      detail: Object.entries(entry.sent ?? {})
        .map(([step, h]) => `${step} ${short(h)}`)
        .join(" · "),
    },
    {
      id: "seen",
      title: deposit ? `Deposit seen on ${src.name}` : `Burn seen on ${src.name}`,
      detail: linked ? `${sourceTx ? short(sourceTx) : ""} ${at(ts.depositedAt ?? ts.burnedAt)}` : "",
    },
    {
      id: "finality",
      title: "Finality",
      detail:
        need === 0
          ? `final once mined on ${src.name} (no confirmations needed)`
          : `${Math.max(0, Math.min(depth ?? 0, need))} of ${need} confirmations`,
    },
    {
      id: "signatures",
      title: tenant.mpcMode === "custody" ? "Approved by the custody provider" : "Threshold signatures",
      detail:
        tenant.mpcMode === "custody"
          ? signed
            ? `approved ${at(ts.signedAt)}`
            : ""
          : `${signed ? Math.max(signedBy, k || 0) : signedBy} of ${n || 5} signer nodes${k ? ` (${k} needed)` : ""}`,
    },
  ];
  if (deposit)
    list.push({
      id: "minted",
      title: `Minted on ${dst.name}`,
      detail: v?.txHashes.mint ? `${short(v.txHashes.mint)} ${at(ts.mintedAt)}` : "",
    });
  else {
    const ready = v?.readyAt ? new Date(v.readyAt) : undefined;
    const left = ready ? Math.max(0, Math.ceil((ready.getTime() - Date.now()) / 1000)) : undefined;
    list.push({
      id: "challenge",
      title: "Challenge window",
      detail:
        status === "disputed"
          ? "disputed by a guardian: not released"
          : ready
            ? left
              ? `open until ${ready.toLocaleTimeString()} (${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left)`
              : `closed at ${ready.toLocaleTimeString()}`
            : "",
    });
    list.push({
      id: "released",
      title: `Released on ${dst.name}`,
      detail: v?.txHashes.executeRelease ? `${short(v.txHashes.executeRelease)} ${at(ts.releasedAt)}` : "",
    });
  }
  const done: Record<string, boolean> = {
    signed: Boolean(sourceTx) && (linked || Boolean(entry.sent?.[deposit ? "deposit" : "burn"])),
    seen: linked,
    finality: final,
    signatures: signed,
    minted: status === "minted",
    challenge:
      status === "released" ||
      (status === "release_queued" && v?.readyAt !== null && new Date(v!.readyAt!).getTime() <= Date.now()),
    released: status === "released",
  };
  let activeGiven = false;
  return list.map((s) => {
    if (done[s.id] && !activeGiven) return { ...s, state: "done" };
    if (activeGiven) return { ...s, state: "pending" };
    activeGiven = true;
    return { ...s, state: status === "failed" || status === "disputed" ? "failed" : "active" };
  });
}

let followedView: TransferView | undefined;

const RANK: Record<string, number> = {
  initiated: 0,
  deposited: 1,
  burned: 1,
  signed: 2,
  release_queued: 3,
  minted: 4,
  released: 4,
  disputed: 4,
  failed: 4,
};

function renderTimeline(entry: HistoryEntry, view: TransferView | undefined): void {
  // never step back: an answer older than the one shown (a poll that crossed the link) is ignored
  const shown = followedView?.id === entry.id ? followedView : undefined;
  const v = shown && (!view || (RANK[view.status] ?? 0) < (RANK[shown.status] ?? 0)) ? shown : view;
  followedView = v;
  const list = steps(entry, v);
  const mark = { done: "✓", active: "…", pending: "", failed: "✕" };
  const words = { done: "done", active: "in progress", pending: "waiting", failed: "failed" };
  $("timeline").innerHTML = list
    .map(
      (s) =>
        `<li data-step="${s.id}" data-state="${s.state}"><span class="dot" aria-hidden="true">${mark[s.state]}</span><div><b>${esc(s.title)}</b> <span class="sr">(${words[s.state]})</span><br><small>${esc(s.detail.trim())}</small></div></li>`,
    )
    .join("");
  const amount = formatAmount(BigInt(entry.amount), entry.decimals);
  $("followed").innerHTML =
    `${entry.direction === "deposit" ? "Deposit" : "Withdrawal"} of ${amount} ${esc(entry.symbol)} to <code>${short(entry.recipient)}</code> · status <span class="badge" id="transfer-status">${esc(v?.status ?? "initiated")}</span>${v?.lastError && v.status === "failed" ? ` · ${esc(v.lastError)}` : ""}`;
  // the transaction went out but its link did not (the tab closed, the network dropped): finish it here
  const sentHash = entry.sent?.[entry.direction === "deposit" ? "deposit" : "burn"];
  $("finish").hidden = !(
    v?.status === "initiated" &&
    sentHash &&
    wallet &&
    wallet.address.toLowerCase() === entry.sender.toLowerCase()
  );
  const releasable =
    entry.direction === "withdrawal" &&
    v?.status === "release_queued" &&
    v.readyAt !== null &&
    new Date(v.readyAt).getTime() <= Date.now();
  $("release").hidden = !releasable;
}

function renderFollowed(): void {
  const entry = loadHistory().find((e) => e.id === followed);
  if (entry) renderTimeline(entry, followedView?.id === entry.id ? followedView : undefined);
}

let followGeneration = 0;

function follow(id: string, first?: TransferView): void {
  if (followed !== id) followedView = undefined;
  followed = id;
  const generation = ++followGeneration;
  window.clearTimeout(followTimer);
  const entry = loadHistory().find((e) => e.id === id);
  if (!entry) return;
  renderTimeline(entry, first);
  $("progress").scrollIntoView?.({ block: "nearest" });
  const tick = async () => {
    if (generation !== followGeneration) return;
    const current = loadHistory().find((e) => e.id === id) ?? entry;
    try {
      const v = await api<TransferView>(`/api/v1/transfer/${id}`, { accessToken: current.accessToken });
      const srcChain = current.direction === "deposit" ? home.chainId : remote.chainId;
      if (v.status !== "initiated" && !["signed", "minted", "released"].includes(v.status))
        heads.set(srcChain, await getBlockNumber(reader(srcChain), { cacheTime: 0 }));
      if (generation !== followGeneration) return;
      // the entry as it is now: the page may have recorded a sent transaction while this read was out, and a
      // render from the entry read before it would show "signed" as not done again (a step going back)
      renderTimeline(loadHistory().find((e) => e.id === id) ?? current, v);
      if (TERMINAL.has(v.status)) {
        await refreshBalances();
        renderHistory();
        return;
      }
    } catch (err) {
      setNote(err instanceof Error ? err.message : String(err));
    }
    if (generation === followGeneration) followTimer = window.setTimeout(tick, 1000);
  };
  followTimer = window.setTimeout(tick, first ? 300 : 0);
}

async function finish(): Promise<void> {
  const entry = loadHistory().find((e) => e.id === followed);
  const hash = entry?.sent?.[entry.direction === "deposit" ? "deposit" : "burn"];
  if (!entry || !hash || !wallet) return;
  const button = $<HTMLButtonElement>("finish");
  button.disabled = true;
  try {
    await linkTransfer(entry, wallet, hash);
    setNote("");
    if (followed === entry.id) follow(entry.id);
  } catch (err) {
    setNote(`Not linked yet: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    button.disabled = false;
  }
}

async function release(): Promise<void> {
  const entry = loadHistory().find((e) => e.id === followed);
  if (!entry) return;
  try {
    renderTimeline(
      entry,
      await api<TransferView>(`/api/v1/transfer/${entry.id}/complete`, {
        method: "POST",
        accessToken: entry.accessToken,
        body: "{}",
      }),
    );
  } catch (err) {
    setNote(err instanceof Error ? err.message : String(err));
  }
}

function renderHistory(): void {
  const mine = loadHistory().filter((e) => !wallet || e.sender.toLowerCase() === wallet.address.toLowerCase());
  const body = mine
    .map(
      (e) =>
        `<tr><td>${new Date(e.at).toLocaleString()}</td><td>${e.direction === "deposit" ? "Deposit" : "Withdrawal"}</td><td>${formatAmount(BigInt(e.amount), e.decimals)} ${esc(e.symbol)}</td><td><button type="button" class="link" data-follow="${esc(e.id)}" aria-label="Show progress of transfer ${esc(e.id)}">Show progress</button></td></tr>`,
    )
    .join("");
  $("history").innerHTML =
    `<caption class="sr">Your transfers on this portal</caption><tr><th scope="col">Started</th><th scope="col">Direction</th><th scope="col">Amount</th><th scope="col"></th></tr>${body || `<tr><td colspan="4">No transfers yet.</td></tr>`}`;
}

function renderChains(): void {
  $("chains").innerHTML = tenant.chains
    .map(
      (c) =>
        `<tr><th scope="row">${esc(c.name)} <small>(chain ${c.chainId}, ${c.role})</small></th><td>${Object.entries(
          c.contracts,
        )
          .map(([k, a]) => `${esc(k)} <code>${a}</code>`)
          .join("<br>")}</td></tr>`,
    )
    .join("");
}

async function main(): Promise<void> {
  try {
    [tenant, config] = await Promise.all([
      api<Tenant>(`/api/tenant?hostname=${encodeURIComponent(host)}`),
      api<PortalConfig>("/portal/config.json"),
    ]);
  } catch (err) {
    $("wallet-status").textContent =
      `The portal cannot load its configuration: ${err instanceof Error ? err.message : String(err)}`;
    return;
  }
  home = tenant.chains.find((c) => c.role === "home")!;
  remote = tenant.chains.find((c) => c.role === "remote")!;
  for (const c of [home, remote]) {
    const chain = chainOf(c);
    chains.set(c.chainId, chain);
    readers.set(c.chainId, createClient({ chain, transport: http(chain.rpcUrls.default.http[0]) }));
  }
  renderChains();
  $("token").innerHTML = home.tokens.map((t) => `<option value="${esc(t.symbol)}">${esc(t.symbol)}</option>`).join("");
  const store = createStore();
  const onProviders = (list: readonly EIP6963ProviderDetail[]) => {
    for (const d of list) extensions.set(d.info.uuid, d);
    renderWalletChoices();
  };
  onProviders(store.getProviders());
  store.subscribe(onProviders);
  $("connect").addEventListener("click", () => void connect());
  $("direction").addEventListener("change", showAvailable);
  $("token").addEventListener("change", showAvailable);
  $("transfer-form").addEventListener("submit", (e) => void submit(e));
  $("release").addEventListener("click", () => void release());
  $("finish").addEventListener("click", () => void finish());
  $("history").addEventListener("click", (e) => {
    const id = (e.target as HTMLElement).closest<HTMLElement>("[data-follow]")?.dataset.follow;
    if (id) follow(id);
  });
  showAvailable();
  renderHistory();
  $("wallet-status").textContent = "Not connected.";
  document.body.dataset.ready = "true";
}

void main();
