import { describe, expect, it } from "vitest";
import { NEAR_DUPLICATE_THRESHOLD, overlap, recordOverlap, wordSet } from "../../src/core/dedupe";
import { NEAR_DUPLICATE_PAIRS } from "../fixtures/near-duplicates";

describe("the near-duplicate rule", () => {
  it("separates the labelled revisions from the related-but-different records at the threshold", () => {
    const scores = NEAR_DUPLICATE_PAIRS.map((p) => ({ revision: p.revision, o: recordOverlap(p.a, p.b) }));
    const rev = scores.filter((s) => s.revision).map((s) => s.o);
    const dif = scores.filter((s) => !s.revision).map((s) => s.o);
    console.log(
      `near-duplicate overlap: revisions ${Math.min(...rev).toFixed(2)}-${Math.max(...rev).toFixed(2)}, different ${Math.min(...dif).toFixed(2)}-${Math.max(...dif).toFixed(2)}, threshold ${NEAR_DUPLICATE_THRESHOLD}`,
    );
    expect(rev.length).toBe(12);
    expect(dif.length).toBe(12);
    const tp = rev.filter((o) => o >= NEAR_DUPLICATE_THRESHOLD).length;
    const fp = dif.filter((o) => o >= NEAR_DUPLICATE_THRESHOLD).length;
    expect(tp / rev.length).toBe(1);
    expect(fp).toBe(0);
  });

  it("counts distinct content words, case-folded, without function words", () => {
    expect([...wordSet("The cache, the CACHE and a Cache of 64 MB")].sort()).toEqual(["64", "cache", "mb"]);
    expect(overlap(wordSet("a b"), wordSet(""))).toBe(0);
    expect(overlap(wordSet("cache heads evict"), wordSet("cache heads evict lru more words here"))).toBe(1);
  });
});
