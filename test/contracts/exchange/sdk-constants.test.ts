// The contract constants the sdk mirrors equal the contract's. (The ABIs are not mirrored by hand: sdk/abi/ is
// generated from the artifacts, and scripts/gen-abi.test.ts checks it is current.)
import { expect } from "chai";
import { ethers } from "hardhat";
import { MAX_AGENT_MIN_NONCE_STEP, MIN_FILL_UNITS, OPERATOR_ROLE } from "../../../sdk/eip712";
import { deployFixture } from "./fixtures";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";

describe("Settlement: the sdk's copies of its constants", () => {
  it("OPERATOR_ROLE, MIN_FILL_UNITS and MAX_AGENT_MIN_NONCE_STEP equal the contract's", async () => {
    const f = await loadFixture(deployFixture);
    expect(OPERATOR_ROLE).to.equal(await f.settlement.OPERATOR_ROLE());
    expect(OPERATOR_ROLE).to.equal(ethers.id("OPERATOR_ROLE"));
    expect(await f.settlement.MIN_FILL_UNITS()).to.equal(MIN_FILL_UNITS);
    expect(await f.settlement.MAX_AGENT_MIN_NONCE_STEP()).to.equal(MAX_AGENT_MIN_NONCE_STEP);
  });
});
