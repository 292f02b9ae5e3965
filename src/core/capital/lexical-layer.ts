/**
 * The lexical layer of a capital store (store.ts): one document per head version (its bag of terms)
 * and Okapi BM25 over the term postings, which are in the tables.
 */
import { BM25_B, BM25_K1, parseDocTerms, termHash } from "../text/lexical";
import { DEPRECATED, growF32, growI32, growU8, growU32 } from "./layout";
import { lexicalPlan } from "./lexical-plan";
import { scratch } from "./scratch";
import { SlotLayer } from "./slot-layer";

/** @internal Layer 3 of CapitalStore (store.ts). */
export class LexicalLayer extends SlotLayer {
  // ---- lexical index: one document per head version (its bag of terms); the postings per hashed
  // term (document and term frequency) are in the tables.
  // A document is valid while its version is (from that version's start to the next one's and the
  // head's end), so it keeps the version's position among the node's starts, not the times.
  /** @internal */ docNode: Int32Array = new Int32Array(0);
  /** @internal */ docVer: Uint32Array = new Uint32Array(0);
  /** @internal */ docLen: Float32Array = new Float32Array(0);
  /** 1 once the document no longer counts among the open ones (superseded or deprecated). */
  /** @internal */ docClosed: Uint8Array = new Uint8Array(0);
  /** @internal */ docCount = 0;
  /** Documents currently open (the latest version of a live head) and their summed length. */
  /** @internal */ openDocs = 0;
  /** @internal */ openLen = 0;

  private growDocs(n: number) {
    if (n <= this.docNode.length) return;
    const c = Math.max(64, Math.ceil(this.docNode.length * 1.5), n);
    this.docNode = growI32(this.docNode, c);
    this.docVer = growU32(this.docVer, c);
    this.docLen = growF32(this.docLen, c);
    this.docClosed = growU8(this.docClosed, c);
  }

  protected closeLexicalDoc(i: number) {
    const d = this.nodeDoc[i] as number;
    if (d < 0 || this.docClosed[d] === 1) return;
    this.docClosed[d] = 1;
    this.openDocs--;
    this.openLen -= this.docLen[d] as number;
  }

  /** A new version's bag of terms ("term:tf ..."); the previous version's document ends here. */
  protected addLexicalDoc(i: number, encoded: string, len: number) {
    this.closeLexicalDoc(i);
    const d = this.docCount++;
    this.growDocs(d + 1);
    this.docNode[d] = i;
    this.docVer[d] = Math.max(1, this.startsLen(i)) - 1;
    this.docLen[d] = len;
    this.nodeDoc[i] = d;
    if (((this.flags[i] as number) & DEPRECATED) !== 0) this.docClosed[d] = 1;
    else {
      this.openDocs++;
      this.openLen += len;
    }
    for (const [term, tf] of parseDocTerms(encoded)) this.tables.termPosts.push(termHash(term), d, tf);
  }

  /**
   * Okapi BM25 (k1 1.2, b 0.75) of the heads visible at t whose version's bag holds the query terms;
   * IDF = ln(1 + (N - df + 0.5) / (df + 0.5)) with N the open documents. At most `maxPostings`
   * postings are read per term, newest first, so a query costs O(terms x maxPostings) at any size.
   * Terms are scored rarest first until `budget` postings have been read.
   * Returns node -> score.
   * @internal
   */
  lexicalScores(
    queryTerms: string[],
    t: number,
    maxPostings: number,
    budget = Number.POSITIVE_INFINITY,
  ): Map<number, number> {
    const n = Math.max(1, this.openDocs);
    const avg = this.openDocs > 0 ? Math.max(1, this.openLen / this.openDocs) : 1;
    const plan = lexicalPlan(this.termCounts(queryTerms), n, maxPostings, budget);
    return this.lexicalScan(
      plan.map((p) => [p.term, p.cap, p.idf]),
      t,
      avg,
    );
  }

  /** @internal Hashed query terms (distinct, in query order) and their posting counts here. */
  termCounts(queryTerms: string[]): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    const seen = new Set<number>();
    for (const q of queryTerms) {
      const term = termHash(q);
      if (seen.has(term)) continue;
      seen.add(term);
      out.push([term, this.tables.termPosts.count(term)]);
    }
    return out;
  }

  /**
   * @internal BM25 of this store's documents visible at t for a plan of (term hash, postings to
   * read newest first, IDF), in plan order; `avg` is the mean document length. Local node -> score.
   */
  lexicalScan(plan: Array<[number, number, number]>, t: number, avg: number): Map<number, number> {
    // Dense accumulator by node with a touched list: no hashing per posting, reset costs the hits.
    // It borrows the diffusion's scratch vector, which is all zero between queries too.
    const acc = scratch(this).g;
    const touched: number[] = [];
    const lists = this.tables.termPosts;
    for (const [term, cap, idf] of plan) {
      if (cap <= 0) continue;
      lists.each(term, cap, (d, tf) => {
        const node = this.docNode[d] as number;
        // Valid from its version's start to the next version's start.
        const v = this.docVer[d] as number;
        const several = v > 0 || this.nodeDoc[node] !== d ? this.startsLen(node) : 0;
        const from = several ? this.startAt(node, v) : (this.firstValidFrom[node] as number);
        if (from > t || (v + 1 < several && t >= this.startAt(node, v + 1))) return true;
        // A document exists only for a head, starts no earlier than it, and ends at its
        // deprecation; only a deprecation dated before a later version began needs this check.
        if (t >= this.endOf(node)) return true;
        const norm = tf + BM25_K1 * (1 - BM25_B + (BM25_B * (this.docLen[d] as number)) / avg);
        if (acc[node] === 0) touched.push(node);
        acc[node] = (acc[node] as number) + (idf * (tf * (BM25_K1 + 1))) / norm;
        return true;
      });
    }
    const out = new Map<number, number>();
    for (const node of touched) {
      out.set(node, acc[node] as number);
      acc[node] = 0;
    }
    return out;
  }

  /** Document frequency of a query term (0 when unknown), for query analysis. */
  termDocFreq(term: string): number {
    return this.tables.termPosts.count(termHash(term));
  }
}
