// Hardhat's well-known development accounts (mnemonic "test test test test test test test test test test
// test junk", path m/44'/60'/0'/0/i). Every Hardhat node funds them with 10,000 ETH. They are PUBLIC:
// dev and test chains only, never anything holding real value.
export const HARDHAT_DEV_MNEMONIC = "test test test test test test test test test test test junk";

export const HARDHAT_DEV_PRIVATE_KEYS = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
  "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
  "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
  "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
  "0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
  "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
  "0xf214f2b2cd398c806f84e317254e0f0b801d0643303237d97a22a48e01628897",
  "0x701b615bbdfb9de65240bc28bd21bbc0d996645a3dd57e7b12bc2bdf6f192c82",
  "0xa267530f49f8280200edf313ee7af6b827f2a8bce2897751d06a843f644967b1",
  "0x47c99abed3324a2707c28affff1267e45918ec8c3f20b8aa892e8b065d2942dd",
] as const;

/** Which dev account plays which role by default (index into HARDHAT_DEV_PRIVATE_KEYS). */
export const DEV_ACCOUNT_ROLES = {
  deployer: 0,
  operator: 1,
  feeRecipient: 2,
  relayer: 3,
  demoTraders: [4, 5, 6, 7],
  /** pays the gas of wallets' agent approvals (approveAgentWithSig) and holds no contract role; #8 and
   *  #9 are the bridge tests' custody and second relayer */
  agentRelayer: 10,
  /** the exchange API's funding key: FUNDER_ROLE on SandboxFunding (credits sandbox bank deposits from its
   *  demo USD reserve, once per transfer id) and gas money for custody accounts; no other role */
  funding: 11,
  /** the exchange API's compliance key: COMPLIANCE_ROLE on EligibilityRegistry (records investors'
   *  eligibility and holders' restricted lots of the asset tokens); no other role */
  compliance: 12,
  /** the integrator's sandbox wallet: funded like the demo traders, never traded by the simulator; the
   *  examples and the web app default to it (their orders meet the simulated market, never themselves) */
  integrator: 13,
} as const;

/** The integrator's sandbox wallet (#13): the examples' default `PRIVATE_KEY` (examples/ hold it as text,
 *  as a user's script would; test/e2e/examples.test.ts checks that they match). */
export const INTEGRATOR_DEV_KEY = HARDHAT_DEV_PRIVATE_KEYS[DEV_ACCOUNT_ROLES.integrator];
