// The sandbox bank (issue #14): SandboxFunding, a reserve of demo USD that the exchange API's funding key
// (FUNDER_ROLE, nothing else) credits into accounts' Settlement balances once per transfer id. Runs in the
// provisioning child (./provision.ts): the deployer administers the contract and, as the demo token's owner,
// mints the reserve. The serving process never holds a key that can mint.
import { parseAbi, type Address, type Hex } from "viem";
import { loadArtifact } from "../artifacts";
import { createChainClients } from "./clients";
import type { ExchangeDeployment } from "./exchange";

/** The reserve minted at provisioning: 1,000,000,000,000 demo USD (6 decimals). */
export const SANDBOX_FUNDING_RESERVE_UNITS = 1_000_000_000_000n * 10n ** 6n;

const abi = parseAbi([
  "function grantRole(bytes32 role, address account)",
  "function FUNDER_ROLE() view returns (bytes32)",
  "function mint(address to, uint256 amount)",
]);

export async function deploySandboxFunding(
  opts: { chainId: number; rpcUrl: string; deployerKey: Hex; funder: Address },
  exchange: ExchangeDeployment,
): Promise<Address> {
  const settlement = exchange.contracts.Settlement;
  const usd = exchange.tokens.USD?.address as Address | undefined;
  if (!settlement || !usd) throw new Error("sandbox funding: no Settlement or USD deployment");
  const { publicClient, wallet } = createChainClients(opts.chainId, opts.rpcUrl);
  const deployer = wallet(opts.deployerKey);
  const mined = async (hash: Hex) => {
    const r = await publicClient.waitForTransactionReceipt({ hash });
    if (r.status !== "success") throw new Error(`sandbox funding: transaction ${hash} reverted`);
    return r;
  };
  const art = loadArtifact("SandboxFunding");
  const deployed = await mined(
    await deployer.deployContract({
      abi: art.abi,
      bytecode: art.bytecode,
      args: [deployer.account.address, settlement, usd],
    }),
  );
  const funding = deployed.contractAddress as Address;
  const role = await publicClient.readContract({ address: funding, abi, functionName: "FUNDER_ROLE" });
  await mined(
    await deployer.writeContract({ address: funding, abi, functionName: "grantRole", args: [role, opts.funder] }),
  );
  await mined(
    await deployer.writeContract({
      address: usd,
      abi,
      functionName: "mint",
      args: [funding, SANDBOX_FUNDING_RESERVE_UNITS],
    }),
  );
  return funding;
}
