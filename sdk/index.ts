// @onchain-exchange/sdk: the public entry (sdk/README.md lists each export with an example). Clients import
// this module only; the files beside it are also the services' shared code, imported by path in this repo.
export * from "./eip712";
export * from "./decimal";
export * from "./bridge-message";
export * from "./bridge-abi";
export * from "./abi";
export * from "./signers";
export * from "./hmac";
export * from "./orders";
export * from "./rest";
export * from "./book";
export * from "./book-feed";
export * from "./grpc";
export * from "./bridge-client";
export * from "./api-keys";
export * from "./exchange-client";
export * from "./settled-trades";
// both modules name a SettlementDomain: the package's is the EIP-712 domain, the reader's goes by another name
export type { SettlementDomain } from "./eip712";
export type { SettlementDomain as SettledTradesDomain } from "./settled-trades";
