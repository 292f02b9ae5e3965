/**
 * Chunk id -> node index without a Map: an open-addressing table of node numbers over the store's
 * own id array (linear probing, load factor <= 3/4), 5-11 bytes per node instead of the ~100 bytes
 * a V8 Map entry with its string key measured here (7,113 ids: Map 104 B/entry after GC in Node 20).
 */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class IdIndex {
  /** node + 1 per slot; 0 = empty. */
  #slots: Int32Array = new Int32Array(0);
  #size = 0;

  constructor(private readonly ids: () => readonly string[]) {}

  get size(): number {
    return this.#size;
  }

  get(id: string): number | undefined {
    const slots = this.#slots;
    if (slots.length === 0) return undefined;
    const ids = this.ids();
    const mask = slots.length - 1;
    for (let k = fnv1a(id) & mask; ; k = (k + 1) & mask) {
      const v = slots[k] as number;
      if (v === 0) return undefined;
      if (ids[v - 1] === id) return v - 1;
    }
  }

  /** Add a node whose id is not in the index yet. */
  set(id: string, node: number): void {
    if ((this.#size + 1) * 4 > this.#slots.length * 3) this.#grow(Math.max(64, this.#slots.length * 2));
    this.#put(this.#slots, id, node);
    this.#size++;
  }

  #put(slots: Int32Array, id: string, node: number): void {
    const mask = slots.length - 1;
    let k = fnv1a(id) & mask;
    while ((slots[k] as number) !== 0) k = (k + 1) & mask;
    slots[k] = node + 1;
  }

  #grow(capacity: number): void {
    const next = new Int32Array(capacity);
    const ids = this.ids();
    for (const v of this.#slots) if (v !== 0) this.#put(next, ids[v - 1] as string, v - 1);
    this.#slots = next;
  }

  /** Index every id of the array (a rebuilt store). */
  static of(ids: () => readonly string[]): IdIndex {
    const index = new IdIndex(ids);
    const all = ids();
    let c = 64;
    while (c * 3 < all.length * 4) c *= 2;
    index.#grow(c);
    for (let i = 0; i < all.length; i++) index.#put(index.#slots, all[i] as string, i);
    index.#size = all.length;
    return index;
  }

  byteLength(): number {
    return this.#slots.byteLength;
  }
}

/**
 * Archive-wide node number -> ghost, the same way: an open-addressing table of ghost numbers over
 * the store's ghost array (4-8 bytes per ghost instead of a ~40-byte Map entry).
 */
export class GhostIndex {
  /** ghost + 1 per slot; 0 = empty. */
  #slots: Int32Array = new Int32Array(0);
  #size = 0;

  constructor(private readonly keys: () => Int32Array) {}

  get size(): number {
    return this.#size;
  }

  static #hash(g: number): number {
    return Math.imul(g ^ (g >>> 16), 0x45d9f3b) >>> 0;
  }

  get(g: number): number | undefined {
    const slots = this.#slots;
    if (slots.length === 0) return undefined;
    const keys = this.keys();
    const mask = slots.length - 1;
    for (let k = GhostIndex.#hash(g) & mask; ; k = (k + 1) & mask) {
      const v = slots[k] as number;
      if (v === 0) return undefined;
      if (keys[v - 1] === g) return v - 1;
    }
  }

  /** Add a ghost whose node is not in the index yet. */
  set(g: number, ghost: number): void {
    if ((this.#size + 1) * 4 > this.#slots.length * 3) this.#grow(Math.max(64, this.#slots.length * 2));
    this.#put(this.#slots, g, ghost);
    this.#size++;
  }

  #put(slots: Int32Array, g: number, ghost: number): void {
    const mask = slots.length - 1;
    let k = GhostIndex.#hash(g) & mask;
    while ((slots[k] as number) !== 0) k = (k + 1) & mask;
    slots[k] = ghost + 1;
  }

  #grow(capacity: number): void {
    const next = new Int32Array(capacity);
    const keys = this.keys();
    for (const v of this.#slots) if (v !== 0) this.#put(next, keys[v - 1] as number, v - 1);
    this.#slots = next;
  }

  byteLength(): number {
    return this.#slots.byteLength;
  }
}
