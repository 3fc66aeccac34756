// The API-key form's rules, pure (tested in node): the permissions on offer and the creation body, or each
// refusal in words; and the shapes of a created key and of the agent approval the wallet signs.
import { parseDecimal } from "../../sdk/decimal";
import type { AgentApprovalRequest } from "../../sdk/api-keys";
import type { ApiKey } from "./api";

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

export type KeyBody = { label?: string; permissions: string[]; position_limit?: string; daily_loss_limit?: string };

export type KeyFormResult =
  | { ok: true; body: KeyBody }
  | { ok: false; errors: Partial<Record<"label" | "permissions" | "positionLimit" | "dailyLossLimit", string>> };

export const LABEL_MAX = 64;

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

export type CreatedKey = ApiKey & { api_secret: string; agent_approval: AgentApprovalRequest };

/** The agent approval as the page shows it before the wallet signs it. */
export function approvalText(a: AgentApprovalRequest): string {
  const m = a.message;
  return [
    `AgentApproval, EIP-712 "${String(a.domain.name)}" v${String(a.domain.version)}, chain ${String(a.domain.chainId)}, contract ${String(a.domain.verifyingContract)}`,
    `${a.primaryType} {`,
    `  trader:   ${m.trader}`,
    `  agent:    ${m.agent} (the key's agent)`,
    `  expiry:   ${m.expiry} (${new Date(Number(m.expiry) * 1000).toISOString()})`,
    `  nonce:    ${m.nonce}`,
    `  deadline: ${m.deadline} (${new Date(Number(m.deadline) * 1000).toISOString()})`,
    `}`,
  ].join("\n");
}
