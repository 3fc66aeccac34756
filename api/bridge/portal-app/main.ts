// The tenant portal's browser module (bundled by ../portal-bundle.ts with esbuild, served as /portal/app.js).
// The page (../portal.ts) is branded server-side; this module connects a wallet (EIP-6963 extensions found
// through mipd, and in the sandbox a development wallet holding the demo keys from /portal/config.json),
// shows the wallet's balances on both chains in decimals, starts a transfer (POST /api/v1/transfer/initiate),
// has the wallet sign and send the calls it returns (approve + deposit, or burn) through viem, signs the
// link message and completes the transfer, then follows it step by step (GET /api/v1/transfer/:id). The
// chains are read and written through the same origin's /portal/rpc/<chainId> (an allowlist of JSON-RPC
// methods). The history is the server's list for the wallet (history.ts: one signed read), with each
// transfer this browser started kept in its localStorage with its capability.
import { createStore, type EIP6963ProviderDetail } from "mipd";
// viem's tree-shakable form (createClient + the actions used) keeps the bundle small
import { createClient, erc20Abi, http, type Address, type Chain, type Client, type Hex } from "viem";
import { getBlockNumber, readContract, waitForTransactionReceipt } from "viem/actions";
import { privateKeyToAccount } from "viem/accounts";
import { formatAmount, parseAmount } from "./amount";
import { api } from "./api";
import { chainOf, developmentWallet, extensionWallet } from "./wallets";
import { addressRef, esc, short, statusLabel } from "./format";
import { TransferHistory } from "./history";
import { transferLinkMessage } from "./messages";
import { RANK, steps } from "./timeline";
import type { Call, HistoryEntry, Portal, TenantChain, TenantToken, TransferView, Wallet } from "./types";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const host = document.body.dataset.hostname ?? location.hostname;
const TERMINAL = new Set(["minted", "released", "disputed", "failed"]);

let portal: Portal;
let home: TenantChain;
let remote: TenantChain;
let history: TransferHistory;
const chains = new Map<number, Chain>();
const readers = new Map<number, Client>();
let wallet: Wallet | undefined;
let balances = new Map<string, bigint>();
let followed: string | undefined;
let followTimer: number | undefined;
const extensions = new Map<string, EIP6963ProviderDetail>();

const reader = (chainId: number) => readers.get(chainId)!;

// ---------- wallets ----------

