/**
 * Extraction at ingest, in-process (src/core/extract.ts): the model's answer read and capped like an
 * OpenIE file, one retry on an unusable answer, the extension planned against its version, and the
 * capital chunk's `head.extend`. The central check: a model's triples and the same triples in a
 * HippoRAG OpenIE file give the same entities, aliases, relations and head postings.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { queryInput } from "../../scripts/lib/plan";
import { CapitalStore, route } from "../../src/core/capital";
import { routeSharded } from "../../src/core/capital/directory";
import { inProcess } from "../../src/core/capital/shard";
import { applyOps, applyToShards } from "../../src/core/capital/split";
import {
  capExtraction,
  EXTRACTION_SCHEMA,
  extractWithModel,
  groundedCount,
  planExtension,
  readExtraction,
  resolveExtension,
  withoutEntities,
} from "../../src/core/extract";
import type { ExtensionTarget, StoredExtraction } from "../../src/core/extraction";
import { parseOpenIe } from "../../src/core/formats/openie";
import { normAlias } from "../../src/core/ids";
import {
  type ArtifactInput,
  INGEST_LIMITS,
  type IngestPlan,
  planIngest,
  prepareBatch,
  type VersionRow,
} from "../../src/core/ingest";
import type { ChatModel, StructuredOutcome, StructuredRequest } from "../../src/core/ports";
import { type ChangeOp, DEFAULT_PARAMS, type RouteInput } from "../../src/core/types";

const FIXTURE = readFileSync(new URL("../fixtures/openie/openie_results_ner_fixture.json", import.meta.url), "utf8");
type Doc = {
  idx: number;
  title?: string;
  passage: string;
  extracted_entities: unknown[];
  extracted_triples: unknown[][];
};
const DOCS = (JSON.parse(FIXTURE) as { docs: Doc[] }).docs;

/** What a model would answer for a doc: its entities as concepts and its triples, as the schema asks. */
function answerOf(d: Doc) {
  return {
    entities: d.extracted_entities.map((name) => ({ name, type: "concept", aliases: [] })),
    relations: d.extracted_triples.map(([subject, predicate, object]) => ({
      subject,
      predicate,
      object,
      subject_type: null,
      object_type: null,
    })),
  };
}

const usage = { inputTokens: 100, outputTokens: 50, requests: 1, ms: 1 };

/** A ChatModel answering from a script, recording what it was asked. */
function scripted(answers: Array<StructuredOutcome | unknown>) {
  const asked: StructuredRequest[] = [];
  const model: ChatModel = {
    provider: "openai",
    model: "mock-1",
    async structured(req) {
      asked.push(req);
      const next = answers.shift();
      if (next && typeof next === "object" && "ok" in next) return next as StructuredOutcome;
      return { ok: true, value: next, usage };
    },
  };
  return { model, asked };
}

const T0 = Date.UTC(2025, 0, 1);

async function plan(artifacts: ArtifactInput[], entities: Set<string>, aliases: Set<string>): Promise<IngestPlan> {
  const prepared = prepareBatch(artifacts);
  if (!prepared.ok) throw new Error(prepared.error.message);
  const p = await planIngest("a", prepared.value, { chunks: new Map(), entities, aliases }, T0, async () => "");
  if (!p.ok) throw new Error(p.error.message);
  // What storage holds afterwards (the D1 rows the plan inserted).
  for (const e of p.value.entityInserts) entities.add(e.entityId);
  for (const a of p.value.aliasInserts) aliases.add(`${a.entityId}\u0000${a.aliasNorm}`);
  return p.value;
}

function targetOf(v: VersionRow): ExtensionTarget {
  return {
    chunk: v.chunkId,
    version: v.version,
    validFrom: v.validFrom,
    entities: v.entities,
    posted: [...new Set([...v.entities, ...v.mentions.map((m) => m.entity)])],
    relations: v.relations ?? [],
    declared: [],
  };
}

