// HSM stand-in: a separate signer service with its own secp256k1 key (persisted in its data dir, 0600)
// that co-signs large RELEASES with plain ECDSA over the same bridge digest the FROST group signs
// (65 bytes r||s||v, low-s, v in {27,28}, no EIP-191 prefix: the vault calls ecrecover on the digest).
// Like a signer node it is handed only a reference to the burn, finds it on chain itself, and refuses
// amounts below its configured minimum. It never co-signs mints.
//   tsx signer-cluster/hsm.ts --hsm-port 4199 --data-dir .data/mpc --hsm-min-amount-wei 0 <chain flags as node.ts>
// Endpoints: GET /health {address, minAmountWei, ...}; POST /v1/cosign {request, keyEpoch}
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { z } from "zod";
import { argsToEnv, loadHsmConfig, type HsmConfig } from "./config";
import { MpcError } from "./errors";
import { createJsonServer, hexBytes, listen, uintString, type Logger } from "./http";
import { createSourceEventVerifier, messageToJson, signingRequestSchema } from "./source-events";

export const cosignSchema = z
  .object({
    request: signingRequestSchema,
    /** the FROST key epoch the release will be submitted under (it is part of the digest) */
    keyEpoch: uintString,
  })
  .strict();

const keyFileSchema = z.object({ privateKey: hexBytes(32), address: z.string() });

export function loadOrCreateHsmKey(dataDir: string): PrivateKeyAccount {
  const file = join(dataDir, "hsm-key.json");
  if (existsSync(file)) return privateKeyToAccount(keyFileSchema.parse(JSON.parse(readFileSync(file, "utf8"))).privateKey as `0x${string}`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const privateKey = generatePrivateKey();
  const account = privateKeyToAccount(privateKey);
  writeFileSync(file, JSON.stringify({ privateKey, address: account.address }, null, 2), { mode: 0o600 });
  return account;
}

export function createHsm({ config, logger }: { config: HsmConfig; logger: Logger }) {
  const account = loadOrCreateHsmKey(config.dataDir);
  const verifier = createSourceEventVerifier(config.chains);
  const server = createJsonServer(
    {
      "GET /health": () => ({
        status: "ok",
        address: account.address,
        publicKey: account.publicKey,
        minAmountWei: config.minAmountWei.toString(),
        kinds: ["RELEASE"],
        confirmations: config.chains.confirmations,
      }),
      "POST /v1/cosign": async (body) => {
        const { request, keyEpoch } = cosignSchema.parse(body);
        if (request.kind !== "RELEASE") throw new MpcError("HSM_KIND_UNSUPPORTED", "the HSM co-signs releases only", { kind: request.kind });
        const event = await verifier.verify(request, keyEpoch);
        if (event.message.amountWei < config.minAmountWei)
          throw new MpcError("HSM_AMOUNT_BELOW_THRESHOLD", "amount below the HSM co-signing threshold", {
            amountWei: event.message.amountWei.toString(),
            minAmountWei: config.minAmountWei.toString(),
          });
        const signature = await account.sign({ hash: event.digest });
        logger.info({ nonce: String(request.nonce), digest: event.digest }, "co-signed release");
        return { digest: event.digest, signature, signer: account.address, message: messageToJson(event.message) };
      },
    },
    logger,
  );
  return {
    address: account.address,
    async start() {
      const port = await listen(server, config.port, config.host);
      logger.info({ port, address: account.address }, "listening");
      return port;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (require.main === module) {
  const config = loadHsmConfig({ ...process.env, ...argsToEnv(process.argv.slice(2)) });
  const logger = pino({ base: { service: "hsm" } });
  const hsm = createHsm({ config, logger });
  hsm.start().catch((err) => {
    logger.error({ err: String(err) }, "cannot start");
    process.exit(1);
  });
  const shutdown = () => hsm.stop().then(() => process.exit(0));
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}
