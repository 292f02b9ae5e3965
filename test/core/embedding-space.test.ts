/**
 * Embedding spaces (core/embed/space.ts): what ingest and queries may do for each state of an
 * archive's recorded space against the configured embedder; and the capital chunk's `head.sketch`
 * change, by which a re-embed replaces a head's sketch without mixing in an older version's.
 */
import { describe, expect, it } from "vitest";
import { CapitalStore } from "../../src/core/capital";
import { planSpace, sameSpace } from "../../src/core/embed/space";
import { fromBase64, toBase64 } from "../../src/core/sketch";
import { type ArchiveSpaceState, type ChangeOp, DEFAULT_PARAMS } from "../../src/core/types";

const A = { model: "pg-hashed-tf-v1", dims: 384 };
const B = { model: "text-embedding-3-small", dims: 1536 };
const B384 = { model: "bge-small-en-v1.5", dims: 384 };
const state = (over: Partial<ArchiveSpaceState>): ArchiveSpaceState => ({
  space: null,
  staleSince: null,
  job: null,
  ...over,
});

describe("planSpace", () => {
  it("the configured space, and no record yet, use everything", () => {
    expect(planSpace(state({ space: A }), A)).toEqual({
      status: "current",
      semantic: true,
      writeVectors: true,
      record: false,
    });
    expect(planSpace(state({}), A)).toEqual({ status: "unrecorded", semantic: true, writeVectors: true, record: true });
  });

  it("another model, even of the same dimension, is another space: no semantic seeds, no vector written", () => {
    for (const configured of [B, B384])
      expect(planSpace(state({ space: A }), configured)).toEqual({
        status: "stale",
        semantic: false,
        writeVectors: false,
        record: false,
      });
    expect(sameSpace(A, { ...A })).toBe(true);
    expect(sameSpace(A, { ...A, dims: 256 })).toBe(false);
  });

  it("heads without a vector in the recorded space keep semantic seeds off; vectors in it are still written", () => {
    expect(planSpace(state({ space: A, staleSince: 5 }), A)).toEqual({
      status: "stale",
      semantic: false,
      writeVectors: true,
      record: false,
    });
  });

  it("while a re-embed runs: no semantic seeds; vectors written only in its target space", () => {
    const job = { id: 1, target: B, startedAt: 10 };
    expect(planSpace(state({ space: A, staleSince: 10, job }), B)).toEqual({
      status: "reembedding",
      semantic: false,
      writeVectors: true,
      record: false,
    });
    // An isolate still configured with the old embedder (a rollout) writes nothing.
    expect(planSpace(state({ space: A, staleSince: 10, job }), A)).toMatchObject({
      status: "stale",
      semantic: false,
      writeVectors: false,
    });
  });
});

describe("head.sketch", () => {
  const sk = (b: number) => toBase64(new Uint8Array(32).fill(b));
  const head = (chunk: string, version: number, sketch: string): ChangeOp => ({
    op: "head.upsert",
    chunk,
    kind: "note",
    version,
    validFrom: version * 100,
    recordedAt: version * 100,
    entities: [],
    boundaries: [],
    sketch,
  });
  const sketchOf = (s: CapitalStore, chunk: string) => {
    const g = s.lookupG(chunk);
    return g === undefined ? null : toBase64(s.sketchOf(s.local(g)));
  };

  it("replaces the sketch of the version it was computed from, and only that one", () => {
    const s = new CapitalStore(DEFAULT_PARAMS);
    s.apply(head("a", 1, sk(1)));
    s.apply({ op: "head.sketch", chunk: "a", version: 1, sketch: sk(2) });
    expect(sketchOf(s, "a")).toBe(sk(2));
    // A later version brings its own sketch; a re-embed of the earlier one logged after it is ignored.
    s.apply(head("a", 2, sk(3)));
    s.apply({ op: "head.sketch", chunk: "a", version: 1, sketch: sk(4) });
    expect(sketchOf(s, "a")).toBe(sk(3));
    expect(fromBase64(sk(3))).toHaveLength(32);
  });

  it("does not number an id it has never seen (a forgotten chunk)", () => {
    const s = new CapitalStore(DEFAULT_PARAMS);
    s.apply(head("a", 1, sk(1)));
    s.apply({ op: "head.sketch", chunk: "gone", version: 1, sketch: sk(2) });
    expect(s.lookupG("gone")).toBeUndefined();
    expect(s.stats().heads).toBe(1);
  });
});
