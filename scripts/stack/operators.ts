// Extra settle operators (EXTRA_OPERATOR_ADDRESSES): each matcher partition settles with its own operator
// account (its own nonce lane). Their OPERATOR_ROLE is granted here, at provisioning time, by the
// provisioning child (the one process holding the admin key): a serving process never can.
import { createPublicClient, http, type Address } from "viem";
import { settlementAbi } from "../../sdk/abi";
import { OPERATOR_ROLE } from "../../sdk/eip712";
import { jobTarget } from "./provision-job";
import type { ProvisionContext } from "./types";

/** The addresses of `operators` that do not hold OPERATOR_ROLE on `settlement` now. */
export async function operatorsWithoutRole(
  rpcUrl: string,
  settlement: Address,
  operators: readonly Address[],
): Promise<Address[]> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const held = await Promise.all(
    operators.map(
      (a) =>
        client.readContract({
          address: settlement,
          abi: settlementAbi,
          functionName: "hasRole",
          args: [OPERATOR_ROLE, a],
        }) as Promise<boolean>,
    ),
  );
  return operators.filter((_, i) => !held[i]);
}

/** The pipeline component's provisioning: grants OPERATOR_ROLE to every configured extra operator that lacks
 *  it (read first: nothing is spawned when all hold it). */
export async function provisionExtraOperators(ctx: ProvisionContext): Promise<void> {
  const extra = ctx.config.partition.extraOperators;
  const settlement = ctx.deployments.home.contracts.Settlement as Address | undefined;
  if (extra.length === 0 || !settlement) return;
  const missing = await operatorsWithoutRole(ctx.chains.home.rpcUrl, settlement, extra);
  if (missing.length === 0) return;
  await ctx.provision({
    kind: "operators",
    ...jobTarget(ctx.config, ctx.chains),
    operators: missing,
  });
  const still = await operatorsWithoutRole(ctx.chains.home.rpcUrl, settlement, missing);
  if (still.length > 0) throw new Error(`OPERATOR_ROLE not granted to ${still.join(", ")}`);
  ctx.logger.info({ operators: missing }, "OPERATOR_ROLE granted to the extra operators");
}
