// The account's API keys: create (the wallet signs the request, then the EIP-712 AgentApproval of the key's
// agent; the page shows both before they are signed), the key and its secret shown once, the list, revoke
// (which cancels the key's open orders). The secret lives only in the reveal box's DOM: closing it, a new
// key, a wallet change or a reload drops it; nothing else ever holds it.
import { parseDecimal } from "../../sdk/decimal";
import { explain, postPublic, signedRequest, type ApiKey } from "./api";
import { field, h, replace } from "./dom";
import type { ConnectedWallet } from "./wallet";

export const PERMISSIONS = [
  { value: "read", label: "Read (balances, orders)" },
  { value: "trade", label: "Trade (place and cancel orders)" },
  { value: "transfer", label: "Transfer" },
] as const;

export interface KeyFormInput {
  label: string;
  permissions: string[];
  positionLimit: string;
  dailyLossLimit: string;
}

export type KeyFormResult =
  | { ok: true; body: { label?: string; permissions: string[]; position_limit?: string; daily_loss_limit?: string } }
  | { ok: false; errors: Partial<Record<"label" | "permissions" | "positionLimit" | "dailyLossLimit", string>> };

const LABEL_MAX = 64;

/** The creation body, or each refusal in words (the API's rules: label ≤ 64 characters, one permission at
 *  least, limits positive decimals with at most 18 decimals). */
export function readKeyForm(f: KeyFormInput): KeyFormResult {
  const errors: Extract<KeyFormResult, { ok: false }>["errors"] = {};
  const label = f.label.trim();
  if (label.length > LABEL_MAX) errors.label = `The label is ${label.length} characters long; ${LABEL_MAX} at most.`;
  const perms = PERMISSIONS.map((p) => p.value).filter((p) => f.permissions.includes(p));
  if (perms.length === 0) errors.permissions = "Choose at least one permission.";
  const limit = (text: string, key: "positionLimit" | "dailyLossLimit", what: string): string | undefined => {
    const t = text.trim();
    if (t === "") return undefined;
    const v = parseDecimal(t, 18);
    if (v === null || !/^\d+(\.\d+)?$/.test(t))
      errors[key] = `The ${what} must be a number such as 1000 or 250.5 (at most 18 decimals), or empty for none.`;
    else if (v <= 0n) errors[key] = `The ${what} must be more than zero, or empty for none.`;
    return t;
  };
  const position = limit(f.positionLimit, "positionLimit", "position limit");
  const loss = limit(f.dailyLossLimit, "dailyLossLimit", "daily loss limit");
  if (Object.keys(errors).length) return { ok: false, errors };
  return {
    ok: true,
    body: {
      ...(label ? { label } : {}),
      permissions: perms,
      ...(position !== undefined ? { position_limit: position } : {}),
      ...(loss !== undefined ? { daily_loss_limit: loss } : {}),
    },
  };
}

interface TypedData {
  domain: Record<string, unknown>;
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  message: {
    trader: string;
    agent: string;
    expiry: string | number;
    nonce: string | number;
    deadline: string | number;
  };
}

type CreatedKey = ApiKey & { api_secret: string; agent_approval: TypedData };

const when = (ms: number) => new Date(ms).toLocaleString();

/** The panel; `render(wallet)` redraws it from nothing (no secret survives it). */
export class ApiKeysPanel {
  private keys: ApiKey[] | null = null;
  private loading = false;
  private error = "";
  private wallet: ConnectedWallet | null = null;
  private listArea = h("div", { id: "api-key-list" });
  private reveal = h("div", { id: "api-key-reveal" });
  private revokeMsg = { text: "", kind: "" };

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
      this.form(wallet),
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

