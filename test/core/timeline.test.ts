import { describe, expect, it } from "vitest";
import { CapitalStore, route } from "../../src/core/capital";
import type { ArtifactInput } from "../../src/core/ingest";
import { queryTerms } from "../../src/core/text/lexical";
import { DEFAULT_PARAMS, type RouteInput } from "../../src/core/types";
import { ingestInto } from "../fixtures/ingest-state";

const ingest = ingestInto;

const ask = (query: string, over: Partial<RouteInput> = {}): RouteInput => ({
  mentions: [],
  identifiers: [],
  boundaries: [],
  semantic: [],
  querySketch: new Uint8Array(32),
  terms: queryTerms(query),
  asOf: 1e13,
  now: 1e13,
  limit: 3,
  ...over,
});

const turn = (id: string, at: number, text: string, extra: Partial<ArtifactInput> = {}): ArtifactInput => ({
  id,
  kind: "record",
  title: `turn ${id}`,
  content: text,
  valid_from: at,
  ...extra,
});

const follows = (s: CapitalStore, id: string) =>
  s
    .neighbours(id, 1e13)
    .filter((n) => n.type === "follows" && n.direction === "out")
    .map((n) => n.chunk)
    .sort();

describe("records form a timeline (derived `follows` edges)", () => {
  const talk = [
    turn("t1", 1000, "Caroline: Got any paintings to show? I'd love to see them."),
    turn("t2", 2000, "Melanie: Here's one I did last week, inspired by the sunsets over the lake."),
    turn("t3", 3000, "Caroline: The colours are calm. Let's go hiking on Sunday."),
    turn("t4", 4000, "Melanie: Sure, bring the dog along."),
  ];

  it("links each record to the one before it, so a question reaches the reply next to its match", async () => {
    const s = new CapitalStore(DEFAULT_PARAMS);
    await ingest(s, talk, 5000);
    expect(follows(s, "t2")).toEqual(["t1"]);
    expect(follows(s, "t3")).toEqual(["t2"]);
    expect(follows(s, "t1")).toEqual([]);
    // "paintings" matches only t1; the reply t2 (no shared word) is reached over the edge.
    const r = route(s, ask("Which paintings were shown?"));
    expect(r.selected.map((x) => x.chunk)).toContain("t2");
    expect(r.trace.routerSteps.some((st) => st.edgeType === "follows" && st.to === "t2")).toBe(true);
  });

  it("orders by valid_from, not arrival: a back-dated record lands between its neighbours", async () => {
    const s = new CapitalStore(DEFAULT_PARAMS);
    await ingest(s, [talk[0], talk[2]] as ArtifactInput[], 5000);
    await ingest(s, [talk[1]] as ArtifactInput[], 6000);
    expect(follows(s, "t2")).toEqual(["t1"]);
    expect(follows(s, "t3")).toContain("t2");
  });

  it("breaks equal times by arrival, keeps boundary sets apart, and leaves notes and new versions alone", async () => {
    const s = new CapitalStore(DEFAULT_PARAMS);
    await ingest(
      s,
      [
        turn("a1", 1000, "first", { boundaries: ["alice"] }),
        turn("b1", 1000, "other conversation", { boundaries: ["bob"] }),
        turn("a2", 1000, "second", { boundaries: ["alice"] }),
        { id: "n1", kind: "note", title: "a note", content: "plain note", valid_from: 1000 },
        { id: "n2", kind: "note", title: "another note", content: "plain note two", valid_from: 1000 },
      ],
      5000,
    );
    expect(follows(s, "a2")).toEqual(["a1"]);
    expect(follows(s, "b1")).toEqual([]);
    expect(follows(s, "n2")).toEqual([]);
    // A new version of a2 does not move it on the timeline or add links.
    await ingest(s, [turn("a2", 9000, "second, edited", { boundaries: ["alice"] })], 9500);
    expect(follows(s, "a2")).toEqual(["a1"]);
    await ingest(s, [turn("a3", 8000, "third", { boundaries: ["alice"] })], 9600);
    expect(follows(s, "a3")).toEqual(["a2"]);
  });

  it("survives a snapshot: links made after a restore are the same as in one pass", async () => {
    const one = new CapitalStore(DEFAULT_PARAMS);
    await ingest(one, talk, 5000);
    const half = new CapitalStore(DEFAULT_PARAMS);
    await ingest(half, [talk[0], talk[1]] as ArtifactInput[], 5000);
    const restored = CapitalStore.deserialize(half.serialize());
    await ingest(restored, [talk[2], talk[3]] as ArtifactInput[], 5000);
    expect(follows(restored, "t3")).toEqual(["t2"]);
    for (const id of ["t1", "t2", "t3", "t4"]) expect(follows(restored, id)).toEqual(follows(one, id));
  });
});
