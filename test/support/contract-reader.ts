// Untyped reads of one contract, for tests that call its views by name.
import type { Abi, Address } from "viem";

/** `read<T>(functionName, args)`: the view `functionName` of the contract at `address`, as T. */
export function contractReader(client: { readContract(args: never): Promise<unknown> }, address: Address, abi: Abi) {
  return <T>(functionName: string, args: readonly unknown[] = []) =>
    client.readContract({ address, abi, functionName, args } as never) as Promise<T>;
}
