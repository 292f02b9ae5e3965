/**
 * The postings buffered since the last flush, packed: an open-addressing table of keys (u32) and,
 * per posting, its value, its byte and the index of the list's previous posting, so a list reads
 * newest first by following the chain. About 9 bytes a posting and 24 a list, against ~16 and ~136
 * as a map of arrays, so the same eighth of a heap budget holds four times the postings before a
 * checkpoint has to write them.
 */
export class PostingBuffer {
  /**
   * Open addressing: list number + 1, or 0 for an empty slot (capacity a power of two). Every
   * array is empty until the first push and again after a clear, so a buffer that takes nothing
   * (entity postings on a shard that does no name work) costs no heap.
   */
  #slots = new Int32Array(0);
  #keys = new Uint32Array(0);
  #head = new Int32Array(0);
  #count = new Int32Array(0);
  #vals = new Int32Array(0);
  #extra = new Uint8Array(0);
  #prev = new Int32Array(0);
  #scratchVals = new Int32Array(64);
  #scratchExtra = new Uint8Array(64);
  /** Lists buffered. */
  lists = 0;
  /** Postings buffered. */
  values = 0;

  constructor(private readonly withExtra: boolean) {}

  /** Fresh arrays for `lists` lists and `values` postings (none: the buffer holds no heap). */
  #allocate(lists: number, values: number): void {
    this.#slots = new Int32Array(2 * lists);
    this.#keys = new Uint32Array(lists);
    this.#head = new Int32Array(lists);
    this.#count = new Int32Array(lists);
    this.#vals = new Int32Array(values);
    this.#prev = new Int32Array(values);
    this.#extra = new Uint8Array(this.withExtra ? values : 0);
  }

  #slotOf(key: number): number {
    const mask = this.#slots.length - 1;
    let at = Math.imul(key, 0x9e3779b1) & mask;
    for (;;) {
      const l = this.#slots[at] as number;
      if (l === 0 || this.#keys[l - 1] === key) return at;
      at = (at + 1) & mask;
    }
  }

  #listOf(key: number): number {
    if (this.lists === 0) return -1;
    const l = this.#slots[this.#slotOf(key)] as number;
    return l - 1;
  }

  push(key: number, value: number, extra: number): void {
    if (this.#slots.length === 0) this.#allocate(32, 256);
    let at = this.#slotOf(key);
    let l = (this.#slots[at] as number) - 1;
    if (l < 0) {
      if ((this.lists + 1) * 2 > this.#slots.length) {
        this.#rehash(this.#slots.length * 2);
        at = this.#slotOf(key);
      }
      l = this.lists++;
      if (l >= this.#keys.length) {
        const c = this.#keys.length * 2;
        this.#keys = grow(this.#keys, c);
        this.#head = grow(this.#head, c);
        this.#count = grow(this.#count, c);
      }
      this.#slots[at] = l + 1;
      this.#keys[l] = key;
      this.#head[l] = -1;
      this.#count[l] = 0;
    }
    const v = this.values++;
    if (v >= this.#vals.length) {
      const c = this.#vals.length * 2;
      this.#vals = grow(this.#vals, c);
      this.#prev = grow(this.#prev, c);
      if (this.withExtra) this.#extra = grow(this.#extra, c);
    }
    this.#vals[v] = value;
    if (this.withExtra) this.#extra[v] = extra;
    this.#prev[v] = this.#head[l] as number;
    this.#head[l] = v;
    this.#count[l] = (this.#count[l] as number) + 1;
  }

  #rehash(capacity: number): void {
    this.#slots = new Int32Array(capacity);
    const mask = capacity - 1;
    for (let l = 0; l < this.lists; l++) {
      let at = Math.imul(this.#keys[l] as number, 0x9e3779b1) & mask;
      while (this.#slots[at] !== 0) at = (at + 1) & mask;
      this.#slots[at] = l + 1;
    }
  }

  count(key: number): number {
    const l = this.#listOf(key);
    return l < 0 ? 0 : (this.#count[l] as number);
  }

  /** Visit a list's buffered postings newest first, at most `cap`; the number visited. */
  each(key: number, cap: number, visit: (value: number, extra: number) => boolean | undefined): number {
    const l = this.#listOf(key);
    let seen = 0;
    for (let v = l < 0 ? -1 : (this.#head[l] as number); v >= 0 && seen < cap; v = this.#prev[v] as number) {
      seen++;
      if (visit(this.#vals[v] as number, this.withExtra ? (this.#extra[v] as number) : 0) === false) break;
    }
    return seen;
  }

  /** The buffered keys, ascending. */
  keys(): Uint32Array {
    return this.#keys.slice(0, this.lists).sort();
  }

  /** The largest buffered key (-1 when none). */
  maxKey(): number {
    let m = -1;
    for (let l = 0; l < this.lists; l++) m = Math.max(m, this.#keys[l] as number);
    return m;
  }

  /**
   * A buffered list, oldest first, as views of one scratch buffer: valid until the next call (a
   * flush copies each list into its page before asking for the next, so no list is allocated).
   */
  list(key: number): { vals: Int32Array; extra: Uint8Array } {
    const l = this.#listOf(key);
    const n = l < 0 ? 0 : (this.#count[l] as number);
    if (n > this.#scratchVals.length) {
      this.#scratchVals = new Int32Array(Math.max(n, 2 * this.#scratchVals.length));
      this.#scratchExtra = new Uint8Array(this.withExtra ? this.#scratchVals.length : 0);
    }
    const vals = this.#scratchVals.subarray(0, n);
    const extra = this.#scratchExtra.subarray(0, this.withExtra ? n : 0);
    let k = n;
    for (let v = l < 0 ? -1 : (this.#head[l] as number); v >= 0; v = this.#prev[v] as number) {
      k--;
      vals[k] = this.#vals[v] as number;
      if (this.withExtra) extra[k] = this.#extra[v] as number;
    }
    return { vals, extra };
  }

  clear(): void {
    if (this.lists === 0) return;
    this.#allocate(0, 0);
    this.lists = 0;
    this.values = 0;
  }

  /** Heap bytes of the arrays as allocated (capacity, not use); none before the first push. */
  bytes(): number {
    if (this.#slots.length === 0) return 0;
    return (
      this.#slots.byteLength +
      this.#keys.byteLength +
      this.#head.byteLength +
      this.#count.byteLength +
      this.#vals.byteLength +
      this.#prev.byteLength +
      this.#extra.byteLength +
      6 * 64
    );
  }
}

function grow<T extends Int32Array | Uint32Array | Uint8Array>(a: T, capacity: number): T {
  const b = new (a.constructor as new (n: number) => T)(capacity);
  b.set(a);
  return b;
}
