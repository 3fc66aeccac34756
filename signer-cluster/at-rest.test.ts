// The signers' secrets at rest (#26): each signer node's share and the HSM stand-in's key are sealed in
// their own directories under their own keys, a node or HSM with the wrong key refuses to start, production
// mode without a key refuses to start, and a clear share or HSM key of an older version is sealed on first
// start and its clear file removed. In-process; the 3-of-5 signing over sealed shares is cluster.test.ts's.
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import pino from "pino";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSecretBox, deriveKeyHex } from "../runtime/secret-box";
import { loadHsmConfig, loadNodeConfig } from "./config";
import { hsmKeyFile, loadOrCreateHsmKey } from "./hsm";
import { createSignerNode } from "./node";
import { legacyShareFiles, readShare, shareFilePath, writeShare, type StoredShare } from "./share-store";

const root = mkdtempSync(join(tmpdir(), "mpc-at-rest-"));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = () => join(root, `case-${++n}`);
const KEY = "a1".repeat(32);
const OTHER = "b2".repeat(32);
const silent = pino({ level: "silent" });

const share = (index: number): StoredShare => ({
  version: 1,
  index,
  epoch: 1,
  threshold: 3,
  participants: 5,
  groupPublicKey: `0x02${"11".repeat(32)}`,
  commitments: [`0x02${"11".repeat(32)}`, `0x03${"22".repeat(32)}`, `0x02${"33".repeat(32)}`],
  verifyingShares: Object.fromEntries([1, 2, 3, 4, 5].map((i) => [String(i), `0x02${String(i).repeat(64)}`])),
  signingShare: `0x${"5e".repeat(31)}0${index}`,
  createdAt: "2026-11-28T00:00:00.000Z",
});

const nodeEnv = (dataDir: string, extra: Record<string, string> = {}) => ({
  MPC_NODE_INDEX: "2",
  MPC_DATA_DIR: dataDir,
  MPC_THRESHOLD: "3",
  MPC_PARTICIPANTS: "5",
  ...extra,
});

