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
