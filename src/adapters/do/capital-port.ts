/**
 * The capital port as the Worker sees it: one archive's capital chunk over its Durable Objects,
 * one per shard (the object side is src/adapters/do/capital-object.ts). With one shard a query is
 * one call to its object; with several the Worker is the directory (src/core/capital/directory.ts,
 * routeSharded) and asks the shards in rounds.
 */
import { routeSharded, StaleShards } from "../../core/capital/directory";
import type { CapitalShard, ShardCounts } from "../../core/capital/shard";
import type { CapitalFor, CapitalPort, CapitalStats, ChangeLog } from "../../core/ports";
import type { Freshness, RouteResult } from "../../core/types";
import { type CapitalChunk, shardKey } from "./capital-object";

/**
 * One shard's object as the directory's shard port. The counts round also waits for the query's
 * bookmark (`after`) and says how far the shard has applied the log (`fresh`); the newest shard
 * sends the archive's parameters with it (`withParams`).
 */
function shardPort(
  stub: DurableObjectStub<CapitalChunk>,
  key: string,
  after: number | undefined,
  withParams: boolean,
  fresh: (f: Freshness) => void,
): CapitalShard {
  return {
    counts: async (terms) => {
      const c = await stub.shardCounts(key, terms, after, withParams);
      fresh(c.freshness);
      // RPC types widen tuples to arrays; the values are the tuples LocalShard returns.
      return c as unknown as ShardCounts;
    },
    resolve: (q) => stub.shardResolve(key, q) as ReturnType<CapitalShard["resolve"]>,
    lexical: async (plan, t, avg) => (await stub.shardLexical(key, plan, t, avg)) as unknown as Array<[number, number]>,
    nodes: (info, adj, t, sketch, kr) => stub.shardNodes(key, info, adj, t, sketch, kr),
  };
}

/** Stats of an archive's shards as one: sums, except the name tables (the names shard's, shard 0). */
function combineStats(list: CapitalStats[]): CapitalStats {
  const last = list[list.length - 1] as CapitalStats;
  const names = list[0] as CapitalStats;
  if (list.length === 1) return last;
  const sum = (f: (x: CapitalStats) => number) => list.reduce((a, x) => a + f(x), 0);
  const bytes = { ...last.bytes };
  for (const k of Object.keys(bytes) as Array<keyof typeof bytes>) bytes[k] = sum((x) => x.bytes[k]);
  const heads = sum((x) => x.heads);
  return {
    ...last,
    heads,
    nodes: sum((x) => x.nodes),
    edges: sum((x) => x.edges),
    slots: sum((x) => x.slots),
    slotPool: sum((x) => x.slotPool),
    terms: sum((x) => x.terms),
    entities: names.entities,
    aliases: names.aliases,
    bytes,
    bytesPerHead: heads ? bytes.total / heads : 0,
    seq: Math.min(...list.map((x) => x.seq)),
    storageBytes: sum((x) => x.storageBytes ?? 0),
    shards: list.map((x) => ({ heads: x.heads, bytes: x.bytes.total, seq: x.seq, storageBytes: x.storageBytes })),
  };
}

/**
 * The capital port of each archive over its Durable Objects, one per shard (RPC results cast to the
 * port's types). With one shard a query is one call to its object; with several the Worker is the
 * directory.
 *
 * How many shards an archive has is kept per isolate, starting from one: shards are only ever
 * added, and the newest known shard says in every answer whether a newer one exists (`closed`, or
 * a null route), so a stale count is seen and read again from D1 before it is used. An archive in
 * one object therefore costs no D1 read for it. A newer shard that holds no committed change yet
 * can be missed, and it holds nothing a read could return.
 */
