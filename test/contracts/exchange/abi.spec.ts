import { expect } from "chai";
import { ethers } from "hardhat";
import { toEventSelector } from "viem";
import { settlementEventsAbi, OPERATOR_ROLE } from "../../../sdk/abi";

describe("Settlement: sdk/abi.ts", () => {
  it("the typed event ABI equals the compiled contract's events, and OPERATOR_ROLE its constant", async () => {
    const factory = await ethers.getContractFactory("Settlement");
    const compiled = new Map<string, string>();
    factory.interface.forEachEvent((e) => compiled.set(e.name, e.topicHash));
    for (const e of settlementEventsAbi) expect(toEventSelector(e), e.name).to.equal(compiled.get(e.name));
    expect(OPERATOR_ROLE).to.equal(ethers.id("OPERATOR_ROLE"));
  });
});
