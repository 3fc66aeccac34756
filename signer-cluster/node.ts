// One FROST signer node: its own process, its own port, its own directory and share file, sealed under its
// own key (MPC_SEAL_KEY or MPC_SEAL_KEY_FILE; required with EXCHANGE_MODE=production). Start with
//   tsx signer-cluster/node.ts --node-index 1 --node-port 4101 --data-dir .data/mpc/node-1 --seal-key-file <file> \
//     --home-chain-id 31337 --home-rpc-url http://127.0.0.1:8545 --vault-address 0x.. \
//     --remote-chain-id 31338 --remote-rpc-url http://127.0.0.1:8546 --minter-address 0x..
// (or the same as MPC_* environment variables). Prints one JSON line {"msg":"listening","port":N}.
//
// Endpoints (JSON; errors are {error:{code,message,details}}):
//   GET  /health             index, epoch, group key, configuration state
//   GET  /v1/key             public key package of the current epoch (404 NO_KEY before the DKG)
//   POST /v1/dkg/round1      {sessionId, epoch, threshold, participants}
//   POST /v1/dkg/round2      {sessionId, round1: Round1Message[]}
//   POST /v1/dkg/round3      {sessionId, round2: Round2Message[]}
//   POST /v1/dkg/commit      {sessionId, groupPublicKey}
//   POST /v1/sign/commit     {request: {kind, srcChainId, nonce, blockNumber?, txHash?}}
//   POST /v1/sign/share      {commitmentId, epoch, request, commitments: [{index, hiding, binding}]}
import type { Server } from "node:http";
import pino from "pino";
import { describeGroupKey } from "../sdk/frost";
import { argsToEnv, loadNodeConfig, type NodeConfig } from "./config";
import { createDkgParticipant } from "./dkg-participant";
import { MpcError } from "./errors";
import { createJsonServer, runAsProgram, serverLifecycle, type Logger } from "./http";
import { publicView, readShare, shareFilePath, writeShare, type StoredShare } from "./share-store";
import { createSigningService } from "./signing-service";
import { createSourceEventVerifier } from "./source-events";
import { createSecretBox } from "../runtime/secret-box";

export function createSignerNode({ config, logger }: { config: NodeConfig; logger: Logger }) {
  const box = createSecretBox(config.sealKeyHex);
  let share: StoredShare | undefined = readShare(config.dataDir, config.index, box, (clearFile) =>
    logger.warn({ clearFile }, "a clear share of an older version was sealed and its clear file removed"),
  );
  if (share && (share.threshold !== config.threshold || share.participants !== config.participants))
    throw new Error(
      `${shareFilePath(config.dataDir, config.index)} is a ${share.threshold}-of-${share.participants} share`,
    );

  const dkg = createDkgParticipant({
    index: config.index,
    threshold: config.threshold,
    participants: config.participants,
    currentEpoch: () => share?.epoch ?? 0,
    activate: (next) => {
      writeShare(config.dataDir, next, box);
      share = next;
      logger.info({ epoch: next.epoch, groupPublicKey: next.groupPublicKey }, "key share activated");
    },
  });
  const signing = createSigningService({
    index: config.index,
    getShare: () => share,
    verifier: createSourceEventVerifier(config.chains),
    nonceTtlMs: config.nonceTtlMs,
    maxOutstanding: config.maxOutstandingNonces,
    fault: config.fault,
  });

  const server: Server = createJsonServer(
    {
      "GET /health": () => ({
        status: "ok",
        index: config.index,
        threshold: config.threshold,
        participants: config.participants,
        epoch: share?.epoch ?? 0,
        groupPublicKey: share ? describeGroupKey(share.groupPublicKey) : null,
        confirmations: config.chains.confirmations,
        configured: { home: config.chains.home ?? null, remote: config.chains.remote ?? null },
        outstandingCommitments: signing.outstandingCount(),
      }),
      "GET /v1/key": () => {
        if (!share) throw new MpcError("NO_KEY", "no key share yet: run the DKG");
        return publicView(share);
      },
      "POST /v1/dkg/round1": (b) => dkg.round1(b),
      "POST /v1/dkg/round2": (b) => dkg.round2(b),
      "POST /v1/dkg/round3": (b) => dkg.round3(b),
      "POST /v1/dkg/commit": (b) => dkg.commit(b),
      "POST /v1/sign/commit": (b) => signing.commit(b),
      "POST /v1/sign/share": (b) => signing.sign(b),
    },
    logger,
  );
  server.keepAliveTimeout = 30_000;

  return {
    server,
    ...serverLifecycle(server, config, (port) =>
      logger.info({ index: config.index, port, epoch: share?.epoch ?? 0 }, "listening"),
    ),
  };
}

if (require.main === module) {
  const config = loadNodeConfig({ ...process.env, ...argsToEnv(process.argv.slice(2)) });
  const logger = pino({ base: { node: config.index } });
  const node = createSignerNode({ config, logger });
  runAsProgram(node, logger);
}
