/**
 * The name layer of a capital store (store.ts): entities, their postings and merges, grounding of
 * names in content, and the `mentions` and `follows` edges derived from them (names shard only).
 */
import { canonicalPaperId, normAlias, slug } from "../ids";
import type { EdgeType } from "../types";
import { LexicalLayer } from "./lexical-layer";
import type { DerivedAt, DerivedEdge } from "./records";
import { DERIVED_TYPES } from "./slot-layer";

/** Heads linked per derived `mentions` step (a new owner from its mentioners, a mention to owners). */
export const MAX_MENTION_LINKS = 64;

/** The alias key a `concept:` id grounds through (null for other ids). */
export function conceptAliasKey(id: string): string | null {
  if (!id.startsWith("concept:")) return null;
  // Concept slugs are ASCII in the common case and then already alias keys (no folding to do).
  const key = id.slice(8).replace(/-/g, " ");
  return /^[ -~]*$/.test(key) ? key : normAlias(key);
}

/** @internal Layer 4 of CapitalStore (store.ts). */
export class NameLayer extends LexicalLayer {
  /** Entity merges (rare): merged entity -> (into, at), and into -> entities merged into it. */
  /** @internal */ mergedInto = new Map<number, { into: number; at: number }>();
  /** @internal */ mergedFrom = new Map<number, number[]>();
  /** @internal */ aliasCount = 0;
  /**
   * Edges derived at change-log positions from the first other shard's on (names shard of a sharded
   * archive only): what the other shards take with applyDerived, drained by the caller.
   */
  #derived: DerivedAt[] = [];

  protected entityOf(id: string): number {
    return this.tables.entityIndex(id) ?? this.tables.entityAdd(id);
  }

  /** @internal The entity with this id, if any. */
  entityIndex(id: string): number | undefined {
    return this.tables.entityIndex(id);
  }

  /** @internal The id of entity e. */
  entityId(e: number): string {
    return this.tables.entityId(e);
  }

  /** @internal Postings of entity e (without merges). */
  postCount(e: number): number {
    return this.tables.entityPosts.count(e);
  }

  /** @internal Visit e's postings newest first until `visit` returns false or `cap` were visited. */
  eachPosting(e: number, cap: number, visit: (node: number) => boolean | undefined): number {
    return this.tables.entityPosts.each(e, cap, visit);
  }

  protected addPosting(e: number, node: number, scan: boolean) {
    // Only revisions and extensions re-add entities; a new head skips the check.
    if (scan && this.tables.posted(e, node)) return;
    this.tables.post(e, node);
  }

  // ------------------------------------------------------------------ grounding and mentions

  /**
   * The entity a head's entity id stands for. A `concept:` id (a name grounded in content) that is
   * not an entity yet but whose name is an open alias of one (a declared method, a paper title)
   * grounds to that entity instead, so "HippoRAG" in a passage meets `method:hipporag`.
   * @internal
   */
  groundEntity(id: string, t: number): number {
    const known = this.tables.entityIndex(id);
    if (known !== undefined || !id.startsWith("concept:")) return known ?? this.tables.entityAdd(id);
    const list = this.tables.aliases(conceptAliasKey(id) as string);
    const hit = list?.find((a) => a.from <= t && t < a.to);
    return hit ? this.followMerges(hit.e, t).e : this.tables.entityAdd(id);
  }

  /**
   * Derived `mentions` edges: a head whose text names a concept that another head's title names
   * points at that head, in both orders of arrival. A new owner is linked from the heads already
   * naming its concept, at most MAX_MENTION_LINKS of them (most recent first), so the cost of one
   * head is bounded whatever the archive size. Heads sharing one title do not link each other.
   */
  protected linkMentions(i: number, ents: number[], owns: number[], at: number) {
    // i and the tables' nodes are archive-wide numbers.
    const ownSet = new Set(owns);
    for (const e of ents) {
      if (ownSet.has(e)) continue;
      const list = this.tables.owners(e);
      for (const o of list.slice(-MAX_MENTION_LINKS)) if (o !== i) this.deriveEdge(i, o, 0, at);
    }
    for (const e of owns) {
      const before = this.tables.owners(e);
      if (before.includes(i)) continue;
      this.tables.addOwner(e, i);
      const others = new Set(before);
      others.add(i);
      let linked = 0;
      this.eachPosting(e, Number.POSITIVE_INFINITY, (p) => {
        if (others.has(p)) return true;
        this.deriveEdge(p, i, 0, at);
        linked++;
        return linked < MAX_MENTION_LINKS;
      });
    }
  }

  /**
   * Derived `follows` edges: a new record (a conversation turn, an event) follows the record just
   * before it on its timeline and is followed by the one just after it, so a question that matches
   * one turn reaches the reply next to it. Two links per record whatever the archive size; a
   * back-dated record adds its two links and leaves the link between its neighbours in place.
   */
  protected linkTimeline(i: number, boundaries: string[], at: number) {
    const key = [...boundaries].sort().join("\u0000");
    const { prev, next } = this.tables.timelineInsert(key, at, i);
    if (prev >= 0) this.deriveEdge(i, prev, 1, at);
    if (next >= 0) this.deriveEdge(next, i, 1, at);
  }

