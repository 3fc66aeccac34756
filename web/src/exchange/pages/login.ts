// #/login: a phone number, a one-time code (in the sandbox: where to read it), then the page it came from.
import { field, h } from "../../dom";
import { login, requestCode, sandboxOutbox } from "../api";
import { checkCode, checkPhone, explain } from "../model";
import { app, page } from "../shell";

interface LoginParts {
  phone: HTMLInputElement;
  code: HTMLInputElement;
  fPhone: ReturnType<typeof field>;
  fCode: ReturnType<typeof field>;
  result: HTMLElement;
}

function loginParts(): LoginParts {
  const phone = h("input", {
    type: "tel",
    name: "phone",
    id: "phone",
    autocomplete: "tel",
    inputmode: "tel",
    placeholder: "+14155550123",
  }) as HTMLInputElement;
  const code = h("input", {
    type: "text",
    name: "code",
    id: "code",
    autocomplete: "one-time-code",
    inputmode: "numeric",
    maxlength: 6,
  }) as HTMLInputElement;
  return {
    phone,
    code,
    fPhone: field("Phone number", phone, "with its country code"),
    fCode: field("One-time code", code, "6 digits, valid for 5 minutes"),
    result: h("p", { class: "result", id: "login-result", role: "status", "aria-live": "polite" }),
  };
}

/** Sandbox only: where the code lands, and a button that reads it there. */
function sandboxHint(p: LoginParts): HTMLElement {
  const sandboxCode = h("p", { class: "sandbox-code", id: "sandbox-code", "aria-live": "polite" });
  const show = async () => {
    const c = checkPhone(p.phone.value);
    if (!c.ok) return void (p.fPhone.error.textContent = c.error);
    sandboxCode.textContent = "Reading the outbox…";
    try {
      const m = await sandboxOutbox(c.phone);
      sandboxCode.textContent = m ? `Newest code for ${c.phone}: ${m.code}` : "No code yet: send one first.";
      sandboxCode.dataset.code = m?.code ?? "";
    } catch (err) {
      sandboxCode.textContent = explain(err);
    }
  };
  return h(
    "div",
    { class: "hint", id: "outbox-hint" },
    h(
      "p",
      {},
      "Sandbox: no SMS is sent. The code lands in the identity provider's sandbox outbox (",
      h("code", {}, "GET /api/sandbox/outbox"),
      "), readable only with the phone's sandbox key, which this browser received with the phone's first code and keeps. Read it there and type it below.",
    ),
    h("button", { type: "button", id: "show-code", onclick: show }, "Show the sandbox outbox"),
    sandboxCode,
  );
}

function sendCodeButton(p: LoginParts): HTMLButtonElement {
  const sendBtn = h("button", { type: "button", id: "send-code" }, "Send me a code") as HTMLButtonElement;
  sendBtn.addEventListener("click", async () => {
    p.fPhone.error.textContent = "";
    const c = checkPhone(p.phone.value);
    if (!c.ok) return void ((p.fPhone.error.textContent = c.error), p.phone.focus());
    sendBtn.disabled = true;
    try {
      const r = await requestCode(c.phone);
      p.result.dataset.kind = "ok";
      p.result.textContent = `A code was sent to ${c.phone}. It is valid for ${Math.round(r.expiresIn / 60)} minutes.`;
      p.code.focus();
    } catch (err) {
      p.result.dataset.kind = "error";
      p.result.textContent = explain(err);
    } finally {
      sendBtn.disabled = false;
    }
  });
  return sendBtn;
}

async function submitLogin(p: LoginParts, loginBtn: HTMLButtonElement, params: URLSearchParams): Promise<void> {
  p.fPhone.error.textContent = "";
  p.fCode.error.textContent = "";
  const ph = checkPhone(p.phone.value);
  const c = checkCode(p.code.value);
  if (!ph.ok) p.fPhone.error.textContent = ph.error;
  if (!c.ok) p.fCode.error.textContent = c.error;
  if (!ph.ok || !c.ok) return void (!ph.ok ? p.phone : p.code).focus();
  loginBtn.disabled = true;
  p.result.dataset.kind = "";
  p.result.textContent = "Logging in…";
  try {
    await login(ph.phone, c.code);
    const next = params.get("next");
    location.hash = next?.startsWith("/") && !next.startsWith("/login") ? `#${next}` : "#/assets";
  } catch (err) {
    p.result.dataset.kind = "error";
    p.result.textContent = explain(err);
  } finally {
    loginBtn.disabled = false;
  }
}

export function loginPage(params: URLSearchParams): void {
  const p = loginParts();
  const loginBtn = h("button", { type: "submit", class: "primary", id: "login" }, "Log in") as HTMLButtonElement;
  const form = h(
    "form",
    { novalidate: true, class: "panel login-form", "aria-labelledby": "page-h" },
    p.fPhone.wrap,
    sendCodeButton(p),
    app.config.mode === "sandbox" ? sandboxHint(p) : null,
    p.fCode.wrap,
    loginBtn,
    p.result,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void submitLogin(p, loginBtn, params);
  });
  page(
    "Log in",
    h("p", {}, "Log in with your phone number: we send you a one-time code. A new phone number opens a new account."),
    form,
  );
}
