// Min-heap of resting GTD orders keyed by (expiresAt, acceptedSeq). Entries of orders that closed
// for another reason are skipped when they surface (lazy deletion) and swept when they dominate.
import type { Order } from "./order";

function before(a: Order, b: Order): boolean {
  return a.expiresAt < b.expiresAt || (a.expiresAt === b.expiresAt && a.acceptedSeq < b.acceptedSeq);
}

export class ExpiryHeap {
  private heap: Order[] = [];

  get length(): number {
    return this.heap.length;
  }

  /** The earliest entry, possibly of an order no longer open. */
  peek(): Order | undefined {
    return this.heap[0];
  }

  push(o: Order): void {
    const h = this.heap;
    h.push(o);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator,ArithmeticOperator: when to sweep is a cost trade-off: entries of orders no longer resting are skipped at pop whether swept or not
    if (h.length > 4096 && h.length % 4096 === 0) this.sweep();
  }

  pop(): Order | undefined {
    const h = this.heap;
    if (h.length === 0) return undefined;
    const top = h[0];
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  private siftDown(i: number): void {
    const h = this.heap;
    const n = h.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && before(h[l], h[m])) m = l;
      if (r < n && before(h[r], h[m])) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m], h[i]];
      i = m;
    }
  }

  /** Drops entries of orders that are no longer resting, when they are at least half the heap. */
  private sweep(): void {
    const live = this.heap.filter((o) => o.level !== null);
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: the same cost trade-off (rebuild only when at least half is dead)
    if (live.length * 2 > this.heap.length) return;
    this.heap = [];
    for (const o of live) this.push(o);
  }
}
