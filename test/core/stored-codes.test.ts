/**
 * The codes capital-chunk snapshots store for edge types and chunk kinds are append-only: the
 * pinned lists below are every code written so far, in order. Adding a type appends to the tables
 * in src/core/capital/codes.ts and then to these lists; inserting, removing or reordering fails.
 */
import { describe, expect, it } from "vitest";
import { CapitalStore } from "../../src/core/capital";
import { CHUNK_KIND_CODES, EDGE_TYPE_CODES, KNOWN_CODES, UnknownCode } from "../../src/core/capital/codes";
import { TYPE_MASK } from "../../src/core/capital/layout";
import { CHUNK_KINDS, type ChangeOp, DEFAULT_PARAMS, EDGE_TYPES } from "../../src/core/types";

const PINNED_EDGE_TYPES = [
  "cites",
  "benchmarked-on",
  "implements",
  "tests",
  "part-of",
  "depends-on",
  "introduced-by",
  "discussed-in",
  "deprecated-by",
  "motivates",
  "mentions",
  "follows",
];
const PINNED_CHUNK_KINDS = [
  "paper",
  "section",
  "code_unit",
  "benchmark_row",
  "record",
  "decision",
  "note",
  "dataset",
  "technique",
  "design",
  "element",
];

describe("stored codes", () => {
  it("keep every code written so far, in order (append-only)", () => {
    expect(EDGE_TYPE_CODES.slice(0, PINNED_EDGE_TYPES.length)).toEqual(PINNED_EDGE_TYPES);
    expect(CHUNK_KIND_CODES.slice(0, PINNED_CHUNK_KINDS.length)).toEqual(PINNED_CHUNK_KINDS);
  });

  it("give every edge type and chunk kind of the API one code that fits its field", () => {
    expect(new Set(EDGE_TYPE_CODES).size).toBe(EDGE_TYPE_CODES.length);
    expect(new Set(CHUNK_KIND_CODES).size).toBe(CHUNK_KIND_CODES.length);
    expect([...EDGE_TYPES].sort()).toEqual([...EDGE_TYPE_CODES].sort());
    expect([...CHUNK_KINDS].sort()).toEqual([...CHUNK_KIND_CODES].sort());
    expect(EDGE_TYPE_CODES.length).toBeLessThanOrEqual(TYPE_MASK + 1);
    expect(CHUNK_KIND_CODES.length).toBeLessThanOrEqual(256);
  });
});

// ------------------------------------------------------------------ snapshots with unknown codes

function store(): CapitalStore {
  const s = new CapitalStore(DEFAULT_PARAMS);
  const head = (chunk: string): ChangeOp => ({
    op: "head.upsert",
    chunk,
    kind: "element",
    version: 1,
    validFrom: 1,
    recordedAt: 1,
    entities: [],
    boundaries: [],
    sketch: "A".repeat(44),
  });
  s.apply(head("a"));
  s.apply(head("b"));
  s.apply({ op: "edge.upsert", src: "a", dst: "b", type: "follows", weight: 1, validFrom: 1, validTo: null });
  return s;
}

interface Header {
  codes?: { edge: number; kind: number };
  layout: Array<{ name: string; offset: number; bytes: number }>;
}

/** The snapshot with its header rewritten and/or one byte of a named array changed. */
function patched(buf: Uint8Array, edit: (h: Header, arrays: Uint8Array) => void): Uint8Array {
  const hl = new DataView(buf.buffer, buf.byteOffset).getUint32(4, true);
  const h = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + hl))) as Header;
  const arrays = buf.slice(Math.ceil((8 + hl) / 8) * 8);
  edit(h, arrays);
  const hb = new TextEncoder().encode(JSON.stringify(h));
  const base = Math.ceil((8 + hb.byteLength) / 8) * 8;
  const out = new Uint8Array(base + arrays.byteLength);
  out.set(buf.subarray(0, 4), 0);
  new DataView(out.buffer).setUint32(4, hb.byteLength, true);
  out.set(hb, 8);
  out.set(arrays, base);
  return out;
}

const region = (h: Header, name: string) => h.layout.find((l) => l.name === name) as { offset: number; bytes: number };

describe("a snapshot with codes this build does not know", () => {
  const snap = store().serialize();

  it("loads when every code is known, and records how many codes its writer knew", () => {
    let codes: Header["codes"];
    patched(snap, (h) => {
      codes = h.codes;
    });
    expect(codes).toEqual(KNOWN_CODES);
    const back = CapitalStore.deserialize(snap);
    expect(back.neighbours("a", 10).map((n) => n.type)).toEqual(["follows"]);
  });

  it("is refused when its writer knew more edge types or kinds", () => {
    const newer = patched(snap, (h) => {
      h.codes = { edge: KNOWN_CODES.edge + 1, kind: KNOWN_CODES.kind };
    });
    expect(() => CapitalStore.deserialize(newer)).toThrow(UnknownCode);
    expect(() => CapitalStore.deserialize(newer)).toThrow(/snapshot written with 13 edge-type/);
  });

  it("is refused when a slot holds an unknown edge-type code, or a node an unknown kind", () => {
    const slot = patched(snap, (h, a) => {
      const r = region(h, "slotType");
      a[r.offset] = ((a[r.offset] as number) & ~TYPE_MASK) | KNOWN_CODES.edge;
    });
    expect(() => CapitalStore.deserialize(slot)).toThrow(/slot 0 has edge-type code 12/);
    const kind = patched(snap, (h, a) => {
      a[region(h, "kind").offset] = KNOWN_CODES.kind;
    });
    expect(() => CapitalStore.deserialize(kind)).toThrow(/node 0 has chunk-kind code 11/);
  });
});
