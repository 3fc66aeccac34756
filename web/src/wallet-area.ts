// The header's wallet area: the wallets on offer (the sandbox's development wallets, then the extensions
// found by EIP-6963 discovery), Connect, and once connected the address, the session (start it with one
// approval, its expiry, end it) and Disconnect. A stored session reconnects its wallet on reload.
import type { EIP6963ProviderDetail } from "mipd";
import { explain } from "./api";
import { h, replace } from "./dom";
import { endSession, expired, loadSession, startSession, withSession, type WebSession } from "./session";
import type { AppState } from "./state";
import { INTEGRATOR_LABEL, developmentWallet, extensionWallet, type ConnectedWallet } from "./wallet";

const clock = (sec: number) => new Date(sec * 1000).toLocaleString([], { dateStyle: "short", timeStyle: "short" });

export class WalletArea {
  private extensions: readonly EIP6963ProviderDetail[] = [];
  /** the wallet as connected (no session), and how it was chosen */
  private base: { wallet: ConnectedWallet; choice: string } | null = null;
  private session: WebSession | null = null;
  /** a stored session waiting for its extension to announce itself */
  private pending: WebSession | null = null;
  private note = "";

  constructor(
    private readonly state: AppState,
    private readonly area: HTMLElement,
    /** after a connect, a disconnect or a session change (state.wallet is set) */
    private readonly onChange: () => void,
  ) {}

  /** On boot: a stored session reconnects its wallet (a development wallet now, an extension when found). */
  restore(): void {
    const s = loadSession();
    if (!s) return;
    if (expired(s)) return void endSession(s);
    if (s.walletChoice.startsWith("dev:")) void this.connect(s.walletChoice, s);
    else {
      this.pending = s;
      this.setExtensions(this.extensions);
    }
  }

  setExtensions(list: readonly EIP6963ProviderDetail[]): void {
    this.extensions = list;
    const s = this.pending;
    if (s && list.some((d) => `ext:${d.info.rdns}` === s.walletChoice)) {
      this.pending = null;
      void this.connect(s.walletChoice, s).catch(() => undefined);
    }
    if (!this.state.wallet) this.render();
  }

  render(): void {
    if (this.state.wallet) return this.renderConnected(this.state.wallet);
    const sel = h("select", { id: "wallet-choice" }) as HTMLSelectElement;
    const keys = this.state.config?.devWalletKeys ?? [];
    if (this.state.config?.integratorKey)
      sel.append(
        h("option", { value: "dev:integrator" }, `${INTEGRATOR_LABEL} (yours: the simulated market never trades it)`),
      );
    keys.forEach((_, i) => sel.append(h("option", { value: `dev:${i}` }, `Development wallet: demo trader ${i + 1}`)));
    for (const d of this.extensions) sel.append(h("option", { value: `ext:${d.info.rdns}` }, d.info.name));
    const err = h("p", { class: "field-error", role: "alert" });
    if (sel.options.length === 0)
      return replace(this.area, h("p", {}, "No wallet found: install a browser wallet (EIP-6963)."));
    const connect = h(
      "button",
      {
        type: "button",
        class: "primary",
        id: "connect",
        onclick: async () => {
          err.textContent = "";
          try {
            await this.connect(sel.value, null);
          } catch (e) {
            err.textContent = `Could not connect: ${explain(e)}`;
          }
        },
      },
      "Connect",
    );
    replace(this.area, h("label", { for: "wallet-choice" }, "Wallet"), sel, connect, err);
  }

  private renderConnected(w: ConnectedWallet): void {
    const s = this.session;
    const sessionPart = s
      ? [
          h(
            "span",
            { id: "session-status", "data-expires-at": String(s.expiresAt) },
            `Session key until ${clock(s.expiresAt)}`,
          ),
          h("button", { type: "button", id: "end-session", onclick: () => void this.end() }, "End session"),
        ]
      : w.kind === "extension"
        ? [
            h(
              "button",
              {
                type: "button",
                id: "start-session",
                title: "Approve a session key once: reads and orders then need no wallet prompt",
                onclick: () => void this.start(),
              },
              "Start session",
            ),
          ]
        : [];
    replace(
      this.area,
      h(
        "span",
        { class: "wallet-label" },
        `${w.label}: `,
        h("code", {}, `${w.address.slice(0, 6)}…${w.address.slice(-4)}`),
      ),
      sessionPart,
      h("button", { type: "button", onclick: () => void this.disconnect() }, "Disconnect"),
      h("span", { class: "session-note", role: "status", id: "session-note" }, this.note),
    );
  }

  private async connect(choice: string, stored: WebSession | null): Promise<void> {
    const state = this.state;
    const keys = state.config?.devWalletKeys ?? [];
    const [kind, ref] = choice.split(":");
    let w: ConnectedWallet;
    if (kind === "dev" && ref === "integrator")
      w = developmentWallet(state.chain!, state.config!.integratorKey!, INTEGRATOR_LABEL);
    else if (kind === "dev")
      w = developmentWallet(state.chain!, keys[Number(ref)], `Development wallet: demo trader ${Number(ref) + 1}`);
    else {
      const d = this.extensions.find((x) => x.info.rdns === ref);
      if (!d) throw new Error("That wallet is no longer offered.");
      w = await extensionWallet(state.chain!, d, stored !== null);
    }
    this.base = { wallet: w, choice };
    const s = stored ?? loadSession();
    this.session = s && s.owner === w.address && s.walletChoice === choice && !expired(s) ? s : null;
    state.wallet = this.session ? withSession(w, this.session) : w;
    this.render();
    this.onChange();
  }

  private async start(): Promise<void> {
    const b = this.base;
    if (!b) return;
    const say = (text: string) => {
      this.note = text;
      const el = this.area.querySelector("#session-note");
      if (el) el.textContent = text;
    };
    try {
      this.session = await startSession(b.wallet, b.choice, { status: say, created: () => undefined });
      say("Session started: reads and orders no longer ask the wallet.");
    } catch (err) {
      say(`No session: ${explain(err)}`);
      return;
    }
    this.state.wallet = withSession(b.wallet, this.session);
    this.render();
    this.onChange();
  }

  private async end(): Promise<void> {
    const s = this.session;
    this.session = null;
    this.note = s ? await endSession(s) : "";
    if (this.base) this.state.wallet = this.base.wallet;
    this.render();
    this.onChange();
  }

  private async disconnect(): Promise<void> {
    if (this.session) await endSession(this.session);
    this.session = null;
    this.base = null;
    this.note = "";
    this.state.wallet = null;
    this.state.account = null;
    this.render();
    this.onChange();
  }
}
