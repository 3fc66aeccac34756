// The list of the wallet's live API keys, each with its revoke button and a confirmation (revoking
// cancels the key's open orders and renounces its agent on chain).
import { explain, signedRequest, type ApiKey } from "./api";
import { h, replace, thead } from "./dom";
import { say, type Message } from "./state";
import type { ConnectedWallet } from "./wallet";

export interface KeyListDeps {
  wallet: ConnectedWallet;
  keys: ApiKey[] | null;
  loading: boolean;
  error: string;
  /** the revoke result line, kept across re-renders */
  message: Message;
  /** after a revoke: the key's id; the panel reloads or drops it, then renders the list again */
  revoked(id: string): Promise<void>;
}

const when = (ms: number) => new Date(ms).toLocaleString();

export function keyList(d: KeyListDeps): (Node | null)[] {
  const live = (d.keys ?? []).filter((k) => k.revoked_at === null);
  const out = h(
    "p",
    {
      class: "result",
      role: "status",
      "aria-live": "polite",
      id: "api-key-revoke-result",
      "data-kind": d.message.kind,
    },
    d.message.text,
  );
  const revoke = async (k: ApiKey) => {
    say(out, d.message, `Revoking ${k.label || k.api_key}…`);
    try {
      const r = await signedRequest<{ cancelled_order_ids: string[]; agent_revocation: { status: string } }>(
        d.wallet,
        "DELETE",
        `/v1/api-keys/${k.id}`,
      );
      const n = r.cancelled_order_ids.length;
      say(
        out,
        d.message,
        `Key ${k.label || k.api_key} revoked: it no longer works; ${n === 0 ? "it had no open order" : `${n} open order${n === 1 ? "" : "s"} cancelled`}; agent on chain: ${r.agent_revocation.status === "pending" ? "revocation pending" : r.agent_revocation.status}.`,
        "ok",
      );
    } catch (err) {
      say(out, d.message, `Not revoked: ${explain(err)}`, "error");
      return d.revoked("");
    }
    await d.revoked(k.id);
  };
  const children: (Node | null)[] = [h("h3", {}, "Your keys")];
  if (d.error) children.push(h("p", { class: "error", role: "alert" }, d.error));
  if (d.keys === null)
    children.push(h("p", { class: "loading" }, d.loading ? "Loading your keys…" : "Not loaded yet."));
  else if (live.length === 0) children.push(h("p", { class: "empty", id: "api-keys-empty" }, "No API key yet."));
  else children.push(keysTable(live, revoke));
  children.push(out);
  return children;
}

function keysTable(live: ApiKey[], revoke: (k: ApiKey) => Promise<void>): HTMLElement {
  const columns = ["Label", "Key", "Permissions", "Position limit", "Daily loss limit", "Created", "Agent", "Action"];
  return h(
    "table",
    { id: "api-keys" },
    thead(columns),
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
          revokeCell(k, revoke),
        ),
      ),
    ),
  );
}

/** Revoke, then a confirmation ("Yes, revoke" focused, or "Keep"). */
function revokeCell(k: ApiKey, revoke: (k: ApiKey) => Promise<void>): HTMLElement {
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
}
