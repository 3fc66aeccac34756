// Gas of the bridge contracts with real FROST(secp256k1, SHA-256) 3-of-5 signatures, on Hardhat's in-process
// network: `npx hardhat run bench/bridge/gas.ts` (HARDHAT_AREA=bridge works too), or import measureBridgeGas()
// from the bridge bench. Totals are whole-transaction gasUsed (21,000 intrinsic and calldata included).
import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { keccak256, toHex, type Hex } from "viem";
import { BridgeMessageKind, getBridgeMessageDigest, type BridgeMessage } from "../../sdk/bridge-message";
import { frostSignatureToSolidity, groupPublicKeyToXY } from "../../sdk/frost-solidity";

export const GAS_TARGETS = { frostVerify: 10_000n, mint: 80_000n, queueRelease: 80_000n } as const;

export interface BridgeGasFigures {
  /** FrostSecp256k1Verifier.verify alone (key in memory, challenge hash + ecrecover check) */
  frostVerifyLibrary: bigint;
  /** the signature check mint/release pay in the native mode: cold read of the cached FROST key x + inline verify */
  signatureCheckPaid: bigint;
  /** isValidBridgeSignature() on the cold BridgeFrostVerifier (what the ERC-1271 modes' path costs with FROST) */
  signatureCheckCall: bigint;
  /** mint to a recipient who already holds the wrapped token, nonce bitmap word already used (steady state) */
  mintRepeatRecipient: bigint;
  /** mint to a recipient who never held the wrapped token (ERC-20 balance slot created: +17,100 inherent) */
  mintFreshRecipient: bigint;
  /** queueRelease below the HSM threshold */
  queueRelease: bigint;
  /** queueRelease at or above the HSM threshold (ECDSA co-signature checked too) */
  queueReleaseWithHsm: bigint;
  executeRelease: bigint;
  /** deposit by an account that deposited before */
  deposit: bigint;
  /** burn of wrapped tokens */
  burn: bigint;
}

async function frostGroup() {
  const { secp256k1_FROST } = await import("@noble/curves/secp256k1.js");
  const ids = [1, 2, 3, 4, 5].map((i) => secp256k1_FROST.Identifier.fromNumber(i));
  const deal = secp256k1_FROST.trustedDealer({ min: 3, max: 5 }, ids);
  const sign = (digest: Hex): Hex => {
    const msg = Buffer.from(digest.slice(2), "hex");
    const signers = ids.slice(0, 3);
    const sessions = signers.map((id) => ({ id, ...secp256k1_FROST.commit(deal.secretShares[id]) }));
    const list = sessions.map((s) => s.commitments);
    const shares: Record<string, Uint8Array> = {};
    for (const s of sessions)
      shares[s.id] = secp256k1_FROST.signShare(deal.secretShares[s.id], deal.public, s.nonces, list, msg);
    return frostSignatureToSolidity(secp256k1_FROST.aggregate(deal.public, list, msg, shares));
  };
  return { publicKey: groupPublicKeyToXY(deal.public.commitments[0]), sign };
}

/** Called with the transaction hash of each measured transaction (bench/bridge/profile.ts traces them). */
export type BridgeTxObserver = (label: keyof BridgeGasFigures, txHash: string) => Promise<void> | void;

export async function measureBridgeGas(
  hreArg?: HardhatRuntimeEnvironment,
  observe?: BridgeTxObserver,
): Promise<BridgeGasFigures> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const hre: HardhatRuntimeEnvironment = hreArg ?? require("hardhat");
  await hre.run("compile", { quiet: true });
  const bench = await deployBridge(hre, observe);
  // in this order: each phase spends what the one before it set up (deposits before mints before burns)
  const { frostVerifyLibrary, signatureCheckPaid, signatureCheckCall } = await measureVerification(bench);
  const { deposit, mintRepeatRecipient, mintFreshRecipient } = await measureDepositsAndMints(bench);
  const { burn, queueRelease, queueReleaseWithHsm, executeRelease } = await measureBurnsAndReleases(bench);
  return {
    frostVerifyLibrary,
    signatureCheckPaid,
    signatureCheckCall,
    mintRepeatRecipient,
    mintFreshRecipient,
    queueRelease,
    queueReleaseWithHsm,
    executeRelease,
    deposit,
    burn,
  };
}

