/**
 * An archive's change log applied to shards in process (tests, benchmarks, scripts), the way the
 * Durable Objects apply it (src/adapters/do/capital-object.ts): the names shard (shard 0) first,
 * keeping the edges it derives from shard 1's first position on; then each other shard, every change
 * followed by the edges derived at it. The change at index k of `ops` is at position k + 1.
 */
import type { ChangeOp } from "../types";
import type { DerivedEdge } from "./records";
import { CapitalStore } from "./store";

/** Edges the names shard derived, by change-log position. */
export type DerivedLog = Map<number, DerivedEdge[]>;

/**
 * What a shard that derives nothing (every shard but the names shard) needs of a change to a head
 * it does not hold (before its window, or after it to another shard's head): the ids it numbers,
 * head versions and validity, and edge weights (the weight palette). A head's terms, sketch and
 * names are left out, so opening a shard, or keeping a closed one current, reads a fraction of
 * the log. `D1ChangeLog.readLogBefore` returns the same in SQL; the Durable Object applies these.
 */
export function beforeWindow(op: ChangeOp): ChangeOp {
  switch (op.op) {
    case "head.upsert": {
      const { terms: _t, len: _l, owns: _o, ...rest } = op;
      return { ...rest, entities: [], boundaries: [], sketch: "" };
    }
    case "head.sketch":
      return { ...op, sketch: "" };
    case "head.extend":
      return { ...op, entities: [] };
    default:
      return op;
  }
}

/**
 * Whether a closed shard that derives nothing needs this change whole, after its window: a head
 * or sketch of a head it holds (its revisions). Past the window its ids are all numbered (a new id
 * goes to a newer shard), so the test holds for a whole page read before any of it is applied.
 */
export function ownsChange(store: CapitalStore, op: ChangeOp): boolean {
  return (op.op === "head.upsert" || op.op === "head.sketch") && store.index.get(op.chunk) !== undefined;
}

/**
 * Apply ops[from..to) to a store, each change followed by its derived edges on a shard > 0. A
 * shard > 0 takes the changes before its window as `beforeWindow` leaves them and without their
 * derived edges (those join two nodes it does not hold, so they change nothing there), and after
 * its window the changes of other shards' heads as `beforeWindow` leaves them, as the objects do.
 */
export function applyOps(
  store: CapitalStore,
  ops: readonly ChangeOp[],
  derived: DerivedLog | null,
  from = 0,
  to = ops.length,
): void {
  for (let k = from; k < to; k++) {
    const op = ops[k] as ChangeOp;
    const before = !store.derives && k + 1 < store.ownFrom;
    const light = before || (!store.derives && k + 1 >= store.ownTo && !ownsChange(store, op));
    // Read-ahead in slices of 32, as the objects do (it changes nothing).
    if ((k - from) % 32 === 0) store.prefetch(ops.slice(k, Math.min(to, k + 32)));
    store.apply(light ? beforeWindow(op) : op, k + 1);
    store.seq = k + 1;
    if (!store.derives && !before) store.applyDerived(derived?.get(k + 1) ?? []);
  }
}

/** What a store drained of derived edges adds to a derived log. */
export function takeDerived(store: CapitalStore, into: DerivedLog): DerivedLog {
  for (const d of store.drainDerived()) into.set(d.seq, d.edges);
  return into;
}

/**
 * Shards opening at these change-log positions (`starts[0]` is 0), each store made by `make`, with
 * the whole log applied; and the edges the names shard derived.
 */
export function applyToShards(
  ops: readonly ChangeOp[],
  starts: readonly number[],
  make: () => CapitalStore = () => new CapitalStore(),
): { shards: CapitalStore[]; derived: DerivedLog } {
  const derived: DerivedLog = new Map();
  const shards = starts.map((from, k) => {
    const s = make();
    if (starts.length > 1) s.shard(from, starts[k + 1] ?? Number.POSITIVE_INFINITY);
    applyOps(s, ops, derived);
    if (k === 0) takeDerived(s, derived);
    return s;
  });
  return { shards, derived };
}

/** Change-log positions at which shards 2..S open so that each takes an equal share of the heads. */
export function cutsFor(ops: readonly ChangeOp[], shards: number): number[] {
  const firsts: number[] = [];
  const seen = new Set<string>();
  ops.forEach((op, k) => {
    if (op.op === "head.upsert" && !seen.has(op.chunk)) {
      seen.add(op.chunk);
      firsts.push(k + 1);
    }
  });
  return Array.from({ length: shards - 1 }, (_, j) => firsts[Math.floor(((j + 1) * firsts.length) / shards)] as number);
}