function renderWalletChoices(): void {
  const select = $<HTMLSelectElement>("wallet-choice");
  const current = select.value;
  const options: string[] = [];
  portal.config.devWalletKeys.forEach((key, i) =>
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
      wallet = developmentWallet(chains, portal.config.devWalletKeys[i], i);
    } else if (choice.startsWith("ext:")) {
      const d = extensions.get(choice.slice(4));
      if (!d) throw new Error("That wallet is gone: choose another.");
      status.textContent = `Waiting for ${d.info.name}…`;
      wallet = await extensionWallet(chains, home.chainId, d);
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
  renderHistory();
  await Promise.all([refreshBalances(), showServerHistory(wallet)]);
}

/** The wallet's transfers from the server: it signs a read once (kept until it expires), then the list loads. */
async function showServerHistory(me: Wallet): Promise<void> {
  const note = $("history-note");
  const retry = $<HTMLButtonElement>("history-sign");
  retry.hidden = true;
  note.textContent = "Sign the read request in your wallet to see your transfers from any browser…";
  try {
    await history.authorize(me);
    if (wallet !== me) return;
    await history.refresh((path, extraHeaders) => api(path, { extraHeaders }));
    note.textContent = "";
  } catch (err) {
    if (wallet !== me) return;
    note.textContent = `Only the transfers started in this browser are shown: ${err instanceof Error ? ((err as { shortMessage?: string }).shortMessage ?? err.message) : String(err)}`;
    retry.hidden = false;
  }
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
    history.save(entry);
    follow(entry.id, started.transfer);
    let last: { hash: Hex; chainId: number } | undefined;
    for (const call of started.calls) {
      setNote(`Confirm the ${call.step} in your wallet…`);
      const hash = await me.send(call);
      entry.sent![call.step] = hash;
      history.save(entry);
      renderFollowed();
      setNote(`Waiting for the ${call.step} transaction to be mined…`);
      const receipt = await waitForTransactionReceipt(reader(call.chainId), { hash, pollingInterval: 500 });
      if (receipt.status !== "success") throw new Error(`The ${call.step} transaction ${short(hash)} failed on chain.`);
      entry.sourceBlock = receipt.blockNumber.toString();
      entry.sourceChainId = call.chainId;
      history.save(entry);
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
  const signature = await me.signMessage(transferLinkMessage(entry.id, txHash));
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

const heads = new Map<number, bigint>();

let followedView: TransferView | undefined;

/** The API's view of transfer `id`: with its capability when this browser started it, else the signed read. */
const readTransfer = (entry: HistoryEntry) =>
  api<TransferView>(`/api/v1/transfer/${entry.id}`, {
    accessToken: entry.accessToken,
    extraHeaders: history.readHeaders(),
  });

function renderTimeline(entry: HistoryEntry, view: TransferView | undefined): void {
  // never step back: an answer older than the one shown (a poll that crossed the link) is ignored
  const shown = followedView?.id === entry.id ? followedView : undefined;
  const v = shown && (!view || (RANK[view.status] ?? 0) < (RANK[shown.status] ?? 0)) ? shown : view;
  followedView = v;
  const list = steps(portal, heads, entry, v);
  const mark = { done: "✓", active: "…", pending: "", failed: "✕" };
  const words = { done: "done", active: "in progress", pending: "waiting", failed: "failed" };
  $("timeline").innerHTML = list
    .map(
      (s) =>
        `<li data-step="${s.id}" data-state="${s.state}"><span class="dot" aria-hidden="true">${mark[s.state]}</span><div><b>${esc(s.title)}</b> <span class="sr">(${words[s.state]})</span><br><small>${s.detail.trim()}</small></div></li>`,
    )
    .join("");
  const amount = formatAmount(BigInt(entry.amount), entry.decimals);
  const status = v?.status ?? entry.status ?? "initiated";
  $("followed").innerHTML =
    `${entry.direction === "deposit" ? "Deposit" : "Withdrawal"} of ${amount} ${esc(entry.symbol)} to <code title="${esc(entry.recipient)}">${short(entry.recipient)}</code> · status <span class="badge" id="transfer-status" data-status="${esc(status)}">${esc(statusLabel(status))}</span>${v?.lastError && v.status === "failed" ? ` · ${esc(v.lastError)}` : ""}`;
  // the transaction went out but its link did not (the tab closed, the network dropped): finish it here
  // (linking and releasing need the capability, which only the browser that started the transfer holds)
  const sentHash = entry.sent?.[entry.direction === "deposit" ? "deposit" : "burn"];
  $("finish").hidden = !(
    v?.status === "initiated" &&
    sentHash &&
    entry.accessToken &&
    wallet &&
    wallet.address.toLowerCase() === entry.sender.toLowerCase()
  );
  const releasable =
    entry.direction === "withdrawal" &&
    entry.accessToken !== undefined &&
    v?.status === "release_queued" &&
    v.readyAt !== null &&
    new Date(v.readyAt).getTime() <= Date.now();
  $("release").hidden = !releasable;
}

function renderFollowed(): void {
  const entry = followed ? history.entry(followed) : undefined;
  if (entry) renderTimeline(entry, followedView?.id === entry.id ? followedView : undefined);
}

let followGeneration = 0;

function follow(id: string, first?: TransferView): void {
  if (followed !== id) followedView = undefined;
  followed = id;
  const generation = ++followGeneration;
  window.clearTimeout(followTimer);
  const entry = history.entry(id);
  if (!entry) return;
  renderTimeline(entry, first);
  $("progress").scrollIntoView?.({ block: "nearest" });
  const tick = async () => {
    if (generation !== followGeneration) return;
    const current = history.entry(id) ?? entry;
    try {
      const v = await readTransfer(current);
      const srcChain = current.direction === "deposit" ? home.chainId : remote.chainId;
      if (v.status !== "initiated" && !["signed", "minted", "released"].includes(v.status))
        heads.set(srcChain, await getBlockNumber(reader(srcChain), { cacheTime: 0 }));
      if (generation !== followGeneration) return;
      // the entry as it is now: the page may have recorded a sent transaction while this read was out, and a
      // render from the entry read before it would show "signed" as not done again (a step going back)
      renderTimeline(history.entry(id) ?? current, v);
      if (TERMINAL.has(v.status)) {
        await refreshBalances();
        if (wallet) await showServerHistory(wallet);
        else renderHistory();
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
  const entry = followed ? history.entry(followed) : undefined;
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
  const entry = followed ? history.entry(followed) : undefined;
  if (!entry?.accessToken) return;
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
  const body = history
    .forWallet(wallet?.address)
    .map(
      (e) =>
        `<tr data-transfer="${esc(e.id)}"><td>${new Date(e.at).toLocaleString()}</td><td>${e.direction === "deposit" ? "Deposit" : "Withdrawal"}</td><td>${formatAmount(BigInt(e.amount), e.decimals)} ${esc(e.symbol)}</td><td data-status="${esc(e.status ?? "")}">${e.status ? esc(statusLabel(e.status)) : ""}</td><td><button type="button" class="link" data-follow="${esc(e.id)}" aria-label="Show progress of transfer ${esc(e.id)}">Show progress</button></td></tr>`,
    )
    .join("");
  $("history").innerHTML =
    `<caption class="sr">Your transfers on this portal</caption><tr><th scope="col">Started</th><th scope="col">Direction</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col"></th></tr>${body || `<tr><td colspan="5">No transfers yet.</td></tr>`}`;
}

/** Each chain by the name the tenant gives it, with its explorer; the bridge's contracts folded away. */
function renderChains(): void {
  $("chains").innerHTML = portal.tenant.chains
    .map((c) => {
      const explorer = c.explorerUrl
        ? `<a href="${esc(c.explorerUrl)}" target="_blank" rel="noopener noreferrer">Explorer</a>`
        : "no public explorer";
      const contracts = Object.entries(c.contracts)
        .map(([k, a]) => `${esc(k)} ${addressRef(c, a)}`)
        .join("<br>");
      return `<tr data-chain="${c.chainId}"><th scope="row">${esc(c.name)}</th><td>${explorer}</td><td><details><summary>Bridge contracts</summary>${contracts}</details></td></tr>`;
    })
    .join("");
}

async function loadPortal(): Promise<Portal> {
  const [tenant, config] = await Promise.all([
    api<Portal["tenant"]>(`/api/tenant?hostname=${encodeURIComponent(host)}`),
    api<Portal["config"]>("/portal/config.json"),
  ]);
  return {
    tenant,
    config,
    home: tenant.chains.find((c) => c.role === "home")!,
    remote: tenant.chains.find((c) => c.role === "remote")!,
  };
}

function listen(): void {
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
  $("history-sign").addEventListener("click", () => void (wallet && showServerHistory(wallet)));
  $("history").addEventListener("click", (e) => {
    const id = (e.target as HTMLElement).closest<HTMLElement>("[data-follow]")?.dataset.follow;
    if (id) follow(id);
  });
}

async function main(): Promise<void> {
  try {
    portal = await loadPortal();
  } catch (err) {
    $("wallet-status").textContent =
      `The portal cannot load its configuration: ${err instanceof Error ? err.message : String(err)}`;
    return;
  }
  ({ home, remote } = portal);
  history = new TransferHistory(portal, host);
  for (const c of [home, remote]) {
    const chain = chainOf(c);
    chains.set(c.chainId, chain);
    readers.set(c.chainId, createClient({ chain, transport: http(chain.rpcUrls.default.http[0]) }));
  }
  renderChains();
  $("token").innerHTML = home.tokens.map((t) => `<option value="${esc(t.symbol)}">${esc(t.symbol)}</option>`).join("");
  listen();
  showAvailable();
  renderHistory();
  $("wallet-status").textContent = "Not connected.";
  document.body.dataset.ready = "true";
}

void main();