  private form(w: ConnectedWallet): HTMLElement {
    const label = h("input", {
      name: "key-label",
      autocomplete: "off",
      maxlength: String(LABEL_MAX + 10),
    }) as HTMLInputElement;
    const position = h("input", {
      name: "position_limit",
      inputmode: "decimal",
      autocomplete: "off",
    }) as HTMLInputElement;
    const loss = h("input", {
      name: "daily_loss_limit",
      inputmode: "decimal",
      autocomplete: "off",
    }) as HTMLInputElement;
    const fLabel = field("Label (optional)", label, `at most ${LABEL_MAX} characters, to tell your keys apart`);
    const fPos = field(
      "Position limit (quote currency, optional)",
      position,
      "the most the key's open orders may be worth per market",
    );
    const fLoss = field(
      "Daily loss limit (quote currency, optional)",
      loss,
      "the most the key's fills may lose per UTC day",
    );
    const boxes = PERMISSIONS.map(
      (p) =>
        h("input", {
          type: "checkbox",
          name: "permission",
          value: p.value,
          id: `perm-${p.value}`,
          checked: p.value === "read",
        }) as HTMLInputElement,
    );
    const permError = h("p", { class: "field-error", id: "perm-error", role: "alert" });
    const perms = h(
      "fieldset",
      { class: "permissions", "aria-describedby": "perm-error" },
      h("legend", {}, "Permissions"),
      PERMISSIONS.map((p, i) =>
        h("div", { class: "field checkbox" }, boxes[i], h("label", { for: boxes[i].id }, p.label)),
      ),
      permError,
    );
    const preview = h(
      "pre",
      { class: "signed-preview", id: "api-key-preview", tabindex: "0", "aria-label": "What the wallet signs" },
      "Fill in the form to see the request the wallet signs.",
    );
    const result = h("p", { class: "result", role: "status", "aria-live": "polite", id: "api-key-result" });
    const submit = h(
      "button",
      { type: "submit", class: "primary", id: "create-api-key" },
      "Sign and create",
    ) as HTMLButtonElement;
    const read = () =>
      readKeyForm({
        label: label.value,
        permissions: boxes.filter((b) => b.checked).map((b) => b.value),
        positionLimit: position.value,
        dailyLossLimit: loss.value,
      });
    const show = (errors = false) => {
      const r = read();
      for (const e of [fLabel.error, fPos.error, fLoss.error, permError]) e.textContent = "";
      if (!r.ok) {
        if (errors) {
          fLabel.error.textContent = r.errors.label ?? "";
          fPos.error.textContent = r.errors.positionLimit ?? "";
          fLoss.error.textContent = r.errors.dailyLossLimit ?? "";
          permError.textContent = r.errors.permissions ?? "";
        }
        preview.textContent = "Fill in the form to see the request the wallet signs.";
        return null;
      }
      preview.textContent = [
        `1. An EIP-191 message (${w.label}): timestamp + POST${location.host}/v1/api-keys + this body:`,
        `   ${JSON.stringify(r.body)}`,
        `2. Then the EIP-712 AgentApproval that lets the new key's agent sign orders for ${w.address} (shown here before it is signed).`,
      ].join("\n");
      return r.body;
    };
    const formEl = h(
      "form",
      { novalidate: true, id: "api-key-form", "aria-describedby": "api-key-result" },
      fLabel.wrap,
      perms,
      fPos.wrap,
      fLoss.wrap,
      h("details", { open: true }, h("summary", {}, "What the wallet signs"), preview),
      submit,
      result,
    );
    formEl.addEventListener("input", () => show(false));
    formEl.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const body = show(true);
      if (!body) {
        result.textContent = "Not created: correct the fields marked above.";
        result.dataset.kind = "error";
        const bad = [
          [fLabel.error, label],
          [permError, boxes[0]],
          [fPos.error, position],
          [fLoss.error, loss],
        ] as const;
        bad.find(([e]) => e.textContent)?.[1].focus();
        return;
      }
      submit.disabled = true;
      this.reveal.replaceChildren();
      result.dataset.kind = "";
      let created: CreatedKey | null = null;
      try {
        result.textContent = "1 of 2: sign the request in the wallet…";
        const requestText = preview.textContent ?? "";
        created = await signedRequest<CreatedKey>(w, "POST", "/v1/api-keys", body);
        const a = created.agent_approval;
        const m = a.message;
        preview.textContent = [
          requestText,
          `AgentApproval, EIP-712 "${String(a.domain.name)}" v${String(a.domain.version)}, chain ${String(a.domain.chainId)}, contract ${String(a.domain.verifyingContract)}`,
          `${a.primaryType} {`,
          `  trader:   ${m.trader}`,
          `  agent:    ${m.agent} (the key's agent)`,
          `  expiry:   ${m.expiry} (${new Date(Number(m.expiry) * 1000).toISOString()})`,
          `  nonce:    ${m.nonce}`,
          `  deadline: ${m.deadline} (${new Date(Number(m.deadline) * 1000).toISOString()})`,
          `}`,
        ].join("\n");
        this.showSecret(created);
        result.textContent = "2 of 2: sign the agent approval in the wallet…";
        const signature = await w.signTypedData({
          domain: a.domain,
          types: a.types,
          primaryType: a.primaryType,
          message: { ...m, expiry: BigInt(m.expiry), nonce: BigInt(m.nonce), deadline: BigInt(m.deadline) },
        });
        result.textContent = "Approving the agent on chain…";
        await postPublic<ApiKey>(`/v1/api-keys/${created.id}/agent-approval`, { approval: m, signature });
        result.textContent = `Key created and its agent approved: it may ${body.permissions.join(", ")}.`;
        result.dataset.kind = "ok";
        label.value = position.value = loss.value = "";
      } catch (err) {
        result.textContent = created
          ? `The key was created but its agent is not approved (${explain(err)}): it cannot trade. Revoke it and create another.`
          : `Not created: ${explain(err)}`;
        result.dataset.kind = "error";
      } finally {
        submit.disabled = false;
        // an extension would ask for one more signature to list the keys: show the new one from its answer
        if (w.autoSign || !created) void this.load();
        else this.upsert(created, result.dataset.kind === "ok");
      }
    });
    return formEl;
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
          h(
            "dd",
            {},
            h("code", { id: "new-api-key" }, keyText),
            " ",
            h(
              "button",
              { type: "button", "aria-label": "Copy the API key", onclick: copy("API key", keyText) },
              "Copy",
            ),
          ),
          h("dt", {}, "Secret"),
          h(
            "dd",
            {},
            h("code", { id: "new-api-secret" }, secretText),
            " ",
            h(
              "button",
              {
                type: "button",
                id: "copy-api-secret",
                "aria-label": "Copy the secret",
                onclick: copy("Secret", secretText),
              },
              "Copy",
            ),
          ),
        ),
        copyOut,
        close,
      ),
    );
    (this.reveal.querySelector("h3") as HTMLElement | null)?.focus();
  }

  private renderList(): void {
    const area = this.listArea;
    const w = this.wallet;
    if (!w) return replace(area);
    const live = (this.keys ?? []).filter((k) => k.revoked_at === null);
    const out = h(
      "p",
      {
        class: "result",
        role: "status",
        "aria-live": "polite",
        id: "api-key-revoke-result",
        "data-kind": this.revokeMsg.kind,
      },
      this.revokeMsg.text,
    );
    const say = (text: string, kind = "") => {
      this.revokeMsg = { text, kind };
      out.textContent = text;
      out.dataset.kind = kind;
    };
    const revoke = async (k: ApiKey) => {
      say(`Revoking ${k.label || k.api_key}…`);
      try {
        const r = await signedRequest<{ cancelled_order_ids: string[]; agent_revocation: { status: string } }>(
          w,
          "DELETE",
          `/v1/api-keys/${k.id}`,
        );
        const n = r.cancelled_order_ids.length;
        say(
          `Key ${k.label || k.api_key} revoked: it no longer works; ${n === 0 ? "it had no open order" : `${n} open order${n === 1 ? "" : "s"} cancelled`}; agent on chain: ${r.agent_revocation.status === "pending" ? "revocation pending" : r.agent_revocation.status}.`,
          "ok",
        );
        if (!w.autoSign) this.keys = (this.keys ?? []).filter((x) => x.id !== k.id);
      } catch (err) {
        say(`Not revoked: ${explain(err)}`, "error");
      }
      if (w.autoSign) await this.load();
      else this.renderList();
    };
    const actions = (k: ApiKey): HTMLElement => {
      const cell = h("td", { class: "key-actions" });
      const ask = () =>
        replace(
          cell,
          h("span", { class: "confirm" }, "Revoke? Its open orders are cancelled. "),
          h(
            "button",
            { type: "button", class: "danger", "data-confirm-revoke": k.id, onclick: () => void revoke(k) },
            "Yes, revoke",
          ),
          " ",
          h(
            "button",
            {
              type: "button",
              onclick: () => (replace(cell, first()), (cell.querySelector("button") as HTMLElement).focus()),
            },
            "Keep",
          ),
        );
      const first = () =>
        h(
          "button",
          {
            type: "button",
            "data-revoke": k.id,
            "aria-label": `Revoke key ${k.label || k.api_key}`,
            onclick: () => (ask(), (cell.querySelector("button.danger") as HTMLElement).focus()),
          },
          "Revoke",
        );
      cell.append(first());
      return cell;
    };
    const children: (Node | null)[] = [h("h3", {}, "Your keys")];
    if (this.error) children.push(h("p", { class: "error", role: "alert" }, this.error));
    if (this.keys === null)
      children.push(h("p", { class: "loading" }, this.loading ? "Loading your keys…" : "Not loaded yet."));
    else if (live.length === 0) children.push(h("p", { class: "empty", id: "api-keys-empty" }, "No API key yet."));
    else
      children.push(
        h(
          "table",
          { id: "api-keys" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ["Label", "Key", "Permissions", "Position limit", "Daily loss limit", "Created", "Agent", "Action"].map(
                (c) => h("th", { scope: "col" }, c),
              ),
            ),
          ),
          h(
            "tbody",
            {},
            live.map((k) =>
              h(
                "tr",
                { "data-key-id": k.id },
                h("td", { class: "key-label", "data-label": "Label" }, k.label || "—"),
                h("td", { "data-label": "Key" }, h("code", {}, k.api_key)),
                h("td", { class: "key-permissions", "data-label": "Permissions" }, k.permissions.join(", ")),
                h("td", { class: "key-position-limit", "data-label": "Position limit" }, k.position_limit ?? "none"),
                h("td", { class: "key-loss-limit", "data-label": "Daily loss limit" }, k.daily_loss_limit ?? "none"),
                h("td", { "data-label": "Created" }, when(k.created_at)),
                h(
                  "td",
                  { class: "key-agent", "data-label": "Agent" },
                  k.agent_status === "approved" ? "approved" : "waiting for approval (cannot trade)",
                ),
                actions(k),
              ),
            ),
          ),
        ),
      );
    children.push(out);
    replace(area, ...children);
  }
}
