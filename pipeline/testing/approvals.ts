// Agent approvals for relayer tests: a wallet's signature approving a fresh agent key.
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { signAgentApproval, type SettlementDomain } from "../../sdk/eip712";

/** `wallet` approves a fresh agent until `nowSec` + `expirySec` (default a day), the signature good for an
 *  hour after `nowSec` (a block's timestamp). */
export async function freshAgentApproval(
  wallet: PrivateKeyAccount,
  domain: SettlementDomain,
  nowSec: bigint,
  o: { nonce?: bigint; expirySec?: bigint } = {},
) {
  const message = {
    trader: wallet.address,
    agent: privateKeyToAccount(generatePrivateKey()).address,
    expiry: nowSec + (o.expirySec ?? 86_400n),
    nonce: o.nonce ?? 0n,
    deadline: nowSec + 3600n,
  };
  return { message, signature: await signAgentApproval(wallet, domain, message) };
}
