// The zod schemas of the hex strings that settings carry, shared by the parsers of settings (config, the relayer).
import type { Address, Hex } from "viem";
import { z } from "zod";

/** `0x` and exactly `digits` hex digits, either case. */
const hexOf = (digits: number) => z.string().regex(new RegExp(`^0x[0-9a-fA-F]{${digits}}$`));

/** A 20-byte address. */
export const addressSchema = hexOf(40).transform((s) => s as Address);
/** A 32-byte private key. */
export const privateKeySchema = hexOf(64).transform((s) => s as Hex);
