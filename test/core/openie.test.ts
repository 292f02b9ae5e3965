import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseImport } from "../../src/app/intake/imports";
import { countRecords, detectFormat, splitRecords } from "../../src/cli/import";
import { fitArtifact } from "../../src/core/formats/common";
import { openIeTitle, parseOpenIe } from "../../src/core/formats/openie";
import { canonicalEntityId } from "../../src/core/ids";
import { type ArtifactInput, artifactHashOf, INGEST_LIMITS, prepareBatch, sha256Hex } from "../../src/core/ingest";
import { normaliseRelations, relationEntities } from "../../src/core/relations";

const FIXTURE = readFileSync(new URL("../fixtures/openie/openie_results_ner_fixture.json", import.meta.url), "utf8");

describe("relationEntities", () => {
  it("turns subjects and objects into entities, one per canonical id, other surface forms as aliases", () => {
    const ents = relationEntities([
      { subject: "Lake Verrin", predicate: "feeds", object: "Osk River" },
      { subject: "lake verrin", predicate: "located in", object: "Halden Range" },
      { subject: "Lake  Verrin", predicate: "near", object: "Osk River" },
    ]);
    expect(ents.map((e) => e.id)).toEqual(["concept:lake-verrin", "concept:osk-river", "concept:halden-range"]);
    const lake = ents[0];
    expect(lake?.name).toBe("Lake Verrin");
    // "lake verrin" and "Lake  Verrin" normalise like the name: same alias key, not repeated.
    expect(lake?.aliases).toBeUndefined();
    expect(ents.every((e) => e.type === "concept")).toBe(true);
  });

  it("uses given types, the type given to the same text elsewhere, declared entities, and paper ids", () => {
    const ents = relationEntities(
      [
        { subject: "HippoRAG", predicate: "uses", object: "Personalized PageRank", subject_type: "method" },
        { subject: "HippoRAG", predicate: "cites", object: "arXiv:2005.11401" },
        { subject: "Mara Quill", predicate: "surveyed", object: "Lake Verrin" },
      ],
      [{ type: "person", id: "person:m-quill", name: "M. Quill", aliases: ["Mara Quill"] }],
    );
    const byId = new Map(ents.map((e) => [e.id, e]));
    expect(byId.get("method:hipporag")?.type).toBe("method");
    expect(byId.has("concept:hipporag")).toBe(false);
    expect(byId.get("arxiv:2005.11401")?.type).toBe("paper");
    expect(byId.get("person:m-quill")?.name).toBe("Mara Quill");
    expect(byId.get("concept:personalized-pagerank")?.type).toBe("concept");
  });

  it("keeps a colon in a name as text, not as an id prefix; skips arguments without letters or digits", () => {
    const ents = relationEntities([{ subject: "Note: salt", predicate: "is", object: "—" }]);
    expect(ents.map((e) => e.id)).toEqual(["concept:note-salt"]);
    expect(canonicalEntityId(ents[0]?.type ?? "concept", ents[0]?.id ?? "")).toBe("concept:note-salt");
  });

  it("normaliseRelations trims and drops exact duplicates, in first-seen order", () => {
    expect(
      normaliseRelations([
        { subject: " A ", predicate: "p", object: "B" },
        { subject: "A", predicate: "p", object: "B" },
        { subject: "A", predicate: "p", object: "B", object_type: "dataset" },
      ]),
    ).toEqual([
      { subject: "A", predicate: "p", object: "B" },
      { subject: "A", predicate: "p", object: "B", object_type: "dataset" },
    ]);
  });
});

