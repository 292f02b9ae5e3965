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
    it("deletes keys and prefixes, leaving the rest", async () => {
      const s = make();
      await s.put("del/a/1", "1");
      await s.put("del/a/2", "2");
      await s.put("del/ab", "3");
      await s.put("del/b/1", "4");
      await s.delete(["del/b/1", "del/missing"]);
      expect(await s.has("del/b/1")).toBe(false);
      expect(await s.deletePrefix("del/a/")).toBe(2);
      expect(await s.has("del/a/1")).toBe(false);
      expect(await s.get("del/ab")).toBe("3");
      expect(await s.deletePrefix("del/a/")).toBe(0);
    });
  });
}