/** The graph a store holds: per entity (type, name), its alias keys, and the chunks posted under it. */
function graphOf(ops: ChangeOp[]) {
  const s = new CapitalStore();
  for (const op of ops) s.apply(op);
  const entities = new Map<string, { type: string; name: string }>();
  const aliases = new Map<string, Set<string>>();
  for (const op of ops) {
    if (op.op === "entity.upsert") entities.set(op.id, { type: op.type, name: op.name });
    if (op.op === "alias.add")
      aliases.set(op.entity, new Set([...(aliases.get(op.entity) ?? []), normAlias(op.alias)]));
  }
  const postings = new Map<string, string[]>();
  for (const id of [...entities.keys()].sort()) {
    const e = s.entityIndex(id);
    const chunks: string[] = [];
    if (e !== undefined) s.eachPosting(e, 1e9, (n) => void chunks.push(s.ids[n] as string));
    postings.set(id, chunks.sort());
  }
  const resolved = new Map<string, string | null>();
  for (const [id, set] of aliases)
    for (const a of set) resolved.set(`${id}|${a}`, s.resolve(a, T0 + 1)?.entity ?? null);
  return {
    entities: [...entities.entries()].sort(),
    aliases: [...aliases.entries()].map(([k, v]) => [k, [...v].sort()]).sort(),
    postings: [...postings.entries()],
    resolved: [...resolved.entries()].sort(),
    store: s,
  };
}

describe("the model's answer", () => {
  it("is read item by item: unusable items skipped, unknown types read as concept, aliases deduplicated", () => {
    const r = readExtraction({
      entities: [
        { name: "HippoRAG", type: "method", aliases: ["Hippo RAG", "hipporag", "HippoRAG 2"] },
        { name: "  ", type: "concept", aliases: [] },
        { name: "PPR", type: "algorithm", aliases: [] },
        { name: "arXiv:2405.14831", type: "concept", aliases: [] },
      ],
      relations: [
        { subject: "HippoRAG", predicate: "uses", object: "PPR", subject_type: "method", object_type: "bogus" },
        { subject: "HippoRAG", predicate: "", object: "x" },
        { subject: "HippoRAG", predicate: "uses", object: "PPR", subject_type: "method", object_type: null },
      ],
    });
    if (typeof r === "string") throw new Error(r);
    expect(r.skipped).toBe(2);
    expect(r.extraction.entities).toEqual([
      // "hipporag" normalises like the name: not an alias of its own.
      { type: "method", id: "method:hipporag", name: "HippoRAG", aliases: ["Hippo RAG", "HippoRAG 2"] },
      { type: "concept", id: "concept:ppr", name: "PPR" },
      { type: "paper", id: "arxiv:2405.14831", name: "arXiv:2405.14831" },
    ]);
    // Exact duplicates after normalisation go (normaliseRelations).
    expect(r.extraction.relations).toEqual([
      { subject: "HippoRAG", predicate: "uses", object: "PPR", subject_type: "method" },
    ]);
  });

  it("is unusable as a whole when it is not an object with entity and relation lists", () => {
    expect(readExtraction(null)).toBe("the answer is not a JSON object");
    expect(readExtraction({ entities: [] })).toBe("relations is missing or not an array");
    expect(readExtraction({ relations: [], entities: "x" })).toBe("entities is missing or not an array");
  });

  it("the schema names every property as required (strict structured output) with the product's entity types", () => {
    const props = EXTRACTION_SCHEMA.properties as { relations: { items: { required: string[] } } };
    const items = props.relations.items;
    expect(items.required).toEqual(["subject", "predicate", "object", "subject_type", "object_type"]);
    expect(JSON.stringify(EXTRACTION_SCHEMA)).toContain('"method"');
  });

  it("is capped like an OpenIE doc: 200 distinct entities counting the version's own, 500 relations", () => {
    const many = Array.from({ length: 250 }, (_, i) => ({
      type: "concept" as const,
      id: `concept:e${i}`,
      name: `e${i}`,
    }));
    const c = capExtraction(many, [], { ids: ["concept:x", "concept:y"] });
    expect(c.entities).toHaveLength(INGEST_LIMITS.maxEntitiesPerArtifact - 2);
    expect(c.droppedEntities).toBe(52);
    const triples = Array.from({ length: 520 }, (_, i) => ({ subject: "a", predicate: `p${i}`, object: "b" }));
    const t = capExtraction([], triples, { relations: 30 });
    expect(t.relations).toHaveLength(470);
    expect(t.droppedTriples).toBe(50);
  });
});

