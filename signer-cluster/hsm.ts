// HSM stand-in: a separate signer service with its own secp256k1 key (persisted in its own data dir, 0600,
// sealed under its key MPC_SEAL_KEY / MPC_SEAL_KEY_FILE as a signer node's share is; a clear key file of
// an older version, hsm-key.json here or in the parent directory, is sealed on first start and removed)
// that co-signs large RELEASES with plain ECDSA over the same bridge digest the FROST group signs
// (65 bytes r||s||v, low-s, v in {27,28}, no EIP-191 prefix: the vault calls ecrecover on the digest).
// Like a signer node it is handed only a reference to the burn, finds it on chain itself, and refuses
// amounts below its configured minimum. It never co-signs mints.
//   tsx signer-cluster/hsm.ts --hsm-port 4199 --data-dir .data/mpc/hsm --seal-key-file <file> --hsm-min-amount-wei 0 <chain flags as node.ts>
// Endpoints: GET /health {address, minAmountWei, ...}; POST /v1/cosign {request, keyEpoch}
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import pino from "pino";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { z } from "zod";
import { argsToEnv, loadHsmConfig, type HsmConfig } from "./config";
import { MpcError } from "./errors";
import { createJsonServer, hexBytes, runAsProgram, serverLifecycle, uintString, type Logger } from "./http";
import { createSourceEventVerifier, messageToJson, signingRequestSchema } from "./source-events";
import { createSecretBox, type SecretBox } from "../runtime/secret-box";

export const cosignSchema = z
  .object({
    request: signingRequestSchema,
    /** the FROST key epoch the release will be submitted under (it is part of the digest) */
    keyEpoch: uintString,
  })
  .strict();

const keyFileSchema = z.object({ privateKey: hexBytes(32), address: z.string() });
const sealedKeySchema = z.object({ version: z.literal(2), address: z.string(), sealed: z.string() }).strict();
const HSM_AAD = "bridge-hsm-key";

export const hsmKeyFile = (dataDir: string) => join(dataDir, "hsm-key.sealed.json");
/** where older versions kept the key in clear: this directory, or its parent (the former shared one) */
export const legacyHsmKeyFiles = (dataDir: string) => [
  join(dataDir, "hsm-key.json"),
  join(dirname(dataDir), "hsm-key.json"),
];

/** The HSM's key, sealed in `dataDir` under `box`; made on first start, or sealed from an older clear file. */
export function loadOrCreateHsmKey(
  dataDir: string,
  box: SecretBox,
  onMigrate?: (clearFile: string) => void,
): PrivateKeyAccount {
  const file = hsmKeyFile(dataDir);
  if (existsSync(file)) {
    const { sealed } = sealedKeySchema.parse(JSON.parse(readFileSync(file, "utf8")));
    let privateKey: string;
    try {
      privateKey = box.open(sealed, HSM_AAD);
    } catch {
      throw new Error(`${file} does not open with the HSM's key (MPC_SEAL_KEY): the wrong key`);
    }
    return privateKeyToAccount(hexBytes(32).parse(privateKey) as `0x${string}`);
  }
  const legacy = legacyHsmKeyFiles(dataDir).find((f) => existsSync(f));
  const privateKey = legacy
    ? (keyFileSchema.parse(JSON.parse(readFileSync(legacy, "utf8"))).privateKey as `0x${string}`)
    : generatePrivateKey();
  const account = privateKeyToAccount(privateKey);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(
    tmp,
    JSON.stringify({ version: 2, address: account.address, sealed: box.seal(privateKey, HSM_AAD) }, null, 2),
    { mode: 0o600 },
  );
  renameSync(tmp, file);
  if (legacy) {
    rmSync(legacy);
    onMigrate?.(legacy);
  }
  return account;
}

export function createHsm({ config, logger }: { config: HsmConfig; logger: Logger }) {
  const account = loadOrCreateHsmKey(config.dataDir, createSecretBox(config.sealKeyHex), (clearFile) =>
    logger.warn({ clearFile }, "a clear HSM key of an older version was sealed and its clear file removed"),
  );
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
        if (request.kind !== "RELEASE")
          throw new MpcError("HSM_KIND_UNSUPPORTED", "the HSM co-signs releases only", { kind: request.kind });
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
    ...serverLifecycle(server, config, (port) => logger.info({ port, address: account.address }, "listening")),
  };
}

if (require.main === module) {
  const config = loadHsmConfig({ ...process.env, ...argsToEnv(process.argv.slice(2)) });
  const logger = pino({ base: { service: "hsm" } });
  const hsm = createHsm({ config, logger });
  runAsProgram(hsm, logger);
}
