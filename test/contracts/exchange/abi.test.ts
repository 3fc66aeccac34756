import { expect } from "chai";
import { ethers } from "hardhat";
import { toEventSelector } from "viem";
import { settlementEventsAbi, OPERATOR_ROLE } from "../../../sdk/abi";
import { MAX_AGENT_MIN_NONCE_STEP, MIN_FILL_UNITS } from "../../../sdk/eip712";
import { deployFixture } from "./fixtures";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";

describe("Settlement: sdk/abi.ts", () => {
  it("the typed event ABI equals the compiled contract's events, and OPERATOR_ROLE its constant", async () => {
    const factory = await ethers.getContractFactory("Settlement");
    const compiled = new Map<string, string>();
    factory.interface.forEachEvent((e) => compiled.set(e.name, e.topicHash));
    for (const e of settlementEventsAbi) expect(toEventSelector(e), e.name).to.equal(compiled.get(e.name));
    expect(OPERATOR_ROLE).to.equal(ethers.id("OPERATOR_ROLE"));
  });

  it("the sdk's MIN_FILL_UNITS and MAX_AGENT_MIN_NONCE_STEP equal the contract's constants", async () => {
    const f = await loadFixture(deployFixture);
    expect(await f.settlement.MIN_FILL_UNITS()).to.equal(MIN_FILL_UNITS);
    expect(await f.settlement.MAX_AGENT_MIN_NONCE_STEP()).to.equal(MAX_AGENT_MIN_NONCE_STEP);
  });
});
