// The account's API keys: create (the wallet signs the request, then the EIP-712 AgentApproval of the key's
// agent; the page shows both before they are signed), the key and its secret shown once, the list, revoke
// (which cancels the key's open orders). The secret lives only in the reveal box's DOM: closing it, a new
// key, a wallet change or a reload drops it; nothing else ever holds it.
import { explain, signedRequest, type ApiKey } from "./api";
import { keyForm } from "./apikey-form";
import { keyList } from "./apikey-list";
import type { CreatedKey } from "./apikey-rules";
import { h, replace } from "./dom";
import type { Message } from "./state";
import type { ConnectedWallet } from "./wallet";

/** The panel; `render(wallet)` redraws it from nothing (no secret survives it). */
export class ApiKeysPanel {
  private keys: ApiKey[] | null = null;
  private loading = false;
  private error = "";
  private wallet: ConnectedWallet | null = null;
  private listArea = h("div", { id: "api-key-list" });
  private reveal = h("div", { id: "api-key-reveal" });
  private revokeMsg: Message = { text: "", kind: "" };

  constructor(private readonly section: HTMLElement) {}

  render(wallet: ConnectedWallet | null): void {
    if (wallet !== this.wallet) {
      this.keys = null;
      this.error = "";
      this.revokeMsg = { text: "", kind: "" };
    }
    this.wallet = wallet;
    this.reveal = h("div", { id: "api-key-reveal" });
    this.listArea = h("div", { id: "api-key-list" });
    const head = h("div", { class: "panel-head" }, h("h2", { id: "api-keys-h" }, "API keys"));
    if (!wallet)
      return replace(this.section, head, h("p", { class: "empty" }, "Connect a wallet to create and manage API keys."));
    head.append(
      h(
        "button",
        { type: "button", id: "api-keys-refresh", onclick: () => void this.load() },
        wallet.autoSign ? "Refresh" : "Load (signs a request)",
      ),
    );
    replace(
      this.section,
      head,
      h(
        "p",
        { class: "field-hint" },
        "A key lets a program read your account and trade for you through the API. Orders placed with it are signed by the key's own agent, which your wallet approves on chain.",
      ),
      keyForm({
        wallet,
        reveal: (k) => this.showSecret(k),
        hideReveal: () => this.reveal.replaceChildren(),
        // an extension would ask for one more signature to list the keys: show the new one from its answer
        done: (created, approved) => (wallet.autoSign || !created ? void this.load() : this.upsert(created, approved)),
      }),
      this.reveal,
      this.listArea,
    );
    this.renderList();
    if (wallet.autoSign && this.keys === null) void this.load();
  }

  private async load(): Promise<void> {
    const w = this.wallet;
    if (!w) return;
    this.loading = true;
    this.renderList();
    try {
      const r = await signedRequest<{ api_keys: ApiKey[] }>(w, "GET", "/v1/api-keys");
      if (this.wallet !== w) return;
      this.keys = r.api_keys;
      this.error = "";
    } catch (err) {
      this.error = `The keys could not be loaded: ${explain(err)}`;
    } finally {
      this.loading = false;
    }
    this.renderList();
  }

  /** The created key into the list without a read (no secret, no typed data kept). */
  private upsert(k: CreatedKey, approved: boolean): void {
    const { api_secret: _secret, agent_approval: _typed, ...key } = k;
    const row: ApiKey = { ...key, agent_status: approved ? "approved" : key.agent_status };
    this.keys = [row, ...(this.keys ?? []).filter((x) => x.id !== k.id)];
    this.renderList();
  }

  private showSecret(k: CreatedKey): void {
    const keyText = k.api_key;
    const secretText = k.api_secret;
    const copyOut = h("p", { class: "result", role: "status", "aria-live": "polite", id: "api-key-copy-result" });
    const copy = (what: string, text: string) => async () => {
      try {
        await navigator.clipboard.writeText(text);
        copyOut.textContent = `${what} copied.`;
      } catch {
        copyOut.textContent = `The browser did not allow copying: select the ${what.toLowerCase()} and copy it by hand.`;
      }
    };
    /** `value` in a code element (`codeId`) with a button that copies it */
    const copyable = (what: string, label: string, value: string, codeId: string, button = {}) =>
      h(
        "dd",
        {},
        h("code", { id: codeId }, value),
        " ",
        h("button", { type: "button", ...button, "aria-label": `Copy ${label}`, onclick: copy(what, value) }, "Copy"),
      );
    const close = h(
      "button",
      { type: "button", id: "api-key-reveal-close", onclick: () => this.reveal.replaceChildren() },
      "I have saved it: close",
    );
    this.reveal.replaceChildren(
      h(
        "div",
        { class: "secret-box", role: "region", "aria-labelledby": "api-key-reveal-h" },
        h("h3", { id: "api-key-reveal-h", tabindex: "-1" }, `Your new key${k.label ? ` “${k.label}”` : ""}`),
        h(
          "p",
          { class: "warning" },
          h("strong", {}, "Copy the secret now: it is shown only this once. "),
          "Once you close this box or leave the page it cannot be shown again; if you lose it, revoke the key and create another. Anyone holding it can use the key.",
        ),
        h(
          "dl",
          {},
          h("dt", {}, "API key"),
          copyable("API key", "the API key", keyText, "new-api-key"),
          h("dt", {}, "Secret"),
          copyable("Secret", "the secret", secretText, "new-api-secret", { id: "copy-api-secret" }),
        ),
        copyOut,
        close,
      ),
    );
    (this.reveal.querySelector("h3") as HTMLElement | null)?.focus();
  }

  private renderList(): void {
    const w = this.wallet;
    if (!w) return replace(this.listArea);
    replace(
      this.listArea,
      ...keyList({
        wallet: w,
        keys: this.keys,
        loading: this.loading,
        error: this.error,
        message: this.revokeMsg,
        revoked: async (id) => {
          if (id && !w.autoSign) this.keys = (this.keys ?? []).filter((x) => x.id !== id);
          if (w.autoSign) await this.load();
          else this.renderList();
        },
      }),
    );
  }
}
