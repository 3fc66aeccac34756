// The account page's funding form: a deposit or a withdrawal by instant bank link, ACH or wire.
import { field, h } from "../../dom";
import { call, type FundingTransfer } from "../api";
import { checkAmount, dateTimeOf, explain, methodLabel, usd } from "../model";

const METHODS: [string, string, string][] = [
  ["instant", "Instant bank link", "at once; $10 minimum, $10,000 a day"],
  ["ach", "ACH transfer", "3 business days; $10 minimum, $250,000 a day"],
  ["wire", "Wire transfer", "the same business day; $1,000 minimum"],
];

interface FundingParts {
  dir: HTMLSelectElement;
  method: HTMLSelectElement;
  amount: HTMLInputElement;
  fAmount: ReturnType<typeof field>;
  result: HTMLElement;
  submit: HTMLButtonElement;
}

function fundingParts(): FundingParts {
  const amount = h("input", { id: "fund-amount", inputmode: "decimal", autocomplete: "off" }) as HTMLInputElement;
  return {
    dir: h(
      "select",
      { id: "fund-direction" },
      h("option", { value: "deposits" }, "Deposit (add funds)"),
      h("option", { value: "withdrawals" }, "Withdraw"),
    ) as HTMLSelectElement,
    method: h(
      "select",
      { id: "fund-method" },
      ...METHODS.map(([v, l, note]) => h("option", { value: v }, `${l} (${note})`)),
    ) as HTMLSelectElement,
    amount,
    fAmount: field("Amount (USD)", amount, "dollars and cents, for example 250 or 100.50"),
    result: h("p", { class: "result", id: "fund-result", role: "status", "aria-live": "polite" }),
    submit: h("button", { type: "submit", class: "primary", id: "fund-submit" }, "Send") as HTMLButtonElement,
  };
}

const transferText = (t: FundingTransfer) =>
  `${t.type === "deposit" ? "Deposit" : "Withdrawal"} of ${usd(t.quantity)} by ${methodLabel(t.method)}: ${t.status}${
    t.status === "completed" ? "." : t.completesAt ? `, completes around ${dateTimeOf(t.completesAt)}.` : "."
  }`;

async function send(p: FundingParts, after: () => void): Promise<void> {
  p.fAmount.error.textContent = "";
  p.result.textContent = "";
  p.result.dataset.kind = "";
  const a = checkAmount(p.amount.value, "amount", { maxFraction: 2 });
  if (!a.ok) {
    p.fAmount.error.textContent = a.error;
    p.result.dataset.kind = "error";
    p.result.textContent = "Nothing was sent: correct the amount.";
    return void p.amount.focus();
  }
  p.submit.disabled = true;
  try {
    const body = { method: p.method.value, amount: a.value };
    const t = (await call<{ data: FundingTransfer }>("POST", `/${p.dir.value}`, body)).data;
    p.result.dataset.kind = "ok";
    p.result.textContent = transferText(t);
    p.amount.value = "";
    after();
  } catch (err) {
    p.result.dataset.kind = "error";
    p.result.textContent = explain(err);
  } finally {
    p.submit.disabled = false;
  }
}

export function fundingSection(after: () => void): HTMLElement {
  const p = fundingParts();
  const form = h(
    "form",
    { novalidate: true },
    field("Direction", p.dir).wrap,
    field("Method", p.method).wrap,
    p.fAmount.wrap,
    p.submit,
    p.result,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void send(p, after);
  });
  return h(
    "section",
    { class: "panel", id: "funding", "aria-labelledby": "funding-h" },
    h("h3", { id: "funding-h" }, "Add or withdraw funds"),
    form,
    h(
      "p",
      { class: "note" },
      "In the sandbox the bank is simulated; every transfer is recorded on chain. See Transactions for their status.",
    ),
  );
}
