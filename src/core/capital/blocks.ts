/**
 * Append-only integer lists in one pooled block chain: each list is a chain of fixed-size blocks,
 * newest block first, so a list costs 8 bytes (head, length) plus its blocks and no object of its
 * own. The capital chunk keeps entity postings (node per posting) and lexical postings (document
 * and a one-byte term frequency per posting) this way: most lists are short.
 */

function growI32(a: Int32Array, n: number, fill = 0): Int32Array {
  const b = new Int32Array(n);
  if (fill !== 0) b.fill(fill);
  b.set(a);
  return b;
}
function growU8(a: Uint8Array, n: number): Uint8Array {
  const b = new Uint8Array(n);
  b.set(a);
  return b;
}

export class BlockLists {
  /** First (newest) block of each list, -1 when empty. */
  head: Int32Array = new Int32Array(0);
  len: Int32Array = new Int32Array(0);
  next: Int32Array = new Int32Array(0);
  fill: Uint8Array = new Uint8Array(0);
  /** Values, `block` per block. */
  val: Int32Array = new Int32Array(0);
  /** One byte per value (e.g. a term frequency); empty when the lists carry none. */
  extra: Uint8Array = new Uint8Array(0);
  lists = 0;
  blocks = 0;

  constructor(
    readonly block: number,
    readonly withExtra: boolean,
  ) {}

  /** A new empty list; returns its index. */
  addList(): number {
    const l = this.lists++;
    if (l >= this.head.length) {
      const c = Math.max(256, this.head.length * 2);
      this.head = growI32(this.head, c, -1);
      this.len = growI32(this.len, c);
    }
    this.head[l] = -1;
    this.len[l] = 0;
    return l;
  }

  count(l: number): number {
    return this.len[l] as number;
  }

  push(l: number, v: number, x = 0): void {
    let b = this.head[l] as number;
    if (b < 0 || (this.fill[b] as number) >= this.block) {
      const nb = this.blocks++;
      if (nb >= this.next.length) {
        const c = Math.max(256, this.next.length * 2);
        this.next = growI32(this.next, c);
        this.fill = growU8(this.fill, c);
        this.val = growI32(this.val, c * this.block);
        if (this.withExtra) this.extra = growU8(this.extra, c * this.block);
      }
      this.next[nb] = b;
      this.fill[nb] = 0;
      this.head[l] = nb;
      b = nb;
    }
    const k = this.fill[b] as number;
    this.val[b * this.block + k] = v;
    if (this.withExtra) this.extra[b * this.block + k] = x;
    this.fill[b] = k + 1;
    this.len[l] = (this.len[l] as number) + 1;
  }

  /** Visit at most `cap` values of list l, newest first, until `visit` returns false; returns how many. */
  each(l: number, cap: number, visit: (v: number, x: number) => boolean | undefined): number {
    let seen = 0;
    for (let b = this.head[l] as number; b >= 0 && seen < cap; b = this.next[b] as number) {
      for (let k = (this.fill[b] as number) - 1; k >= 0 && seen < cap; k--) {
        seen++;
        const at = b * this.block + k;
        if (visit(this.val[at] as number, this.withExtra ? (this.extra[at] as number) : 0) === false) return seen;
      }
    }
    return seen;
  }

  /** The values of list l, oldest first (the order they were pushed). */
  values(l: number): Int32Array {
    const out = new Int32Array(this.count(l));
    let k = out.length - 1;
    this.each(l, out.length, (v) => {
      out[k--] = v;
      return true;
    });
    return out;
  }

  byteLength(): number {
    return (
      this.head.byteLength +
      this.len.byteLength +
      this.next.byteLength +
      this.fill.byteLength +
      this.val.byteLength +
      this.extra.byteLength
    );
  }
}