test("a share file on disk is not the share in clear; it opens with its node's key only, and not as another node's", () => {
  const dir = freshDir();
  const s = share(2);
  writeShare(dir, s, createSecretBox(KEY));
  const file = shareFilePath(dir, 2);
  const raw = readFileSync(file, "utf8");
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.ok(!raw.includes(s.signingShare.slice(2)), "the signing share is not in the file");
  assert.ok(!raw.includes(Buffer.from(s.signingShare.slice(2), "hex").toString("base64")), "nor its bytes in base64");
  assert.ok(!raw.includes("signingShare"));
  assert.deepEqual(readShare(dir, 2, createSecretBox(KEY)), s);
  assert.throws(() => readShare(dir, 2, createSecretBox(OTHER)), /does not open with this node's key/);
  // copied into node 3's directory under node 3's name: its index (the additional data) does not match
  const other = freshDir();
  mkdirSync(other);
  writeFileSync(shareFilePath(other, 3), raw.replace('"index": 2', '"index": 3'));
  assert.throws(() => readShare(other, 3, createSecretBox(KEY)), /does not open/);
});

test("a node with the wrong key refuses to start; with its own key it serves its share", () => {
  const dir = freshDir();
  writeShare(dir, share(2), createSecretBox(KEY));
  assert.throws(
    () => createSignerNode({ config: loadNodeConfig(nodeEnv(dir, { MPC_SEAL_KEY: OTHER })), logger: silent }),
    /does not open with this node's key/,
  );
  const node = createSignerNode({ config: loadNodeConfig(nodeEnv(dir, { MPC_SEAL_KEY: KEY })), logger: silent });
  assert.ok(node.server);
});

test("production mode without a sealing key refuses to start (node and HSM); sandbox makes one beside the data dir", () => {
  const dir = freshDir();
  assert.throws(
    () => loadNodeConfig(nodeEnv(dir, { EXCHANGE_MODE: "production" })),
    /production mode needs MPC_SEAL_KEY or MPC_SEAL_KEY_FILE/,
  );
  assert.throws(
    () => loadHsmConfig({ MPC_DATA_DIR: dir, EXCHANGE_MODE: "production" }),
    /production mode needs MPC_SEAL_KEY/,
  );
  assert.equal(existsSync(`${dir}.secrets`), false, "production generates nothing");
  assert.equal(loadNodeConfig(nodeEnv(dir, { EXCHANGE_MODE: "production", MPC_SEAL_KEY: KEY })).sealKeyHex, KEY);
  const keyFile = join(root, "seal.key");
  writeFileSync(keyFile, `${OTHER}\n`);
  assert.equal(
    loadHsmConfig({ MPC_DATA_DIR: dir, EXCHANGE_MODE: "production", MPC_SEAL_KEY_FILE: keyFile }).sealKeyHex,
    OTHER,
  );
  const sandbox = loadNodeConfig(nodeEnv(dir));
  assert.match(sandbox.sealKeyHex, /^[0-9a-f]{64}$/);
  assert.equal(readFileSync(join(`${dir}.secrets`, "seal.key"), "utf8").trim(), sandbox.sealKeyHex);
});

test("the HSM's key is sealed in its directory; the wrong key refuses; the same key gives the same address", () => {
  const dir = freshDir();
  const a = loadOrCreateHsmKey(dir, createSecretBox(KEY));
  const raw = readFileSync(hsmKeyFile(dir), "utf8");
  assert.equal(statSync(hsmKeyFile(dir)).mode & 0o777, 0o600);
  assert.equal(JSON.parse(raw).address, a.address);
  assert.ok(!/"privateKey"/.test(raw) && !/0x[0-9a-f]{64}/.test(raw), "no private key in clear");
  assert.equal(loadOrCreateHsmKey(dir, createSecretBox(KEY)).address, a.address);
  assert.throws(() => loadOrCreateHsmKey(dir, createSecretBox(OTHER)), /does not open with the HSM's key/);
});

test("an older clear layout (node-<i>.json and hsm-key.json in the shared directory) is sealed on first start and the clear files removed", () => {
  const shared = freshDir();
  mkdirSync(shared);
  const s = share(2);
  const clearShare = legacyShareFiles(join(shared, "node-2"), 2)[1];
  assert.equal(clearShare, join(shared, "node-2.json"));
  writeFileSync(clearShare, JSON.stringify(s));
  const hsmKey = generatePrivateKey();
  writeFileSync(
    join(shared, "hsm-key.json"),
    JSON.stringify({ privateKey: hsmKey, address: privateKeyToAccount(hsmKey).address }),
  );

  const nodeKey = deriveKeyHex(KEY, "node-2");
  const migrated: string[] = [];
  assert.deepEqual(
    readShare(join(shared, "node-2"), 2, createSecretBox(nodeKey), (f) => migrated.push(f)),
    s,
  );
  assert.deepEqual(migrated, [clearShare]);
  assert.equal(existsSync(clearShare), false, "the clear share is gone");
  assert.ok(!readFileSync(shareFilePath(join(shared, "node-2"), 2), "utf8").includes(s.signingShare.slice(2)));
  assert.deepEqual(readShare(join(shared, "node-2"), 2, createSecretBox(nodeKey)), s, "read back sealed");

  const hsm = loadOrCreateHsmKey(join(shared, "hsm"), createSecretBox(deriveKeyHex(KEY, "hsm")));
  assert.equal(hsm.address, privateKeyToAccount(hsmKey).address, "the same HSM key");
  assert.deepEqual(readdirSync(shared).sort(), ["hsm", "node-2"], "no clear file left in the shared directory");
});

test("each process's key is its own: derived per holder from the master key", () => {
  const keys = ["node-1", "node-2", "node-3", "node-4", "node-5", "hsm"].map((l) => deriveKeyHex(KEY, l));
  assert.equal(new Set(keys).size, 6);
  assert.ok(keys.every((k) => /^[0-9a-f]{64}$/.test(k) && k !== KEY));
  assert.equal(deriveKeyHex(KEY, "node-1"), keys[0], "deterministic");
  assert.notEqual(deriveKeyHex(OTHER, "node-1"), keys[0]);
});
