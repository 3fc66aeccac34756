// A custody-mode bridge: deployBridge's vault/minter pair (admin: the guardian Safe), then the Safe switches
// both sides to BridgeErc1271Verifier (key epoch 2) over a BridgeCustodySigner wallet whose owner is the
// custody provider's key (a local stand-in here). Same contracts, another signing mode behind the one
// verifier interface; FROST signatures of epoch 1 stop working on this pair.
import { encodeFunctionData, getAddress, type Abi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import SafeKit from "@safe-global/protocol-kit";
import { bridgeVaultAbi } from "../sdk/abi";
import { loadArtifact } from "./artifacts";
import {
  createDeployClients,
  deployBridge,
  toContractNetworks,
  type BridgeDeployment,
  type DeployBridgeOptions,
  type SafeContracts,
} from "./deploy-bridge";

export const CUSTODY_KEY_EPOCH = 2n;

export interface CustodyBridgeDeployment extends BridgeDeployment {
  custody: {
    owner: Address;
    homeWallet: Address;
    remoteWallet: Address;
    homeVerifier: Address;
    remoteVerifier: Address;
    keyEpoch: number;
  };
}

export async function deployCustodyBridge(
  opts: DeployBridgeOptions & { custodyOwner: Address },
): Promise<CustodyBridgeDeployment> {
  const base = await deployBridge(opts);
  const wallet = loadArtifact("BridgeCustodySigner", opts.artifactsDir);
  const verifier = loadArtifact("BridgeErc1271Verifier", opts.artifactsDir);

  const side = async (rpcUrl: string, target: Address, safe: Address, safeContracts: SafeContracts) => {
    const c = await createDeployClients(rpcUrl, opts.deployerKey);
    const deploy = async (a: { abi: Abi; bytecode: Hex }, args: unknown[]) => {
      const hash = await c.walletClient.deployContract({
        abi: a.abi,
        bytecode: a.bytecode,
        args,
        account: c.account,
        chain: c.walletClient.chain,
      });
      return getAddress((await c.publicClient.waitForTransactionReceipt({ hash })).contractAddress!);
    };
    const w = await deploy(wallet, [opts.custodyOwner]);
    const v = await deploy(verifier, [w, CUSTODY_KEY_EPOCH]);
    // the Safe (ROTATION_ROLE) switches the signing mode; protocol-kit signs with the deployer, an owner
    const kit = await SafeKit.init({
      provider: rpcUrl,
      signer: opts.deployerKey,
      safeAddress: safe,
      contractNetworks: toContractNetworks(c.chainId, safeContracts),
    });
    const tx = await kit.createTransaction({
      transactions: [
        {
          to: target,
          value: "0",
          data: encodeFunctionData({ abi: bridgeVaultAbi, functionName: "setVerifier", args: [v] }),
        },
      ],
    });
    const result = await kit.executeTransaction(await kit.signTransaction(tx));
    const receipt = await c.publicClient.waitForTransactionReceipt({ hash: result.hash as Hex });
    if (receipt.status !== "success") throw new Error(`Safe setVerifier on ${target} reverted`);
    return { wallet: w, verifier: v };
  };
  const home = await side(opts.homeRpcUrl, base.home.vault, base.home.safe, base.home.safeContracts);
  const remote = await side(opts.remoteRpcUrl, base.remote.minter, base.remote.safe, base.remote.safeContracts);
  return {
    ...base,
    custody: {
      owner: getAddress(opts.custodyOwner),
      homeWallet: home.wallet,
      remoteWallet: remote.wallet,
      homeVerifier: home.verifier,
      remoteVerifier: remote.verifier,
      keyEpoch: Number(CUSTODY_KEY_EPOCH),
    },
  };
}

export const custodyOwnerOf = (key: Hex) => privateKeyToAccount(key).address;