/** The deployed bridge, its actors and signing keys, and the gas meter every phase uses. */
interface GasBench {
  ethers: any;
  actors: { admin: any; alice: any; bob: any; carol: any; relayer: any };
  hsm: any;
  group: Awaited<ReturnType<typeof frostGroup>>;
  chainId: bigint;
  contracts: { harness: any; verifier: any; vault: any; minter: any; wrapped: any };
  addr: { token: Hex; vault: Hex; minter: Hex };
  gasOf(p: Promise<any>, label?: keyof BridgeGasFigures): Promise<bigint>;
}

async function deployBridge(hre: HardhatRuntimeEnvironment, observe?: BridgeTxObserver): Promise<GasBench> {
  const { ethers } = hre as any;
  const [admin, alice, bob, carol, relayer] = await ethers.getSigners();
  const hsm = ethers.Wallet.createRandom();
  const group = await frostGroup();
  const chainId: bigint = (await ethers.provider.getNetwork()).chainId;
  const deploy = async (name: string, ...args: unknown[]) => (await ethers.getContractFactory(name)).deploy(...args);
  const harness = await deploy("BridgeFrostVerifierHarness");
  const verifier = await deploy("BridgeFrostVerifier", 1n, group.publicKey.x, group.publicKey.y);
  const token = await deploy("BridgeTestToken", "Demo USD", "USD", 6);
  const vault = await deploy("BridgeVault", admin.address, await verifier.getAddress(), chainId, hsm.address, 3600);
  const minter = await deploy("BridgeMinter", admin.address, await verifier.getAddress(), chainId);
  const addr = {
    token: (await token.getAddress()) as Hex,
    vault: (await vault.getAddress()) as Hex,
    minter: (await minter.getAddress()) as Hex,
  };
  const limit = 10n ** 15n;
  await (await vault.setMinter(addr.minter)).wait();
  await (await minter.setVault(addr.vault)).wait();
  await (await vault.configureToken(addr.token, true, limit, 10n ** 12n, limit, 86_400)).wait();
  await (await minter.createWrappedToken(addr.token, "Bridged Demo USD", "USD.b", 6, limit, 86_400)).wait();
  const wrapped = await ethers.getContractAt("BridgeWrappedToken", await minter.wrappedTokenOf(addr.token));
  await (await token.mint(alice.address, limit)).wait();
  await (await token.connect(alice).approve(addr.vault, ethers.MaxUint256)).wait();
  return {
    ethers,
    actors: { admin, alice, bob, carol, relayer },
    hsm,
    group,
    chainId,
    contracts: { harness, verifier, vault, minter, wrapped },
    addr,
    async gasOf(p, label) {
      const receipt = await (await p).wait();
      if (label && observe) await observe(label, receipt.hash);
      return BigInt(receipt.gasUsed);
    },
  };
}

/** The message a signer would sign for this bench's deployment (MINT: kind 0, RELEASE: kind 1). */
function benchMessage(b: GasBench, kind: 0 | 1, nonce: bigint, recipient: string, amountWei: bigint): BridgeMessage {
  return {
    kind,
    srcChainId: b.chainId,
    srcContract: kind === BridgeMessageKind.MINT ? b.addr.vault : b.addr.minter,
    dstChainId: b.chainId,
    dstContract: kind === BridgeMessageKind.MINT ? b.addr.minter : b.addr.vault,
    nonce,
    token: b.addr.token,
    recipient: recipient as Hex,
    amountWei,
    keyEpoch: 1n,
  };
}

/** The signature check alone: the library, a cold verifier call, and the cached key as mint/release pay it. */
async function measureVerification({ contracts: { harness, verifier }, group }: GasBench) {
  const digest = keccak256(toHex("bench"));
  const sig = group.sign(digest);
  const [ok1, frostVerifyLibrary] = await harness.measureVerify(
    group.publicKey.x,
    group.publicKey.y % 2n === 1n,
    digest,
    sig,
  );
  const [ok2, signatureCheckCall] = await harness.measureVerifierCall(await verifier.getAddress(), digest, sig);
  if (!ok1 || !ok2) throw new Error("bench signature did not verify");
  await (await harness.install(await verifier.getAddress(), 1n)).wait();
  const [mode, signatureCheckPaid] = await harness.measureInstalledCheck(digest, sig);
  if (mode === 0n) throw new Error("the native verifier was not recognised: its key is not cached");
  return { frostVerifyLibrary, signatureCheckPaid, signatureCheckCall };
}

const AMOUNT = 1_000n * 10n ** 6n;