describe("asking the model", () => {
  const content = DOCS[0]?.passage ?? "";

  it("asks once with the document only and the schema; returns the read answer and its usage", async () => {
    const { model, asked } = scripted([answerOf(DOCS[0] as Doc)]);
    const out = await extractWithModel(model, content);
    if (!out.ok) throw new Error(out.message);
    expect(out.attempts).toBe(1);
    expect(out.usage).toMatchObject({ inputTokens: 100, outputTokens: 50, requests: 1 });
    expect(out.extraction.relations).toHaveLength(3);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.schema).toBe(EXTRACTION_SCHEMA);
    expect(asked[0]?.messages[1]?.content).toContain(content);
  });

  it("retries once an unusable answer, naming what was wrong; two unusable answers are a failure", async () => {
    const retried = scripted([{ entities: "none" }, answerOf(DOCS[0] as Doc)]);
    const ok = await extractWithModel(retried.model, content);
    expect(ok.ok && ok.attempts).toBe(2);
    expect(retried.asked[1]?.messages.at(-1)?.content).toContain("entities is missing or not an array");
    const malformed = { ok: false, error: { code: "malformed", message: "not JSON" }, usage };
    const twice = scripted([malformed, { x: 1 }]);
    const bad = await extractWithModel(twice.model, content);
    expect(bad).toMatchObject({ ok: false, code: "malformed", attempts: 2 });
    expect(twice.asked).toHaveLength(2);
  });

  it("returns a failed call as it is, without a second call (the adapter retried already)", async () => {
    for (const code of ["rate_limited", "unavailable", "rejected", "over_budget"] as const) {
      const s = scripted([{ ok: false, error: { code, message: code }, usage }]);
      expect(await extractWithModel(s.model, content)).toMatchObject({ ok: false, code, attempts: 1 });
      expect(s.asked).toHaveLength(1);
    }
  });
});

/** The fixture's passages ingested bare, then each version extended by the model's answer for it. */
async function modelPath() {
  const openie = parseOpenIe(FIXTURE);
  if (!openie.ok) throw new Error(openie.error.message);
  const bare = openie.value.artifacts.map(({ entities: _e, relations: _r, ...a }) => a);
  const mState = { entities: new Set<string>(), aliases: new Set<string>() };
  const ingested = await plan(bare, mState.entities, mState.aliases);
  const ops = [...ingested.ops];
  const extracted = new Map<string, StoredExtraction>();
  for (const [i, v] of ingested.versions.entries()) {
    const read = readExtraction(answerOf(DOCS[i] as Doc));
    if (typeof read === "string") throw new Error(read);
    const resolved = resolveExtension(targetOf(v), read.extraction);
    const p = planExtension(targetOf(v), resolved, "openai:mock-1", mState, T0 + 5);
    for (const e of p.entityInserts) mState.entities.add(e.entityId);
    for (const a of p.aliasInserts) mState.aliases.add(`${a.entityId}\u0000${a.aliasNorm}`);
    ops.push(...p.ops);
    extracted.set(v.chunkId, p.stored);
  }
  return { openie: openie.value, ops, extracted, mState };
}

function build(ops: ChangeOp[]): CapitalStore {
  const s = new CapitalStore();
  applyOps(s, ops, null);
  return s;
}