export function doCapital(
  ns: DurableObjectNamespace<CapitalChunk>,
  log: Pick<ChangeLog, "shards" | "openShard">,
): CapitalFor {
  const known = new Map<string, number>();
  return (archiveId) => {
    const stubOf = (k: number) => ns.get(ns.idFromName(shardKey(archiveId, k)));
    const keyOf = (k: number) => shardKey(archiveId, k);
    const count = async (fresh = false): Promise<number> => {
      if (!fresh) return known.get(archiveId) ?? 1;
      const n = 1 + (await log.shards(archiveId)).reduce((m, r) => Math.max(m, r.shard), 0);
      known.set(archiveId, n);
      return n;
    };
    /** Run `f` over the known shards; once more over the shards read from D1 if it says they are stale. */
    const withShards = async <T>(f: (n: number) => Promise<T | null>): Promise<T> => {
      const n = await count();
      let first: T | null = null;
      try {
        first = await f(n);
      } catch (e) {
        // A count this isolate kept for an archive since deleted and made again under the same id
        // names shards that are not open: read the list again, once.
        if (n === 1) throw e;
      }
      if (first !== null) return first;
      const again = await f(await count(true));
      if (again === null) throw new Error(`capital chunk of ${archiveId}: the shard list keeps changing`);
      return again;
    };
    const each = <T>(n: number, f: (stub: DurableObjectStub<CapitalChunk>, key: string) => Promise<T>): Promise<T[]> =>
      Promise.all(Array.from({ length: n }, (_, k) => f(stubOf(k), keyOf(k))));
    const stale = (answers: Array<{ closed: boolean }>) => (answers[answers.length - 1] as { closed: boolean }).closed;
    return {
      route: (input) =>
        withShards(async (n) => {
          if (n === 1) return (await stubOf(0).route(archiveId, input)) as RouteResult | null;
          // The counts round waits for the bookmark and brings the parameters from the newest shard.
          const fresh: Freshness[] = [];
          const shards = Array.from({ length: n }, (_, k) =>
            shardPort(stubOf(k), keyOf(k), input.after, k === n - 1, (f) => fresh.push(f)),
          );
          try {
            const r = await routeSharded(shards, input, null);
            return {
              ...r,
              freshness: {
                applied: Math.min(...fresh.map((f) => f.applied)),
                after: input.after ?? null,
                reached: fresh.every((f) => f.reached),
                waitedMs: Math.max(...fresh.map((f) => f.waitedMs)),
              },
            };
          } catch (e) {
            if (e instanceof StaleShards) return null;
            throw e;
          }
        }),
      sync: () =>
        withShards(async (n) => {
          // The names shard first: the others apply a change only with the edges it derived there.
          const names = await stubOf(0).sync(keyOf(0));
          if (n === 1) return names.closed ? null : { seq: names.seq, applied: names.applied };
          const rest = await Promise.all(Array.from({ length: n - 1 }, (_, k) => stubOf(k + 1).sync(keyOf(k + 1))));
          const all = [names, ...rest];
          if (stale(all)) return null;
          return { seq: Math.min(...all.map((x) => x.seq)), applied: all.reduce((a, x) => a + x.applied, 0) };
        }),
      capacity: () =>
        withShards(async (n) => {
          const c = await stubOf(n - 1).capacity(keyOf(n - 1));
          return c.closed ? null : { bytes: c.bytes, heads: c.heads, budget: c.budget, shards: n };
        }),
      openShard: async () => {
        const n = await count(true);
        await log.openShard(archiveId, n, Date.now());
        return count(true);
      },
      warmNext: async () => {
        const n = await count();
        await stubOf(n).warm(keyOf(n));
      },
      recordAccess: async (events) => {
        await each(await count(), (s, k) => s.recordAccess(k, events));
      },
      neighbours: async (chunk, t) => {
        const find = async (n: number) =>
          ((await each(n, (s, k) => s.neighbours(k, chunk, t))).find((x) => x !== null) ?? null) as Awaited<
            ReturnType<CapitalPort["neighbours"]>
          >;
        const n = await count();
        const found = await find(n);
        if (found !== null) return found;
        // Not in the known shards: in a newer one, or nowhere.
        const m = await count(true);
        return m > n ? find(m) : null;
      },
      // The names shard holds the name tables.
      resolve: (mention, t) => stubOf(0).resolve(keyOf(0), mention, t),
      stats: () =>
        withShards(async (n) => {
          const all = (await each(n, (s, k) => s.stats(k))) as Array<CapitalStats & { closed: boolean }>;
          return stale(all) ? null : combineStats(all);
        }),
      snapshot: async () => {
        const all = await each(await count(true), (s, k) => s.snapshot(k));
        return {
          seq: Math.min(...all.map((x) => x.seq)),
          bytes: all.reduce((a, x) => a + x.bytes, 0),
          key: (all[0] as { key: string }).key,
        };
      },
      evict: async () => {
        await each(await count(true), (s) => s.evict());
      },
      forget: async () => {
        // After an archive is deleted its shard rows are gone too: go on past the listed shards
        // until an object that never held anything (shard k + 1 opens only once shard k has heads).
        const n = await count(true);
        known.delete(archiveId);
        for (let k = 0; ; k++) {
          const used = await stubOf(k).forget(keyOf(k));
          if (k >= n - 1 && !used) break;
        }
      },
    };
  };
}