describe("relations at ingest", () => {
  const base: ArtifactInput = {
    id: "note:verrin",
    kind: "note",
    title: "Lake Verrin",
    content: "Lake Verrin is a glacial lake in the Halden Range. It feeds the Osk River.",
    entities: [{ type: "concept", name: "Halden Range" }],
    edges: [{ type: "cites", target: "note:osk" }],
  };

  it("artifacts without relations hash exactly as before (the pre-relations formula)", async () => {
    const n = prepareBatch([base]);
    if (!n.ok) throw new Error(n.error.message);
    const item = n.value.items[0];
    if (!item) throw new Error("no item");
    const before = await sha256Hex(
      JSON.stringify([
        base.kind,
        base.title,
        item.synopsis,
        base.content,
        item.entityIds,
        item.boundaries,
        item.edges.map((e) => [e.type, e.target, e.weight, e.valid_from ?? null, e.valid_to ?? null]),
      ]),
    );
    expect(await artifactHashOf(base)).toBe(before);
    expect(await artifactHashOf({ ...base, relations: [] })).toBe(before);
  });

  it("relations add entities, change the hash, and a different predicate alone changes it again", async () => {
    const rel = { ...base, relations: [{ subject: "Lake Verrin", predicate: "feeds", object: "Osk River" }] };
    const n = prepareBatch([rel]);
    if (!n.ok) throw new Error(n.error.message);
    expect(n.value.items[0]?.entityIds).toEqual(["concept:halden-range", "concept:lake-verrin", "concept:osk-river"]);
    expect(n.value.items[0]?.relations).toEqual(rel.relations);
    const h1 = await artifactHashOf(rel);
    expect(h1).not.toBe(await artifactHashOf(base));
    const h2 = await artifactHashOf({
      ...base,
      relations: [{ subject: "Lake Verrin", predicate: "drains into", object: "Osk River" }],
    });
    expect(h2).not.toBe(h1);
    // Duplicates and surrounding spaces do not make a new version.
    expect(
      await artifactHashOf({
        ...base,
        relations: [
          { subject: " Lake Verrin", predicate: "feeds", object: "Osk River " },
          { subject: "Lake Verrin", predicate: "feeds", object: "Osk River" },
        ],
      }),
    ).toBe(h1);
  });

  it("relation arguments count toward the entity limit (400 naming relations)", () => {
    const max = INGEST_LIMITS.maxEntitiesPerArtifact;
    const entities = Array.from({ length: max - 1 }, (_, i) => ({ type: "concept" as const, name: `thing ${i}` }));
    const ok = prepareBatch([
      { ...base, entities, relations: [{ subject: "thing 1", predicate: "near", object: "new one" }] },
    ]);
    expect(ok.ok).toBe(true);
    const r = prepareBatch([
      { ...base, entities, relations: [{ subject: "new one", predicate: "near", object: "new two" }] },
    ]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe("validation");
    expect(r.error.field).toBe("artifacts.0.relations");
  });

  it("fitArtifact keeps relations (clipped, capped) for importers", () => {
    const skipped: Array<{ ref: string; reason: string }> = [];
    const relations = Array.from({ length: 501 }, (_, i) => ({ subject: `s${i}`, predicate: "p", object: "o" }));
    const f = fitArtifact(
      { ...base, relations: [{ subject: "x".repeat(400), predicate: "p", object: "o" }, ...relations] },
      skipped,
    );
    expect(f?.relations?.length).toBe(500);
    expect(f?.relations?.[0]?.subject.length).toBe(300);
    expect(skipped.some((s) => /kept 500 of 502 relations/.test(s.reason))).toBe(true);
  });
});

describe("openie import format", () => {
  it("maps each doc to a note chunk with entities and relations; bad triples are reported, not fatal", () => {
    const r = parseOpenIe(FIXTURE, { source: "openie_results_ner_fixture.json" });
    if (!r.ok) throw new Error(r.error.message);
    const p = r.value;
    expect(p.artifacts.map((a) => a.id)).toEqual(["openie:0", "openie:1", "openie:2", "openie:3"]);
    expect(p.artifacts.every((a) => a.kind === "note")).toBe(true);
    const [lake, mara, ferry] = p.artifacts;
    // Title: first line of a two-line passage; the doc's title; else the first 12 words.
    expect(lake?.title).toBe("Lake Verrin");
    expect(lake?.content.startsWith("Lake Verrin\nLake Verrin is")).toBe(true);
    expect(mara?.title).toBe("Mara Quill");
    expect(ferry?.title).toBe("The Osk River ferry carried wool from the Halden Range to the");
    expect(lake?.source).toBe("openie_results_ner_fixture.json#docs[0]");
    expect(lake?.entities?.map((e) => e.id)).toEqual([
      "concept:lake-verrin",
      "concept:halden-range",
      "concept:osk-river",
      "concept:port-amsel",
    ]);
    expect(lake?.relations).toEqual([
      { subject: "Lake Verrin", predicate: "located in", object: "Halden Range" },
      { subject: "Lake Verrin", predicate: "feeds", object: "Osk River" },
      { subject: "Osk River", predicate: "flows to", object: "Port Amsel" },
    ]);
    // Doc 2: one triple with two parts, one with a number: both reported, the good one kept.
    expect(ferry?.relations).toEqual([{ subject: "Osk River ferry", predicate: "carried", object: "wool" }]);
    expect(p.skipped.map((s) => s.ref)).toEqual([
      "openie_results_ner_fixture.json#docs[2].extracted_triples[1]",
      "openie_results_ner_fixture.json#docs[2].extracted_triples[2]",
    ]);
    expect(p.skipped[0]?.reason).toMatch(/exactly 3 non-empty strings/);
    // The plan passes ingest validation as is.
    expect(prepareBatch(p.artifacts).ok).toBe(true);
  });

  it("accepts a bare array and JSONL; without idx the id comes from the title", () => {
    const docs = (JSON.parse(FIXTURE) as { docs: Array<Record<string, unknown>> }).docs;
    const bare = parseOpenIe(JSON.stringify(docs));
    if (!bare.ok) throw new Error(bare.error.message);
    expect(bare.value.artifacts.map((a) => a.id)).toEqual(["openie:0", "openie:1", "openie:2", "openie:3"]);
    const noIdx = docs.map(({ idx: _idx, ...d }) => d);
    const jsonl = parseOpenIe(noIdx.map((d) => JSON.stringify(d)).join("\n"));
    if (!jsonl.ok) throw new Error(jsonl.error.message);
    expect(jsonl.value.artifacts.map((a) => a.id)).toEqual([
      "openie:lake-verrin",
      "openie:mara-quill",
      "openie:the-osk-river-ferry-carried-wool-from-the-halden-range-to-the",
      "openie:port-amsel",
    ]);
    // v2-style string idx.
    const v2 = parseOpenIe(JSON.stringify({ docs: [{ ...docs[0], idx: "chunk-5d41402abc4b2a76" }] }));
    expect(v2.ok && v2.value.artifacts[0]?.id).toBe("openie:chunk-5d41402abc4b2a76");
  });

  it("title rule", () => {
    expect(openIeTitle({ title: "  T ", passage: "a\nb" })).toBe("T");
    expect(openIeTitle({ passage: "\n First line \nrest" })).toBe("First line");
    expect(openIeTitle({ passage: "one two three" })).toBe("one two three");
  });

  it("fails with a 400-style validation error when there are no docs, and reports docs without a passage", () => {
    const none = parseOpenIe('{"foo": 1}');
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.error.kind).toBe("validation");
    const notJson = parseImport("openie", "{docs:", "x.json");
    expect(notJson.ok).toBe(false);
    const mixed = parseOpenIe(
      JSON.stringify({
        docs: [{ idx: 1, passage: "" }, 7, { idx: 2, passage: "Some text here.", extracted_triples: "x" }],
      }),
    );
    if (!mixed.ok) throw new Error(mixed.error.message);
    expect(mixed.value.artifacts.map((a) => a.id)).toEqual(["openie:2"]);
    expect(mixed.value.skipped.map((s) => s.ref)).toEqual([
      "openie#docs[1]",
      "openie#docs[0]",
      "openie#docs[2].extracted_triples",
    ]);
  });

  it("caps a doc at the entity limit, dropping the triples that would exceed it", () => {
    const ents = Array.from({ length: 199 }, (_, i) => `entity ${i}`);
    const r = parseOpenIe(
      JSON.stringify({
        docs: [
          {
            idx: 9,
            passage: "Many things.",
            extracted_entities: ents,
            extracted_triples: [
              ["entity 1", "near", "entity 2"],
              ["entity 1", "near", "fresh a"],
              ["fresh b", "near", "fresh c"],
            ],
          },
        ],
      }),
    );
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.artifacts[0]?.relations?.length).toBe(2);
    expect(r.value.skipped.some((s) => /1 triples dropped/.test(s.reason))).toBe(true);
    expect(prepareBatch(r.value.artifacts).ok).toBe(true);
  });

  it("the CLI detects OpenIE files and sends large ones 500 docs per request", () => {
    expect(detectFormat("openie_results_ner_x.json", FIXTURE)).toBe("openie");
    const big = JSON.stringify({
      docs: Array.from({ length: 1201 }, (_, i) => ({ idx: i, passage: `P ${i}`, extracted_triples: [] })),
    });
    const pieces = splitRecords("big.json", big, "openie");
    expect(pieces.length).toBe(3);
    expect(pieces.map((p) => countRecords("openie", "big.json", p))).toEqual([500, 500, 201]);
    expect(splitRecords("small.json", FIXTURE, "openie")).toEqual([FIXTURE]);
  });
});
