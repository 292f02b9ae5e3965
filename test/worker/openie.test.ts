import { describe, expect, it } from "vitest";
import FIXTURE from "../fixtures/openie/openie_results_ner_fixture.json?raw";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

async function importOpenIe(archive: string, key: string, body: string, name = "openie_results_ner_fixture.json") {
  const res = await WORKER.fetch(
    `http://paperguru.test/v1/archives/${archive}/import?format=openie&name=${encodeURIComponent(name)}`,
    { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body },
  );
  // biome-ignore lint/suspicious/noExplicitAny: structural checks
  return { status: res.status, body: (await res.json()) as any };
}

type Relation = { subject: string; predicate: string; object: string };

describe("import format openie (HippoRAG OpenIE results)", () => {
  it("imports passages as notes; extracted entities resolve; /history shows the relations of the version", async () => {
    const { id, key } = await newArchive("oie");
    const r = await importOpenIe(id, key, FIXTURE);
    expect(r.status).toBe(200);
    expect(r.body.counts.created).toBe(4);
    expect(r.body.counts.failed).toBe(0);
    // The two malformed triples of docs[2] are reported per item; the rest of the doc is imported.
    expect(r.body.skipped.map((s: { ref: string }) => s.ref)).toEqual([
      "openie_results_ner_fixture.json#docs[2].extracted_triples[1]",
      "openie_results_ner_fixture.json#docs[2].extracted_triples[2]",
    ]);

    const resolved = await api("GET", `/v1/archives/${id}/resolve?mention=Halden%20Range`, undefined, key);
    expect(resolved.status).toBe(200);
    expect(resolved.body.resolved?.entity).toBe("concept:halden-range");
    // A relation argument that is not among the extracted entities is an entity too.
    const mouth = await api("GET", `/v1/archives/${id}/resolve?mention=mouth%20of%20the%20Osk%20River`, undefined, key);
    expect(mouth.body.resolved?.entity).toBe("concept:mouth-of-the-osk-river");

    const h = await api("GET", `/v1/archives/${id}/history?chunk=openie:0`, undefined, key);
    expect(h.status).toBe(200);
    const v1 = h.body.versions[0];
    expect(v1.title).toBe("Lake Verrin");
    expect(v1.relations as Relation[]).toEqual([
      { subject: "Lake Verrin", predicate: "located in", object: "Halden Range" },
      { subject: "Lake Verrin", predicate: "feeds", object: "Osk River" },
      { subject: "Osk River", predicate: "flows to", object: "Port Amsel" },
    ]);
    expect(v1.entities).toEqual([
      "concept:halden-range",
      "concept:lake-verrin",
      "concept:osk-river",
      "concept:port-amsel",
    ]);

    // The entity's history lists the chunks that mention it.
    const e = await api("GET", `/v1/archives/${id}/history?entity=concept:port-amsel`, undefined, key);
    expect(e.body.mentions.map((m: { chunk: string }) => m.chunk).sort()).toEqual(["openie:0", "openie:1", "openie:3"]);

    // Importing the same file again stores nothing.
    const again = await importOpenIe(id, key, FIXTURE);
    expect(again.body.counts.unchanged).toBe(4);
    expect(again.body.counts.created + again.body.counts.updated).toBe(0);
  });

  it("relations on /ingest: a changed triple is a new version; an artifact without relations stores NULL", async () => {
    const { id, key } = await newArchive("oie");
    const art = {
      id: "note:quill",
      kind: "note",
      title: "Mara Quill",
      content: "Mara Quill surveyed Lake Verrin in 1871.",
      relations: [{ subject: "Mara Quill", predicate: "surveyed", object: "Lake Verrin", subject_type: "person" }],
    };
    const r1 = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [art] }, key);
    expect(r1.status).toBe(200);
    const same = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [art] }, key);
    expect(same.body.results[0].status).toBe("unchanged");
    const changed = { ...art, relations: [{ ...art.relations[0], predicate: "mapped" }] };
    const r2 = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [changed] }, key);
    expect(r2.body.results[0]).toMatchObject({ status: "updated", version: 2 });
    const plain = { id: "note:plain", kind: "note", title: "Plain", content: "No relations here." };
    await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [plain] }, key);

    const h = await api("GET", `/v1/archives/${id}/history?chunk=note:quill`, undefined, key);
    expect(h.body.versions.map((v: { relations: Relation[] }) => v.relations[0]?.predicate)).toEqual([
      "surveyed",
      "mapped",
    ]);
    const p = await api("GET", `/v1/archives/${id}/history?chunk=note:plain`, undefined, key);
    expect(p.body.versions[0].relations).toEqual([]);
    const who = await api("GET", `/v1/archives/${id}/resolve?mention=Mara%20Quill`, undefined, key);
    expect(who.body.resolved?.entity).toBe("person:mara-quill");

    // The lossless dump carries the relations, and a replay into a new archive reproduces them.
    const dump = await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/export?format=json`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const text = await dump.text();
    const parsed = JSON.parse(text) as {
      chunks: Array<{ id: string; versions: Array<{ relations?: Relation[] }> }>;
    };
    const quill = parsed.chunks.find((c) => c.id === "note:quill");
    expect(quill?.versions.map((v) => v.relations?.[0]?.predicate)).toEqual(["surveyed", "mapped"]);
    expect(parsed.chunks.find((c) => c.id === "note:plain")?.versions[0]).not.toHaveProperty("relations");
    const copy = await newArchive("oie");
    const rep = await WORKER.fetch(`http://paperguru.test/v1/archives/${copy.id}/import?format=archive`, {
      method: "POST",
      headers: { authorization: `Bearer ${copy.key}` },
      body: text,
    });
    expect(rep.status).toBe(200);
    const h2 = await api("GET", `/v1/archives/${copy.id}/history?chunk=note:quill`, undefined, copy.key);
    expect(h2.body.versions.map((v: { relations: Relation[] }) => v.relations)).toEqual(
      h.body.versions.map((v: { relations: Relation[] }) => v.relations),
    );
    expect(h2.body.versions.map((v: { artifact_sha256: string }) => v.artifact_sha256)).toEqual(
      h.body.versions.map((v: { artifact_sha256: string }) => v.artifact_sha256),
    );
  });

  it("rejects malformed relations with a 400 naming the field", async () => {
    const { id, key } = await newArchive("oie");
    const bad = {
      id: "note:x",
      kind: "note",
      title: "X",
      content: "x",
      relations: [{ subject: "a", predicate: "", object: "b" }],
    };
    const r = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [bad] }, key);
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe("artifacts.0.relations.0.predicate");
    const big = await importOpenIe(id, key, '{"docs": "nope"}');
    expect(big.status).toBe(400);
  });
});
