import { describe, expect, it } from "vitest";
import { discoveryDedupEval } from "../../scripts/lib/discovery-eval";

describe("one-shot discovery's merge of the five recorded engine answers (the eval row)", () => {
  it("merges HippoRAG's five records into one and leaves no two records of one work", () => {
    const r = discoveryDedupEval();
    expect(r.engines).toBe(5);
    expect(r.hippoEngines).toBe(5);
    expect(r.duplicatesLeft).toBe(0);
    expect(r.unique).toBe(r.fetched - r.mergedByDoi - r.mergedByArxiv - r.mergedByTitle);
  });
});

describe("the reranker port against the mock endpoint (the eval row)", () => {
  it("reads all four answer shapes back as the mock's scores, in document order", async () => {
    const { rerankEval } = await import("../../scripts/lib/rerank-eval");
    const r = await rerankEval();
    expect(r.providers.map((p) => p.provider)).toEqual(["tei", "cohere", "jina", "vllm"]);
    for (const p of r.providers) {
      expect(p.error, p.provider).toBeNull();
      expect(p.agree, p.provider).toBe(r.records);
      expect(p.requests, p.provider).toBe(1);
    }
  });
});
