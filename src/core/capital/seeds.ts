/**
 * Routing step 2's seed distribution, shared by route() over one store and the directory over
 * shards: entity hits weighted by rarity and spread over their postings, then identifiers,
 * semantic, lexical and session hits, each only when its node is visible at the query's time.
 */
import type { ShardResolved } from "./shard";

export class Seeds {
  readonly weights = new Map<number, number>();
  readonly reasons = new Map<number, string[]>();
  /** Per node, the summed rarity of the query entities whose postings hold it (the symbolic expert). */
  readonly symWeight = new Map<number, number>();
  readonly invisible = new Set<number>();
  /** Summed rarity of the query entities. */
  symTotal = 0;

  /** `heads`: open documents (or nodes) across the archive, for rarity. */
  constructor(
    private readonly heads: number,
    private readonly visible: (i: number) => boolean,
  ) {}

  add(i: number, w: number, why: string): void {
    if (!this.visible(i)) {
      this.invisible.add(i);
      return;
    }
    this.weights.set(i, (this.weights.get(i) ?? 0) + w);
    const r = this.reasons.get(i) ?? [];
    if (!r.includes(why) && r.length < 6) r.push(why);
    this.reasons.set(i, r);
  }

  /**
   * An entity seeds its weight spread over its postings (HippoRAG's node specificity): a name in
   * half the archive (a speaker, a country) adds little mass anywhere; a rare one concentrates it.
   */
  entities(list: ShardResolved["entities"]): void {
    const n = Math.max(2, this.heads);
    for (const e of list) {
      const w = Math.log(1 + n / Math.max(1, e.docFreq)) / Math.log(1 + n);
      this.symTotal += w;
      const hits: number[] = [];
      const seen = new Set<number>();
      for (const i of e.hits) {
        if (seen.has(i)) continue;
        seen.add(i);
        if (this.visible(i)) this.symWeight.set(i, (this.symWeight.get(i) ?? 0) + w);
        hits.push(i);
      }
      const share = w / Math.sqrt(Math.max(1, hits.length));
      const why = `entity:${e.entityId}`;
      for (const i of hits) this.add(i, share, why);
    }
  }
}