describe("a model's triples and the same triples in an OpenIE file give the same graph", () => {
  it("same entities, aliases, relations and head postings for every doc of the fixture", async () => {
    // OpenIE path: the file imported as artifacts with entities and relations.
    const { openie, ops, extracted, mState } = await modelPath();
    const oieState = { entities: new Set<string>(), aliases: new Set<string>() };
    const oie = await plan(openie.artifacts, oieState.entities, oieState.aliases);

    // Relations: what the OpenIE version stores is what the extraction stores.
    for (const v of oie.versions) expect(extracted.get(v.chunkId)?.relations).toEqual(v.relations);
    // Entities: the version's declared ids are the extraction's ids.
    for (const v of oie.versions) expect([...(extracted.get(v.chunkId)?.ids ?? [])].sort()).toEqual(v.entities);
    // The same entity rows and alias rows in storage.
    expect([...mState.entities].sort()).toEqual([...oieState.entities].sort());
    expect([...mState.aliases].sort()).toEqual([...oieState.aliases].sort());
    // The same graph in the capital chunk: entities, their names, alias keys, postings, resolution.
    const a = graphOf(oie.ops);
    const b = graphOf(ops);
    expect(b.entities).toEqual(a.entities);
    expect(b.aliases).toEqual(a.aliases);
    expect(b.postings).toEqual(a.postings);
    expect(b.resolved).toEqual(a.resolved);
    expect(a.postings.find(([id]) => id === "concept:port-amsel")?.[1]).toEqual(["openie:0", "openie:1", "openie:3"]);
  });

  it("a capital chunk split over two shards at any change answers as one store holding the extensions", async () => {
    const { ops } = await modelPath();
    const whole = build(ops);
    const qs = [
      "Who surveyed Lake Verrin?",
      "What is at the mouth of the Osk River?",
      "salt works",
      "Mara Quill 1871",
    ].map((q) => queryInput(q));
    const top = (r: { selected: Array<{ chunk: string }> }) => r.selected.map((x) => x.chunk);
    expect(top(route(whole, qs[1] as RouteInput))[0]).toBe("openie:3");
    for (let cut = 1; cut < ops.length; cut++) {
      const { shards } = applyToShards(ops, [0, cut]);
      for (const q of qs) {
        const b = await routeSharded(shards.map(inProcess), q, DEFAULT_PARAMS);
        expect(top(b)).toEqual(top(route(whole, q)));
      }
    }
  });
});