/** Deposits 1..3 on the vault, then their mints: bob's second (steady state) and carol's first. */
async function measureDepositsAndMints(b: GasBench) {
  const { vault, minter } = b.contracts;
  const { alice, bob, carol, relayer } = b.actors;
  const { addr, chainId } = b;
  const mint = (nonce: bigint, to: string, a: bigint, label?: keyof BridgeGasFigures) =>
    b.gasOf(
      minter
        .connect(relayer)
        .mint(nonce, addr.token, to, a, b.group.sign(getBridgeMessageDigest(benchMessage(b, 0, nonce, to, a)))),
      label,
    );
  await (await vault.connect(alice).deposit(addr.token, AMOUNT, bob.address, chainId)).wait(); // nonce 1
  const deposit = await b.gasOf(vault.connect(alice).deposit(addr.token, AMOUNT, bob.address, chainId)); // nonce 2
  await (await vault.connect(alice).deposit(addr.token, AMOUNT, carol.address, chainId)).wait(); // nonce 3
  await mint(1n, bob.address, AMOUNT); // bob holds wrapped now, bitmap word used
  const mintRepeatRecipient = await mint(2n, bob.address, AMOUNT, "mintRepeatRecipient");
  const mintFreshRecipient = await mint(3n, carol.address, AMOUNT, "mintFreshRecipient");
  return { deposit, mintRepeatRecipient, mintFreshRecipient };
}

/** Burns 1..2 of bob's wrapped tokens, their releases (below and at the HSM threshold), and one execution. */
async function measureBurnsAndReleases(b: GasBench) {
  const { vault, minter, wrapped } = b.contracts;
  const { alice, bob, relayer } = b.actors;
  const { addr, ethers, hsm } = b;
  await (await minter.connect(bob).burn(await wrapped.getAddress(), AMOUNT, alice.address)).wait(); // burn 1
  const burn = await b.gasOf(minter.connect(bob).burn(await wrapped.getAddress(), AMOUNT / 2n, alice.address), "burn"); // burn 2
  const release = (nonce: bigint, a: bigint, withHsm: boolean) => {
    const d = getBridgeMessageDigest(benchMessage(b, 1, nonce, alice.address, a));
    const tx = vault
      .connect(relayer)
      .queueRelease(
        nonce,
        addr.token,
        alice.address,
        a,
        b.group.sign(d),
        withHsm ? hsm.signingKey.sign(d).serialized : "0x",
      );
    return b.gasOf(tx, withHsm ? "queueReleaseWithHsm" : "queueRelease");
  };
  const queueRelease = await release(1n, AMOUNT, false);
  const queueReleaseWithHsm = await release(2n, 10n ** 12n, true);
  await ethers.provider.send("evm_increaseTime", [3600]);
  await ethers.provider.send("evm_mine", []);
  const executeRelease = await b.gasOf(
    vault.connect(relayer).executeRelease(1n, addr.token, alice.address, AMOUNT),
    "executeRelease",
  );
  return { burn, queueRelease, queueReleaseWithHsm, executeRelease };
}

export function formatBridgeGas(f: BridgeGasFigures): string {
  const verdict = (v: bigint, t?: bigint) => (t === undefined ? "" : v <= t ? `PASS (<= ${t})` : `FAIL (> ${t})`);
  const rows: [string, bigint, bigint?][] = [
    ["FROST verify alone (library)", f.frostVerifyLibrary, GAS_TARGETS.frostVerify],
    ["signature check as paid (cached key, inline)", f.signatureCheckPaid, GAS_TARGETS.frostVerify],
    ["signature check via cold verifier call", f.signatureCheckCall, GAS_TARGETS.frostVerify],
    ["mint total (recipient already holds)", f.mintRepeatRecipient, GAS_TARGETS.mint],
    ["mint total (first-time recipient)", f.mintFreshRecipient, GAS_TARGETS.mint],
    ["queueRelease total (below HSM threshold)", f.queueRelease, GAS_TARGETS.queueRelease],
    ["queueRelease total (with HSM co-signature)", f.queueReleaseWithHsm, GAS_TARGETS.queueRelease],
    ["executeRelease", f.executeRelease],
    ["deposit", f.deposit],
    ["burn", f.burn],
  ];
  const lines = rows.map(([name, v, t]) => `${name.padEnd(46)} ${v.toString().padStart(8)}  ${verdict(v, t)}`);
  return ["bridge gas (whole-transaction gasUsed unless noted; real 3-of-5 FROST signatures)", ...lines].join("\n");
}

if (require.main === module) {
  measureBridgeGas()
    .then((f) => console.log(formatBridgeGas(f)))
    .catch((e) => {
      console.error(e);
      process.exitCode = 1;
    });
}
