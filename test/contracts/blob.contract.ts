import { describe, expect, it } from "vitest";
import type { BlobStore } from "../../src/core/ports";

/** BlobStore contract: run against every implementation (memory in Node, R2 in workerd). */
export function blobStoreContract(name: string, make: () => BlobStore) {
  describe(`BlobStore contract: ${name}`, () => {
    it("round-trips text exactly, including non-ASCII", async () => {
      const s = make();
      const text = "HippoRAG — Personalized PageRank 🧠 résumé\n\tline 2";
      await s.put("k/a", text);
      expect(await s.get("k/a")).toBe(text);
      expect(await s.has("k/a")).toBe(true);
    });
    it("returns null / false for missing keys", async () => {
      const s = make();
      expect(await s.get("missing/key")).toBeNull();
      expect(await s.has("missing/key")).toBe(false);
    });
    it("put is idempotent for content-addressed keys", async () => {
      const s = make();
      await s.put("k/b", "same");
      await s.put("k/b", "same");
      expect(await s.get("k/b")).toBe("same");
    });
  });
}
