// The client-side book checksum checked against the server's (api/ws/checksum.ts, node's zlib) over random
// books: the SDK's and the browser's tests share this property.
import assert from "node:assert/strict";
import fc from "fast-check";
import type { WsLevel } from "../../sdk/book";
import { bookChecksum as serverChecksum } from "../ws/checksum";

/** `checksum` equals the server's over books of at most `maxLength` levels a side drawn from `level`, at
 *  every depth from 1 to 10. */
export function assertChecksumMatchesServer(
  checksum: (bids: WsLevel[], asks: WsLevel[], levels: number) => number,
  level: fc.Arbitrary<WsLevel>,
  maxLength: number,
): void {
  fc.assert(
    fc.property(
      fc.array(level, { maxLength }),
      fc.array(level, { maxLength }),
      fc.integer({ min: 1, max: 10 }),
      (bids, asks, n) => {
        assert.equal(checksum(bids, asks, n), serverChecksum(bids, asks, n));
      },
    ),
  );
}