  /** A derived edge (type: its DERIVED_TYPES code), kept for the other shards once there are any. */
  private deriveEdge(ga: number, gb: number, type: number, at: number): void {
    this.addEdgeG(ga, gb, DERIVED_TYPES[type] as EdgeType, 1, at, null);
    if (!this.sharded || this.applySeq < this.ownTo) return;
    const last = this.#derived[this.#derived.length - 1];
    if (last?.seq === this.applySeq) last.edges.push([ga, gb, type, at]);
    else this.#derived.push({ seq: this.applySeq, edges: [[ga, gb, type, at]] });
  }

  /**
   * The edges derived since the last drain, by change-log position (names shard of a sharded
   * archive: the positions at or after the first other shard's, where they can touch its nodes).
   */
  drainDerived(): DerivedAt[] {
    const out = this.#derived;
    this.#derived = [];
    return out;
  }

  /**
   * Take the edges the names shard derived at the change just applied (every shard but the names
   * shard, right after apply() of that change, so slots change in the order one store changes them).
   */
  applyDerived(edges: readonly DerivedEdge[]): void {
    if (this.derives) throw new Error("the names shard derives its own edges");
    for (const [ga, gb, type, at] of edges) {
      const t = DERIVED_TYPES[type];
      if (
        t === undefined ||
        !Number.isInteger(ga) ||
        !Number.isInteger(gb) ||
        ga >= this.globalCount ||
        gb >= this.globalCount
      )
        throw new Error(`derived edge ${JSON.stringify([ga, gb, type, at])} names no node of this archive`);
      this.addEdgeG(ga, gb, t, 1, at, null);
    }
  }

  // ------------------------------------------------------------------ entities

  /** @internal */
  followMerges(e: number, t: number): { e: number; merged: boolean } {
    let cur = e;
    let merged = false;
    for (let hops = 0; hops < 16; hops++) {
      const m = this.mergedInto.get(cur);
      if (!m || m.at > t) break;
      cur = m.into;
      merged = true;
    }
    return { e: cur, merged };
  }

  /** @internal All entities a mention resolves to at t (ids and aliases), after merges. */
  resolveIdx(mention: string, t: number): Array<{ e: number; via: string }> {
    // A paper identifier in any written form ("arXiv:2104.06921v2", "https://doi.org/...") is
    // canonicalised first; a work known under another id has this one as an alias.
    const id = canonicalPaperId(mention) ?? mention.trim();
    const direct = this.tables.entityIndex(id);
    if (direct !== undefined) {
      const m = this.followMerges(direct, t);
      return [{ e: m.e, via: m.merged ? "merge" : "identifier" }];
    }
    const list = this.tables.aliases(normAlias(id));
    if (!list || list.length === 0) {
      // A name grounded in content is an entity without alias rows: its id is the name's slug.
      const s = slug(id);
      const concept = s ? this.tables.entityIndex(`concept:${s}`) : undefined;
      if (concept === undefined || this.postCount(concept) === 0) return [];
      const m = this.followMerges(concept, t);
      return [{ e: m.e, via: m.merged ? "merge" : "grounded" }];
    }
    let chosen = list.filter((a) => a.from <= t && t < a.to);
    let via = "alias";
    if (chosen.length === 0) {
      // A renamed entity's old name keeps resolving after the rename closed it (and a name
      // introduced later resolves for earlier times): the most recent entry wins.
      const latest = list.reduce((b, a) => (a.from > b.from ? a : b));
      chosen = list.filter((a) => a.from === latest.from);
      via = "alias-historical";
    }
    const out = new Map<number, string>();
    for (const a of chosen) {
      const m = this.followMerges(a.e, t);
      if (!out.has(m.e)) out.set(m.e, m.merged ? "merge" : via);
    }
    return [...out.entries()].map(([e, v]) => ({ e, via: v }));
  }

  /**
   * The entity a mention denotes at t; when the name is an alias of several entities (two people
   * named "J. Smith"), `candidates` lists them all and the first is only the earliest declared.
   */
  resolve(
    mention: string,
    t: number,
  ): { entity: string; name: string; via: string; candidates?: Array<{ entity: string; name: string }> } | null {
    const r = this.resolveIdx(mention, t);
    const first = r[0];
    if (!first) return null;
    const show = (e: number) => {
      const id = this.tables.entityId(e);
      const name = this.tables.entityName(e);
      // Grounded concepts keep no name string of their own (memory): show the words of the slug.
      return { entity: id, name: name === id && id.startsWith("concept:") ? id.slice(8).replace(/-/g, " ") : name };
    };
    return { ...show(first.e), via: first.via, ...(r.length > 1 ? { candidates: r.map((x) => show(x.e)) } : {}) };
  }

  /** @internal Node postings of an entity as of t, including entities merged into it by then. */
  postingsAt(e: number, t: number, visit: (node: number) => void, cap: number): number {
    let seen = 0;
    const stack = [e];
    while (stack.length) {
      const cur = stack.pop() as number;
      // Most recent first: the newest postings are the likeliest to be visible and relevant.
      seen += this.eachPosting(cur, cap - seen, (node) => {
        visit(node);
        return true;
      });
      for (const f of this.mergedFrom.get(cur) ?? [])
        if ((this.mergedInto.get(f)?.at ?? Number.POSITIVE_INFINITY) <= t) stack.push(f);
    }
    return seen;
  }

  /** @internal */
  docFreq(e: number): number {
    let n = this.postCount(e);
    for (const f of this.mergedFrom.get(e) ?? []) n += this.postCount(f);
    return n;
  }
}
