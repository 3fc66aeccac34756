// #/account: cash, buying power, identity and accreditation status, the settlement address; the funding
// form; in the sandbox, the accreditation a real investor would obtain.
import { h, replace } from "../../dom";
import { call, type Account } from "../api";
import { explain, usd } from "../model";
import { app, fact, errorBox, loading, onScreen, page, requireLogin } from "../shell";
import { fundingSection } from "./funding";

const accreditationText = (a: Account) =>
  `${a.accreditationStatus.replace(/_/g, " ")}${a.accreditationType ? ` (${a.accreditationType})` : ""}`;

function accountFigures(a: Account): Node[] {
  return [
    h(
      "dl",
      { class: "figures" },
      fact("Cash", usd(a.cashBalance), "cash"),
      fact("Buying power", usd(a.buyingPower), "buying-power"),
      fact("Phone", a.phone),
      fact("Identity check (KYC)", a.kycStatus.replace(/_/g, " ")),
      fact("Accreditation", accreditationText(a)),
      fact("Settlement address", h("code", {}, a.settlementAddress)),
    ),
    h(
      "p",
      { class: "note" },
      "Buying power is your cash less what your open buy orders hold. Balances are read from the chain.",
    ),
  ];
}

/** ?step=accreditation (the order form's link): the accreditation step in view and focused. */
function focusStep(params: URLSearchParams, sandbox: HTMLElement | null, info: HTMLElement): void {
  if (params.get("step") !== "accreditation") return;
  const target = sandbox ?? info;
  target.setAttribute("tabindex", "-1");
  target.focus();
  target.scrollIntoView({ block: "start" });
}

export async function accountPage(params: URLSearchParams): Promise<void> {
  if (!requireLogin()) return;
  const seq = app.seq;
  const head = () => h("h3", { id: "account-h" }, "Your account");
  const info = h(
    "section",
    { class: "panel", id: "account", "aria-labelledby": "account-h" },
    head(),
    loading("your account"),
  );
  const load = async () => {
    try {
      const a = (await call<{ data: Account }>("GET", "/account")).data;
      if (onScreen(seq)) replace(info, head(), ...accountFigures(a));
    } catch (err) {
      if (onScreen(seq)) replace(info, head(), errorBox(err));
    }
  };
  const sandbox = app.config.mode === "sandbox" ? accreditationSection(() => void load()) : null;
  page(
    "Account",
    info,
    fundingSection(() => void load()),
    sandbox,
  );
  focusStep(params, sandbox, info);
  await load();
}

/** Sandbox only: the accreditation a real investor would obtain (self-certification, a third party's check). */
function accreditationSection(after: () => void): HTMLElement {
  const result = h("p", { class: "result", id: "accreditation-result", role: "status", "aria-live": "polite" });
  const run = (path: string, body: Record<string, unknown>) => async (ev: Event) => {
    const b = ev.currentTarget as HTMLButtonElement;
    b.disabled = true;
    result.dataset.kind = "";
    result.textContent = "";
    try {
      const a = (await call<{ data: Account }>("POST", path, body)).data;
      result.dataset.kind = "ok";
      result.textContent = `Accreditation is now ${accreditationText(a)}.`;
      after();
    } catch (err) {
      result.dataset.kind = "error";
      result.textContent = explain(err);
    } finally {
      b.disabled = false;
    }
  };
  const action = (id: string, label: string, path: string, body: Record<string, unknown>) =>
    h("button", { type: "button", id, onclick: run(path, body) }, label);
  return h(
    "section",
    { class: "panel", id: "sandbox-accreditation", "aria-labelledby": "sandbox-acc-h" },
    h("h3", { id: "sandbox-acc-h" }, "Investor status (sandbox)"),
    h(
      "p",
      { class: "note" },
      "Rule 506(b) assets need you to certify that you are an accredited investor; Rule 506(c) assets need a third party to verify it. The sandbox simulates both.",
    ),
    h(
      "div",
      { class: "buttons" },
      action("self-certify", "Certify that I am accredited (506(b))", "/sandbox/accreditation/506b", {}),
      action("verify-506c", "Simulate a verified check (506(c))", "/sandbox/accreditation/506c", {
        outcome: "verified",
      }),
      action("reject-506c", "Simulate a failed check", "/sandbox/accreditation/506c", { outcome: "rejected" }),
    ),
    result,
  );
}
