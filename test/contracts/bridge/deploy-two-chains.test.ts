// scripts/deploy-bridge.ts against two real `hardhat node` processes (chain ids 31337 and 31338), then a full
// round trip across them with real FROST signatures: here the MINT and RELEASE digests bind two different
// chain ids, as in production.
import { expect } from "chai";
import hre from "hardhat";
import { createPublicClient, createWalletClient, http, type Abi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { spawnHardhatNode, type HardhatNodeProcess } from "../../../scripts/chain/node-process";
import { loadArtifact } from "../../../scripts/artifacts";
import { deployBridge, type BridgeDeployment } from "../../../scripts/deploy-bridge";
import { BridgeMessageKind, getBridgeMessageDigest } from "../../../sdk/bridge-message";
import { createFrostGroup, frostSign } from "./helpers/frost";

const DEPLOYER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80" as Hex; // hardhat #0
const USER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9c86dae88c7a8412f4603b6b78690d" as Hex; // hardhat #1

describe("deployBridge on two chains", function () {
  this.timeout(240_000);
  const nodes: HardhatNodeProcess[] = [];
  let d: BridgeDeployment;
  const group = createFrostGroup();
  const hsm = privateKeyToAccount("0x1111111111111111111111111111111111111111111111111111111111111111");
  const artifactsDir = hre.config.paths.artifacts;
  const artifactOf = (name: "BridgeVault" | "BridgeMinter" | "BridgeTestToken") => loadArtifact(name, artifactsDir);
  let clients: any;

  before(async () => {
    const now = Math.floor(Date.now() / 1000);
    nodes.push(
      ...(await Promise.all([31337, 31338].map((chainId) => spawnHardhatNode({ chainId, genesisTimestampS: now })))),
    );
    const mk = (url: string, id: number) => {
      const chain = {
        id,
        name: `c${id}`,
        nativeCurrency: { name: "ETH", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [url] } },
      } as const;
      return {
        pub: createPublicClient({ chain, transport: http(url) }),
        user: createWalletClient({ chain, transport: http(url), account: privateKeyToAccount(USER_KEY) }),
        admin: createWalletClient({ chain, transport: http(url), account: privateKeyToAccount(DEPLOYER_KEY) }),
      };
    };
    clients = { home: mk(nodes[0].rpcUrl, 31337), remote: mk(nodes[1].rpcUrl, 31338) };
    for (const c of [clients.home, clients.remote]) {
      const hash = await c.admin.sendTransaction({ to: c.user.account.address, value: 10n ** 19n });
      await c.pub.waitForTransactionReceipt({ hash });
    }
    const token = artifactOf("BridgeTestToken");
    const hash = await clients.home.admin.deployContract({
      abi: token.abi,
      bytecode: token.bytecode,
      args: ["Demo USD", "USD", 6],
    });
    const usd = (await clients.home.pub.waitForTransactionReceipt({ hash })).contractAddress as Address;

    d = await deployBridge({
      homeRpcUrl: nodes[0].rpcUrl,
      remoteRpcUrl: nodes[1].rpcUrl,
      deployerKey: DEPLOYER_KEY,
      groupPublicKey: group.publicKey,
      hsmAddress: hsm.address,
      guardianSafeOwners: [
        privateKeyToAccount(DEPLOYER_KEY).address,
        privateKeyToAccount(USER_KEY).address,
        hsm.address,
      ],
      tokens: [{ address: usd, symbol: "USD", decimals: 6 }],
      challengePeriodSec: 600,
      dailyLimits: { USD: 10n ** 12n },
      hsmThreshold: { USD: 10n ** 11n },
      artifactsDir,
    });
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  });

  it("wires vault and minter both ways and hands every role to the Safes", async () => {
    const vault = artifactOf("BridgeVault").abi;
    const minter = artifactOf("BridgeMinter").abi;
    const [m, remoteChainId, hsmAddr] = (await clients.home.pub.readContract({
      address: d.home.vault,
      abi: vault,
      functionName: "wiring",
    })) as [Address, bigint, Address];
    expect(m).to.equal(d.remote.minter);
    expect(remoteChainId).to.equal(31338n);
    expect(hsmAddr).to.equal(hsm.address);
    const [v, homeChainId] = (await clients.remote.pub.readContract({
      address: d.remote.minter,
      abi: minter,
      functionName: "wiring",
    })) as [Address, bigint];
    expect(v).to.equal(d.home.vault);
    expect(homeChainId).to.equal(31337n);
    /** whether `who` holds DEFAULT_ADMIN_ROLE on `address` */
    const isAdmin = (pub: typeof clients.home.pub, address: Address, abi: Abi, who: Address) =>
      pub.readContract({ address, abi, functionName: "hasRole", args: [`0x${"00".repeat(32)}`, who] });
    expect(await isAdmin(clients.home.pub, d.home.vault, vault, d.home.safe)).to.equal(true);
    expect(await isAdmin(clients.home.pub, d.home.vault, vault, privateKeyToAccount(DEPLOYER_KEY).address)).to.equal(
      false,
    );
    expect(await isAdmin(clients.remote.pub, d.remote.minter, minter, d.remote.safe)).to.equal(true);
    expect(d.keyEpoch).to.equal(1);
  });

  it("deposit on 31337 -> mint on 31338 -> burn -> release on 31337, balances exact", async () => {
    const vault = artifactOf("BridgeVault").abi;
    const minter = artifactOf("BridgeMinter").abi;
    const erc20 = artifactOf("BridgeTestToken").abi;
    const { home, remote } = clients;
    const user = home.user.account.address as Address;
    const usd = d.home.tokens.USD;
    const wrapped = d.remote.wrappedTokens.USD;
    const send = async (c: any, address: Address, abi: Abi, functionName: string, args: unknown[]) => {
      const hash = await c.user.writeContract({ address, abi, functionName, args });
      const r = await c.pub.waitForTransactionReceipt({ hash });
      expect(r.status).to.equal("success");
    };
    const amount = 5_000_000n;
    await send(home, usd, erc20, "mint", [user, amount]);
    await send(home, usd, erc20, "approve", [d.home.vault, amount]);
    await send(home, d.home.vault, vault, "deposit", [usd, amount, user, 31338n]);
    /** transfer 1 of `amount` USD to `user`, from `src` on one chain to `dst` on the other */
    const transfer = (kind: BridgeMessageKind, src: Address, srcChainId: bigint, dst: Address, dstChainId: bigint) => ({
      kind,
      srcChainId,
      srcContract: src,
      dstChainId,
      dstContract: dst,
      nonce: 1n,
      token: usd,
      recipient: user,
      amountWei: amount,
      keyEpoch: 1n,
    });
    const mintMsg = transfer(BridgeMessageKind.MINT, d.home.vault, 31337n, d.remote.minter, 31338n);
    // a signature over the home chain's id as destination is refused on the remote chain
    const sign = (m: typeof mintMsg) => frostSign(group, getBridgeMessageDigest(m));
    const wrongChain = sign({ ...mintMsg, dstChainId: 31337n });
    const refused = await remote.user
      .writeContract({
        address: d.remote.minter,
        abi: minter,
        functionName: "mint",
        args: [1n, usd, user, amount, wrongChain],
      })
      .then(
        () => "sent",
        (e: Error) => e.message,
      );
    expect(refused).to.match(/BridgeSignatureInvalid/);
    await send(remote, d.remote.minter, minter, "mint", [1n, usd, user, amount, sign(mintMsg)]);
    expect(
      await remote.pub.readContract({ address: wrapped, abi: erc20, functionName: "balanceOf", args: [user] }),
    ).to.equal(amount);

    await send(remote, d.remote.minter, minter, "burn", [wrapped, amount, user]);
    const relMsg = transfer(BridgeMessageKind.RELEASE, d.remote.minter, 31338n, d.home.vault, 31337n);
    await send(home, d.home.vault, vault, "queueRelease", [1n, usd, user, amount, sign(relMsg), "0x"]);
    await home.pub.request({ method: "evm_increaseTime" as any, params: [600] as any });
    await home.pub.request({ method: "evm_mine" as any, params: [] as any });
    await send(home, d.home.vault, vault, "executeRelease", [1n, usd, user, amount]);
    expect(await home.pub.readContract({ address: usd, abi: erc20, functionName: "balanceOf", args: [user] })).to.equal(
      amount,
    );
    expect(
      await home.pub.readContract({ address: usd, abi: erc20, functionName: "balanceOf", args: [d.home.vault] }),
    ).to.equal(0n);
    expect(await remote.pub.readContract({ address: wrapped, abi: erc20, functionName: "totalSupply" })).to.equal(0n);
  });
});