describe("extending a version", () => {
  const note: ArtifactInput = {
    id: "note:hippo",
    kind: "note",
    title: "Retrieval notes",
    content: "HippoRAG runs Personalized PageRank over a graph of noun phrases built by OpenIE.",
    entities: [{ type: "method", name: "HippoRAG" }],
  };
  const answer = {
    entities: [
      { name: "Personalized PageRank", type: "concept", aliases: ["PPR"] },
      { name: "OpenIE", type: "method", aliases: [] },
    ],
    relations: [
      { subject: "HippoRAG", predicate: "runs", object: "Personalized PageRank" },
      { subject: "HippoRAG", predicate: "uses", object: "OpenIE" },
    ],
  };

  async function setup() {
    const state = { entities: new Set<string>(), aliases: new Set<string>() };
    const p = await plan([note], state.entities, state.aliases);
    const v = p.versions[0] as VersionRow;
    const target: ExtensionTarget = {
      ...targetOf(v),
      declared: [{ type: "method", id: "method:hipporag", name: "HippoRAG", aliases: ["HippoRAG"] }],
    };
    const read = readExtraction(answer);
    if (typeof read === "string") throw new Error(read);
    return { state, ops: p.ops, target, x: read.extraction };
  }

  it("resolves arguments naming a declared entity to it; adds only the ids the head lacked", async () => {
    const { state, target, x } = await setup();
    const r = resolveExtension(target, x);
    // "HippoRAG" in a triple is the version's declared method, not a new concept.
    expect(r.ids.sort()).toEqual(["concept:personalized-pagerank", "method:hipporag", "method:openie"]);
    // The analyser grounded "Personalized PageRank" in the content already: only OpenIE is new to the head.
    expect(r.added).toEqual(["method:openie"]);
    const p = planExtension(target, r, "openai:mock-1", state, T0 + 9);
    expect(p.ops.map((o) => o.op)).toEqual([
      "entity.upsert",
      "alias.add",
      "alias.add",
      "entity.upsert",
      "alias.add",
      "head.extend",
    ]);
    expect(p.ops.at(-1)).toMatchObject({ op: "head.extend", chunk: "note:hippo", version: 1, at: T0 });
    expect(p.stored).toMatchObject({ model: "openai:mock-1", at: T0 + 9 });
    expect(groundedCount(note.content, x)).toBe(2);
  });

  it("resolving a stored extraction again gives it back; entities already stored make no entity ops", async () => {
    const { state, target, x } = await setup();
    const r = resolveExtension(target, x);
    const first = planExtension(target, r, "m", state, T0);
    const again = resolveExtension(target, first.stored);
    expect(again.extraction).toEqual(r.extraction);
    expect(again.ids).toEqual(r.ids);
    for (const e of first.entityInserts) state.entities.add(e.entityId);
    for (const a of first.aliasInserts) state.aliases.add(`${a.entityId}\u0000${a.aliasNorm}`);
    expect(planExtension(target, again, "m", state, T0).ops.map((o) => o.op)).toEqual(["head.extend"]);
  });

  it("the capital chunk posts the head under the new entities once, and a query naming one reaches it", async () => {
    const { state, ops, target, x } = await setup();
    const p = planExtension(target, resolveExtension(target, x), "m", state, T0);
    const s = new CapitalStore();
    for (const op of ops) s.apply(op);
    expect(s.entityIndex("method:openie")).toBeUndefined();
    // Before: only the analyser's grounded concept of that name.
    expect(s.resolve("OpenIE", T0 + 1)?.entity).toBe("concept:openie");
    for (const op of p.ops) s.apply(op);
    const e = s.entityIndex("method:openie") as number;
    expect(s.postCount(e)).toBe(1);
    // Applied again (a replay over it): nothing more.
    for (const op of p.ops) s.apply(op);
    expect(s.postCount(e)).toBe(1);
    const posted: string[] = [];
    s.eachPosting(e, 10, (n) => void posted.push(s.ids[n] as string));
    expect(posted).toEqual(["note:hippo"]);
    // A name the model gave as an alias resolves to its entity.
    expect(s.resolve("OpenIE", T0 + 1)?.entity).toBe("method:openie");
    expect(s.resolve("PPR", T0 + 1)?.entity).toBe("concept:personalized-pagerank");
  });

  it("is ignored by the capital chunk unless its version is the live head (superseded, deprecated, unknown)", async () => {
    const { state, ops, target, x } = await setup();
    const ext = planExtension(target, resolveExtension(target, x), "m", state, T0).ops;
    const headExt = ext.at(-1) as ChangeOp;
    const v2: ChangeOp = {
      ...(ops.find((o) => o.op === "head.upsert") as ChangeOp),
      version: 2,
      validFrom: T0 + 10,
    } as ChangeOp;
    const count = (s: CapitalStore) => {
      const e = s.entityIndex("method:openie");
      return e === undefined ? 0 : s.postCount(e);
    };
    const superseded = new CapitalStore();
    for (const op of [...ops, v2, ...ext]) superseded.apply(op);
    expect(count(superseded)).toBe(0);
    const deprecated = new CapitalStore();
    for (const op of [...ops, { op: "head.deprecate", chunk: "note:hippo", at: T0 + 5, by: null } as ChangeOp, ...ext])
      deprecated.apply(op);
    expect(count(deprecated)).toBe(0);
    const unknown = new CapitalStore();
    unknown.apply(headExt);
    expect(unknown.size).toBe(0);
  });

  it("withoutEntities drops a forgotten entity and the relations naming it", async () => {
    const { state, target, x } = await setup();
    const stored = planExtension(target, resolveExtension(target, x), "m", state, T0).stored;
    const w = withoutEntities(stored, new Set(["method:openie"]));
    expect(w.ids).not.toContain("method:openie");
    expect(w.added).not.toContain("method:openie");
    expect(w.entities.map((e) => e.id)).not.toContain("method:openie");
    expect(w.relations).toEqual([{ subject: "HippoRAG", predicate: "runs", object: "Personalized PageRank" }]);
  });
});
