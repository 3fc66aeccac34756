// The API-key creation form: label, permissions and limits, each refusal next to its field and nothing
// sent; the request and then the agent approval shown before the wallet signs them.
import { explain } from "./api";
import { createApprovedKey } from "./apikey-create";
import { approvalText, LABEL_MAX, PERMISSIONS, readKeyForm, type CreatedKey, type KeyBody } from "./apikey-rules";
import { field, h } from "./dom";
import type { ConnectedWallet } from "./wallet";

export interface KeyFormDeps {
  wallet: ConnectedWallet;
  /** the key exists: show its secret (before its approval is signed) */
  reveal(k: CreatedKey): void;
  /** before a creation: drop any secret shown */
  hideReveal(): void;
  /** after a creation attempt (`created` null when the key was not created) */
  done(created: CreatedKey | null, approved: boolean): void;
}

const decimalInput = (name: string) =>
  h("input", { name, inputmode: "decimal", autocomplete: "off" }) as HTMLInputElement;

function keyFields() {
  const label = h("input", {
    name: "key-label",
    autocomplete: "off",
    maxlength: String(LABEL_MAX + 10),
  }) as HTMLInputElement;
  const position = decimalInput("position_limit");
  const loss = decimalInput("daily_loss_limit");
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
  return {
    label,
    position,
    loss,
    boxes,
    permError,
    fLabel: field("Label (optional)", label, `at most ${LABEL_MAX} characters, to tell your keys apart`),
    fPos: field(
      "Position limit (quote currency, optional)",
      position,
      "the most the key's open orders may be worth per market",
    ),
    fLoss: field("Daily loss limit (quote currency, optional)", loss, "the most the key's fills may lose per UTC day"),
    perms: h(
      "fieldset",
      { class: "permissions", "aria-describedby": "perm-error" },
      h("legend", {}, "Permissions"),
      PERMISSIONS.map((p, i) =>
        h("div", { class: "field checkbox" }, boxes[i], h("label", { for: boxes[i].id }, p.label)),
      ),
      permError,
    ),
    preview: h(
      "pre",
      { class: "signed-preview", id: "api-key-preview", tabindex: "0", "aria-label": "What the wallet signs" },
      "Fill in the form to see the request the wallet signs.",
    ),
    result: h("p", { class: "result", role: "status", "aria-live": "polite", id: "api-key-result" }),
    submit: h(
      "button",
      { type: "submit", class: "primary", id: "create-api-key" },
      "Sign and create",
    ) as HTMLButtonElement,
  };
}

type KeyFields = ReturnType<typeof keyFields>;

/** The body typed, or null; with `errors`, each refusal next to its field. */
function showKeyForm(f: KeyFields, w: ConnectedWallet, errors: boolean): KeyBody | null {
  const r = readKeyForm({
    label: f.label.value,
    permissions: f.boxes.filter((b) => b.checked).map((b) => b.value),
    positionLimit: f.position.value,
    dailyLossLimit: f.loss.value,
  });
  for (const e of [f.fLabel.error, f.fPos.error, f.fLoss.error, f.permError]) e.textContent = "";
  if (!r.ok) {
    if (errors) {
      f.fLabel.error.textContent = r.errors.label ?? "";
      f.fPos.error.textContent = r.errors.positionLimit ?? "";
      f.fLoss.error.textContent = r.errors.dailyLossLimit ?? "";
      f.permError.textContent = r.errors.permissions ?? "";
    }
    f.preview.textContent = "Fill in the form to see the request the wallet signs.";
    return null;
  }
  f.preview.textContent = [
    `1. An EIP-191 message (${w.label}): timestamp + POST${location.host}/v1/api-keys + this body:`,
    `   ${JSON.stringify(r.body)}`,
    `2. Then the EIP-712 AgentApproval that lets the new key's agent sign orders for ${w.address} (shown here before it is signed).`,
  ].join("\n");
  return r.body;
}

export function keyForm(d: KeyFormDeps): HTMLElement {
  const f = keyFields();
  const formEl = h(
    "form",
    { novalidate: true, id: "api-key-form", "aria-describedby": "api-key-result" },
    f.fLabel.wrap,
    f.perms,
    f.fPos.wrap,
    f.fLoss.wrap,
    h("details", { open: true }, h("summary", {}, "What the wallet signs"), f.preview),
    f.submit,
    f.result,
  );
  formEl.addEventListener("input", () => showKeyForm(f, d.wallet, false));
  formEl.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void submitKeyForm(f, d);
  });
  return formEl;
}

async function submitKeyForm(f: KeyFields, d: KeyFormDeps): Promise<void> {
  const { result, submit, preview } = f;
  const body = showKeyForm(f, d.wallet, true);
  if (!body) {
    result.textContent = "Not created: correct the fields marked above.";
    result.dataset.kind = "error";
    const bad = [
      [f.fLabel.error, f.label],
      [f.permError, f.boxes[0]],
      [f.fPos.error, f.position],
      [f.fLoss.error, f.loss],
    ] as const;
    bad.find(([e]) => e.textContent)?.[1].focus();
    return;
  }
  submit.disabled = true;
  d.hideReveal();
  result.dataset.kind = "";
  let created: CreatedKey | null = null;
  const requestText = preview.textContent ?? "";
  try {
    await createApprovedKey(d.wallet, body, {
      status: (text) => (result.textContent = text),
      created: (k) => {
        created = k;
        preview.textContent = [requestText, approvalText(k.agent_approval)].join("\n");
        d.reveal(k);
      },
    });
    result.textContent = `Key created and its agent approved: it may ${body.permissions.join(", ")}.`;
    result.dataset.kind = "ok";
    f.label.value = f.position.value = f.loss.value = "";
  } catch (err) {
    result.textContent = created
      ? `The key was created but its agent is not approved (${explain(err)}): it cannot trade. Revoke it and create another.`
      : `Not created: ${explain(err)}`;
    result.dataset.kind = "error";
  } finally {
    submit.disabled = false;
    d.done(created, result.dataset.kind === "ok");
  }
}
