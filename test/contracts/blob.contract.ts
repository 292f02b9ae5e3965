import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/ingest";
import { PackedBlobStore, packMember } from "../../src/core/packs";
import type { ObjectStore } from "../../src/core/ports";

let n = 0;
/** A prefix no other case of this run uses (the stores are shared within a test file). */
const fresh = (name: string) => `contract/${name}/${Date.now().toString(36)}-${n++}/`;

async function contents(texts: string[]): Promise<Map<string, string>> {
  const m = new Map<string, string>();
  for (const t of texts) m.set(await sha256Hex(t), t);
  return m;
}

/** ObjectStore contract: run against every implementation (memory in Node, R2 in workerd). */
export function objectStoreContract(name: string, make: () => ObjectStore) {
  describe(`ObjectStore contract: ${name}`, () => {
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
      expect(await s.getRange("missing/key", 0, 1)).toBeNull();
      expect(await s.getTagged("missing/key")).toBeNull();
    });
    it("put is idempotent for content-addressed keys", async () => {
      const s = make();
      await s.put("k/b", "same");
      await s.put("k/b", "same");
      expect(await s.get("k/b")).toBe("same");
    });
    it("reads byte ranges of UTF-8 text; a range past the end reads as missing", async () => {
      const s = make();
      const key = `${fresh("range")}x`;
      await s.put(key, "aé🧠z");
      expect(await s.getRange(key, 0, 1)).toBe("a");
      expect(await s.getRange(key, 1, 2)).toBe("é");
      expect(await s.getRange(key, 3, 4)).toBe("🧠");
      expect(await s.getRange(key, 7, 1)).toBe("z");
      expect(await s.getRange(key, 7, 2)).toBeNull();
    });
    it("replaceIf writes only over the tag it read", async () => {
      const s = make();
      const key = `${fresh("cas")}x`;
      await s.put(key, "one");
      const t1 = await s.getTagged(key);
      expect(t1?.text).toBe("one");
      expect(await s.replaceIf(key, "two", t1?.tag as string)).toBe(true);
      expect(await s.replaceIf(key, "three", t1?.tag as string)).toBe(false);
      expect(await s.get(key)).toBe("two");
      const t2 = await s.getTagged(key);
      expect(t2?.tag).not.toBe(t1?.tag);
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

/** Packed contents over an ObjectStore: the same cases for every implementation. */
export function packedContentContract(name: string, make: () => ObjectStore) {
  describe(`packed contents over ${name}`, () => {
    it("a batch is one object; every content reads back exactly through its own key", async () => {
      const raw = make();
      const blobs = new PackedBlobStore(raw);
      const prefix = fresh("pack");
      const texts = ["first passage", "", "résumé 🧠 — non-ASCII", "x".repeat(5000)];
      const cs = await contents(texts);
      const keys = await blobs.putPack(prefix, cs);
      expect(keys.size).toBe(cs.size);
      for (const [sha, text] of cs) {
        const key = keys.get(sha) as string;
        expect(key.startsWith(`${prefix}packs/`)).toBe(true);
        expect(key.endsWith(`/${sha}`)).toBe(true);
        expect(await blobs.get(key)).toBe(text);
        expect(await blobs.has(key)).toBe(true);
      }
      const packs = new Set([...keys.values()].map((k) => packMember(k)?.pack));
      expect(packs.size).toBe(1);
      // The same contents again: the same keys and the same single object.
      expect(await blobs.putPack(prefix, cs)).toEqual(keys);
      expect(await raw.get([...packs][0] as string)).toBe(texts.join(""));
    });

    it("deleting members overwrites exactly their bytes; the pack empties when all are gone", async () => {
      const raw = make();
      const blobs = new PackedBlobStore(raw);
      const prefix = fresh("forget");
      const texts = ["keep me", "SECRET diagnosis X-42", "also kept ü"];
      const cs = await contents(texts);
      const keys = await blobs.putPack(prefix, cs);
      const key = (t: string) => keys.get([...cs].find(([, v]) => v === t)?.[0] as string) as string;
      const pack = packMember(key("keep me"))?.pack as string;
      await blobs.delete([key("SECRET diagnosis X-42"), "contract/not/a/member"]);
      expect(await blobs.get(key("SECRET diagnosis X-42"))).toBeNull();
      expect(await blobs.get(key("keep me"))).toBe("keep me");
      expect(await blobs.get(key("also kept ü"))).toBe("also kept ü");
      expect(await raw.get(pack)).not.toContain("SECRET");
      await blobs.delete([key("keep me"), key("also kept ü")]);
      expect(await raw.get(pack)).toBe("");
      expect(await blobs.get(key("keep me"))).toBeNull();
      // Packing the same contents again writes them back.
      await blobs.putPack(prefix, cs);
      for (const t of texts) expect(await blobs.get(key(t))).toBe(t);
    });

    it("two deletions in one pack at once both take effect", async () => {
      const raw = make();
      const blobs = new PackedBlobStore(raw);
      const cs = await contents(["alpha one", "beta two", "gamma three"]);
      const keys = [...(await blobs.putPack(fresh("race"), cs)).values()];
      await Promise.all([blobs.delete([keys[0] as string]), blobs.delete([keys[2] as string])]);
      expect(await blobs.get(keys[0] as string)).toBeNull();
      expect(await blobs.get(keys[1] as string)).toBe("beta two");
      expect(await blobs.get(keys[2] as string)).toBeNull();
      const text = (await raw.get(packMember(keys[0] as string)?.pack as string)) as string;
      expect(text).not.toContain("alpha");
      expect(text).not.toContain("gamma");
    });

    it("plain keys pass through", async () => {
      const blobs = new PackedBlobStore(make());
      const key = `${fresh("plain")}body`;
      await blobs.put(key, "webhook body");
      expect(await blobs.get(key)).toBe("webhook body");
      await blobs.delete([key]);
      expect(await blobs.has(key)).toBe(false);
    });

    it("property: after any deletions, kept contents read exactly and deleted ones are gone from the bytes", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.string({ minLength: 1, maxLength: 40, unit: "grapheme" }), { minLength: 1, maxLength: 8 }),
          fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
          async (texts, drop) => {
            const raw = make();
            const blobs = new PackedBlobStore(raw);
            const cs = await contents(texts.map((t) => `<${t}>`));
            const keys = await blobs.putPack(fresh("prop"), cs);
            const entries = [...cs];
            const gone = entries.filter((_, i) => drop[i]);
            await blobs.delete(gone.map(([sha]) => keys.get(sha) as string));
            for (const [sha, text] of entries) {
              const read = await blobs.get(keys.get(sha) as string);
              expect(read).toBe(gone.some(([s]) => s === sha) ? null : text);
            }
            const m = packMember(keys.get(entries[0]?.[0] as string) as string) as { pack: string };
            const bytes = new TextEncoder().encode((await raw.get(m.pack)) ?? "");
            for (const [sha] of gone) {
              const g = packMember(keys.get(sha) as string) as { offset: number; length: number };
              expect(bytes.subarray(g.offset, g.offset + g.length).every((b) => b === 0)).toBe(true);
            }
          },
        ),
        { numRuns: 25 },
      );
    });
  });
}
