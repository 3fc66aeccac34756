// Sandbox endpoints (spec 5.5: every compliance path can be exercised): set KYC / KYB state, self-certify
// as a 506(b) accredited investor, complete a simulated third-party 506(c) verification. Mounted only when
// EXCHANGE_MODE=sandbox; in production these paths answer 404 ROUTE_NOT_FOUND like any unknown path.
// Each acts on the caller's account, or on `accountId` of the caller's organization (another
// organization's id: 404 ACCOUNT_NOT_FOUND, nothing changes).
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { validationError } from "../../errors";
import { KYC_STATUSES, type AccountRecord } from "../accounts";
import { accountOf, scopeOf } from "../authenticate";
import { ExchangeApiError } from "../errors";
import { presentAccount, type AccountRouteDeps } from "./account";

const target = { accountId: z.string().max(64).optional() };
export const kycBody = z
  .object({ ...target, kind: z.enum(["kyc", "kyb"]).default("kyc"), status: z.enum(KYC_STATUSES) })
  .strict();
export const selfCertifyBody = z.object({ ...target }).strict();
export const verificationBody = z.object({ ...target, outcome: z.enum(["pending", "verified", "rejected"]) }).strict();

function parse<T>(schema: z.ZodType<T>, req: Request): T {
  const r = schema.safeParse(req.body ?? {});
  if (!r.success) throw validationError(r.error, "body");
  return r.data;
}

export function sandboxRouter(deps: AccountRouteDeps): Router {
  const r = Router();
  const targetOf = (res: Response, accountId: string | undefined) => accountId ?? accountOf(res).id;
  const answer = async (res: Response, a: AccountRecord | null) => {
    if (!a) throw new ExchangeApiError("ACCOUNT_NOT_FOUND", "account not found");
    res.json({ data: await presentAccount(a, deps.custody, deps.cashDecimals, deps.openBuyHolds), message: "updated" });
  };
  r.post("/sandbox/kyc", deps.auth, async (req, res) => {
    const b = parse(kycBody, req);
    await answer(res, await deps.accounts.setKyc(scopeOf(res), targetOf(res, b.accountId), b.kind, b.status));
  });
  r.post("/sandbox/accreditation/506b", deps.auth, async (req, res) => {
    const b = parse(selfCertifyBody, req);
    await answer(
      res,
      await deps.accounts.applyAccreditation(scopeOf(res), targetOf(res, b.accountId), { kind: "506b_self_certified" }),
    );
  });
  r.post("/sandbox/accreditation/506c", deps.auth, async (req, res) => {
    const b = parse(verificationBody, req);
    await answer(
      res,
      await deps.accounts.applyAccreditation(scopeOf(res), targetOf(res, b.accountId), {
        kind: "506c_verification",
        outcome: b.outcome,
      }),
    );
  });
  return r;
}
