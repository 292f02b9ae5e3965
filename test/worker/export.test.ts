import { XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { countTokens } from "../../src/core/text/tokenizer";
import { api, comparableDump, newArchive } from "./helpers";
import { WORKER } from "./worker";

async function raw(method: string, path: string, key: string | null, body?: string, type = "application/json") {
  const headers: Record<string, string> = { "content-type": type };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await WORKER.fetch(`http://paperguru.test${path}`, { method, headers, body });
  return { status: res.status, headers: res.headers, text: new TextDecoder().decode(await res.arrayBuffer()) };
}

const LONG = (topic: string) =>
  `${topic} is studied here in detail. We describe the method and its assumptions carefully. ` +
  "Experiments on multi-hop question answering show consistent gains over dense retrieval baselines. " +
  "The approach routes over small heads first and expands full contents only at the end. ";

async function buildArchive() {
  const a = await newArchive("exp");
  const k = a.key;
  const ok = async (path: string, body: unknown) => {
    const r = await api("POST", `/v1/archives/${a.id}${path}`, body, k);
    expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
    return r.body;
  };
  await ok("/ingest", {
    artifacts: [
      {
        id: "arxiv:2005.11401",
        kind: "paper",
        title: "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks",
        content: `Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks\nAuthors: Patrick Lewis, Ethan Perez\nIn: NeurIPS\nDate: 2020-05\n\n${LONG("Retrieval-augmented generation (RAG)")}`,
        entities: [
          { type: "method", name: "RAG", aliases: ["retrieval-augmented generation"] },
          { type: "person", id: "person:patrick-lewis", name: "Patrick Lewis" },
        ],
        boundaries: ["year:2020", "bibtex:inproceedings"],
        valid_from: "2020-05-22",
        source: "https://arxiv.org/abs/2005.11401v1",
      },
      {
        id: "arxiv:2405.14831",
        kind: "paper",
        title: "HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models",
        content: `HippoRAG & friends: 100% {memory} #1\nAuthors: Bernal Jiménez Gutiérrez, Yu Su\n\n${LONG("HippoRAG with personalized PageRank")} It builds on arXiv:2005.11401.`,
        entities: [
          { type: "method", id: "method:hipporag", name: "HippoRAG", aliases: ["Hippo RAG"] },
          { type: "method", name: "PPR" },
        ],
        boundaries: ["task:multi-hop-qa"],
        edges: [{ type: "cites", target: "arxiv:2005.11401", weight: 2, context: "as in RAG [12], we retrieve" }],
        valid_from: "2024-05-23",
        source: "https://arxiv.org/abs/2405.14831v1",
      },
      {
        id: "decision:cache-v1",
        kind: "decision",
        title: "Cache heads in the Durable Object",
        content: `${LONG("Caching heads in memory")} We keep the capital chunk warm.`,
        entities: [{ type: "concept", name: "capital chunk" }],
        valid_from: "2024-01-01",
      },
    ],
  });
  // Revisions: v2 of the HippoRAG paper (edge weight changes, new context) and a section of it.
  await ok("/revise", {
    id: "arxiv:2405.14831",
    kind: "paper",
    title: "HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models",
    content: `HippoRAG v2\nAuthors: Bernal Jiménez Gutiérrez, Yu Su\n\n${LONG("HippoRAG with personalized PageRank, revised")} It builds on arXiv:2005.11401.`,
    entities: [
      { type: "method", id: "method:hipporag", name: "HippoRAG" },
      { type: "method", name: "Personalized PageRank", aliases: ["PPR"] },
    ],
    boundaries: ["task:multi-hop-qa", "year:2024"],
    edges: [{ type: "cites", target: "arxiv:2005.11401", weight: 1, context: "RAG [12] retrieves passages" }],
    valid_from: "2024-06-15",
  });
  await ok("/ingest", {
    artifacts: [
      {
        id: "arxiv:2405.14831#method",
        kind: "section",
        title: "HippoRAG method",
        content: `${LONG("The HippoRAG method section")} Personalized PageRank spreads seed mass over the graph.`,
        entities: [{ type: "method", id: "method:hipporag", name: "HippoRAG" }],
        edges: [
          { type: "part-of", target: "arxiv:2405.14831" },
          { type: "implements", target: "decision:cache-v1", weight: 0.5, valid_from: "2024-06-20" },
        ],
        valid_from: "2024-06-20",
      },
      {
        id: "decision:cache-v2",
        kind: "decision",
        title: "Cache heads and neighbour tables",
        content: `${LONG("Caching heads and neighbour tables")} The successor keeps neighbour tables too.`,
        entities: [{ type: "concept", name: "capital chunk" }],
        edges: [{ type: "motivates", target: "arxiv:2405.14831#method", context: "latency budget" }],
        valid_from: "2024-07-01",
      },
    ],
  });
  await ok("/deprecate", { id: "decision:cache-v1", by: "decision:cache-v2", at: "2024-07-01", reason: "superseded" });
  await ok("/entities/alias", {
    entity: "method:personalized-pagerank",
    alias: "Personalised PageRank",
    at: "2024-06-16",
  });
  await ok("/entities/rename", { entity: "method:hipporag", new_name: "HippoRAG 2", at: "2024-08-01" });
  await ok("/entities/merge", { entity: "method:ppr", into: "method:personalized-pagerank", at: "2024-09-01" });
  // A later version after the rename (its ingest re-adds the old name as an alias from then on).
  await ok("/revise", {
    id: "arxiv:2405.14831#method",
    kind: "section",
    title: "HippoRAG 2 method",
    content: `${LONG("The HippoRAG 2 method section")} Personalized PageRank runs locally from the seeds.`,
    entities: [{ type: "method", id: "method:hipporag", name: "HippoRAG 2", aliases: ["HippoRAG"] }],
    edges: [{ type: "part-of", target: "arxiv:2405.14831" }],
    valid_from: "2024-10-01",
  });
  // Sessions are not part of an archive export.
  await ok("/sessions/s1/events", { events: [{ role: "user", text: "what about HippoRAG?" }] });
  return a;
}

async function exportJson(id: string, key: string) {
  const r = await raw("GET", `/v1/archives/${id}/export?format=json`, key);
  expect(r.status, r.text).toBe(200);
  return r;
}

async function importDump(id: string, key: string, text: string) {
  const r = await raw("POST", `/v1/archives/${id}/import?format=archive&name=dump.json`, key, text);
  // biome-ignore lint/suspicious/noExplicitAny: structural checks
  return { status: r.status, body: JSON.parse(r.text) as any };
}

/** Minimal RFC 4180 reader (quoted fields with doubled quotes, CRLF inside quotes). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let q = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (q) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') q = false;
      else field += ch;
    } else if (ch === '"') q = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else field += ch;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

const QUERIES = [
  "How does HippoRAG use personalized PageRank?",
  "retrieval-augmented generation for knowledge-intensive tasks",
  "why cache heads and neighbour tables in the capital chunk",
];
const AS_OFS = ["2024-06-25", "2024-12-01"];

describe("exports", () => {
  it("json round trip: a new archive has the same heads, versions, edges, entities and routes; re-import is a no-op", async () => {
    const a = await buildArchive();
    const first = await exportJson(a.id, a.key);
    expect(first.headers.get("content-type")).toMatch(/^application\/json/);
    expect(first.headers.get("content-disposition")).toBe(`attachment; filename="${a.id}.json"`);
    const dump = JSON.parse(first.text);
    expect(dump.format).toBe("paperguru.archive");
    expect(dump.chunks.map((c: { id: string }) => c.id)).toEqual([
      "arxiv:2005.11401",
      "arxiv:2405.14831",
      "arxiv:2405.14831#method",
      "decision:cache-v1",
      "decision:cache-v2",
    ]);
    expect(dump.deprecations).toMatchObject([
      { id: "decision:cache-v1", by: "decision:cache-v2", reason: "superseded" },
    ]);
    // biome-ignore lint/suspicious/noExplicitAny: structural checks
    const hippo = dump.entities.find((e: any) => e.id === "method:hipporag");
    expect(hippo.name).toBe("HippoRAG 2");
    expect(hippo.ops.map((o: { op: string }) => o.op)).toContain("rename");
    // biome-ignore lint/suspicious/noExplicitAny: structural checks
    expect(dump.entities.find((e: any) => e.id === "method:ppr").merged_into).toBe("method:personalized-pagerank");

    const b = await newArchive("imp");
    const imp = await importDump(b.id, b.key, first.text);
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
    expect(imp.body.failures).toEqual([]);
    expect(imp.body.replay.hash_mismatches).toEqual([]);
    expect(imp.body.replay.versions).toEqual({ created: 7, present: 0 });
    expect(imp.body.replay.deprecations).toEqual({ applied: 1, present: 0 });

    // Heads, versions (numbers, validity, content and artifact hashes), deprecation, edges: via /history.
    for (const c of dump.chunks) {
      const [ha, hb] = await Promise.all([
        api("GET", `/v1/archives/${a.id}/history?chunk=${encodeURIComponent(c.id)}`, undefined, a.key),
        api("GET", `/v1/archives/${b.id}/history?chunk=${encodeURIComponent(c.id)}`, undefined, b.key),
      ]);
      expect(hb.status).toBe(200);
      // Everything but transaction times, which are the replay's own.
      const pick = (h: typeof ha.body) => ({
        ...h,
        // biome-ignore lint/suspicious/noExplicitAny: structural checks
        versions: h.versions.map(({ recorded_at: _r, ...v }: any) => v),
      });
      expect(pick(hb.body)).toEqual(pick(ha.body));
    }
    // Entities: names, alias intervals, merges.
    for (const e of ["method:hipporag", "method:ppr", "method:personalized-pagerank", "arxiv:2405.14831"]) {
      const [ea, eb] = await Promise.all([
        api("GET", `/v1/archives/${a.id}/history?entity=${encodeURIComponent(e)}`, undefined, a.key),
        api("GET", `/v1/archives/${b.id}/history?entity=${encodeURIComponent(e)}`, undefined, b.key),
      ]);
      const pick = (h: typeof ea.body) => ({
        name: h.name,
        type: h.type,
        merged_into: h.merged_into,
        merged_at: h.merged_at,
        aliases: h.aliases,
        mentions: h.mentions,
      });
      expect(pick(eb.body)).toEqual(pick(ea.body));
    }
    // Routing: same selected chunks and versions (and candidate order) for 3 queries at 2 times.
    for (const query of QUERIES)
      for (const as_of of AS_OFS) {
        const [ra, rb] = [
          await api("POST", `/v1/archives/${a.id}/route`, { query, as_of }, a.key),
          await api("POST", `/v1/archives/${b.id}/route`, { query, as_of }, b.key),
        ];
        const sel = (r: typeof ra) =>
          r.body.selected.map((s: { chunk: string; version: number }) => [s.chunk, s.version]);
        const cand = (r: typeof ra) =>
          r.body.candidates.map((s: { chunk: string; version: number }) => [s.chunk, s.version]);
        expect(sel(ra).length, `${query} @ ${as_of}`).toBeGreaterThan(0);
        expect(sel(rb), `${query} @ ${as_of}`).toEqual(sel(ra));
        expect(cand(rb), `${query} @ ${as_of}`).toEqual(cand(ra));
      }
    // The new archive's own dump is the same archive (up to ids and record times).
    const second = JSON.parse((await exportJson(b.id, b.key)).text);
    expect(comparableDump(second)).toEqual(comparableDump(dump));

    // Importing the same dump again changes nothing.
    const before = (await api("GET", `/v1/archives/${b.id}`, undefined, b.key)).body.stats.storage;
    const again = await importDump(b.id, b.key, first.text);
    expect(again.status).toBe(200);
    expect(again.body.failures).toEqual([]);
    expect(again.body.counts).toMatchObject({ created: 0, updated: 0, deprecated: 0, merged: 0, failed: 0 });
    expect(again.body.replay.versions).toEqual({ created: 0, present: 7 });
    expect(again.body.replay.entity_ops.applied).toBe(0);
    expect((await api("GET", `/v1/archives/${b.id}`, undefined, b.key)).body.stats.storage).toEqual(before);
    expect(comparableDump(JSON.parse((await exportJson(b.id, b.key)).text))).toEqual(comparableDump(dump));

    // A malformed dump stores nothing and names the field.
    const bad = await importDump(b.id, b.key, JSON.stringify({ ...dump, schema_version: 9 }));
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("schema_version");
  });

  it("csv, bibtex, csljson, markdown, graphml, mermaid: content types, filenames, parseable bodies", async () => {
    const a = await buildArchive();
    const get = (format: string, q = "") => raw("GET", `/v1/archives/${a.id}/export?format=${format}${q}`, a.key);

    const csv = await get("csv");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("content-disposition")).toBe(`attachment; filename="${a.id}.csv"`);
    const rows = parseCsv(csv.text);
    expect(rows).toHaveLength(1 + 5);
    expect(rows[0]?.slice(0, 4)).toEqual(["id", "kind", "title", "version"]);
    const dep = rows.find((r) => r[0] === "decision:cache-v1");
    expect(dep?.[8]).toBe("decision:cache-v2");
    // as_of: only chunks visible then, at the version valid then.
    const early = parseCsv((await get("csv", "&as_of=2024-06-01")).text);
    expect(early.map((r) => [r[0], r[3]])).toEqual([
      ["id", "version"],
      ["arxiv:2005.11401", "1"],
      ["arxiv:2405.14831", "1"],
      ["decision:cache-v1", "1"],
    ]);

    const bib1 = await get("bibtex");
    expect(bib1.headers.get("content-type")).toMatch(/^application\/x-bibtex/);
    const keys = (t: string) => [...t.matchAll(/^@(\w+)\{([^,]+),/gm)].map((m) => m[2]);
    expect(keys(bib1.text)).toEqual(["lewis2020retrieval", "gutierrez2024hipporag"]);
    expect(keys((await get("bibtex")).text)).toEqual(keys(bib1.text));
    expect(bib1.text).toContain("eprint = {2005.11401}");
    expect(bib1.text).toContain("@inproceedings{lewis2020retrieval");
    expect(bib1.text).toContain("booktitle = {NeurIPS}");

    const csl = await get("csljson");
    expect(csl.headers.get("content-type")).toMatch(/^application\/vnd\.citationstyles\.csl\+json/);
    const items = JSON.parse(csl.text);
    expect(Array.isArray(items)).toBe(true);
    expect(items.map((i: { id: string }) => i.id)).toEqual(keys(bib1.text));
    expect(items[0]).toMatchObject({
      type: "paper-conference",
      author: [
        { family: "Lewis", given: "Patrick" },
        { family: "Perez", given: "Ethan" },
      ],
      issued: { "date-parts": [[2020, 5]] },
      URL: "https://arxiv.org/abs/2005.11401v1",
    });

    const md = await get("markdown");
    expect(md.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(md.text).toContain("## paper (2)");
    expect(md.text).toContain("decision:cache-v1");

    const gml = await get("graphml", "&as_of=2024-12-01");
    expect(gml.headers.get("content-type")).toMatch(/^application\/graphml\+xml/);
    expect(XMLValidator.validate(gml.text)).toBe(true);
    expect(gml.text).toContain('source="decision:cache-v1" target="decision:cache-v2"');
    expect(gml.text).toContain("deprecated-by");

    const mmd = await get("mermaid", "&as_of=2024-12-01");
    expect(mmd.headers.get("content-type")).toMatch(/^text\/vnd\.mermaid/);
    expect(mmd.headers.get("content-disposition")).toBe(`attachment; filename="${a.id}.mmd"`);
    expect(mmd.text).toContain("flowchart LR");
    expect(mmd.text).toMatch(/n\d+ -\.->\|deprecated-by\| n\d+/);

    expect((await get("pdf")).status).toBe(400);
    expect((await raw("GET", `/v1/archives/${a.id}/export?format=csv`, null)).status).toBe(401);
    const doc = await api("GET", "/openapi.json", undefined, null);
    expect(doc.body.paths["/v1/archives/{archive}/export"].get).toBeTruthy();
    expect(doc.body.paths["/v1/archives/{archive}/export/context"].post).toBeTruthy();
  });

  it("query results: markdown cards with anchors, csv, bibtex, csljson, json", async () => {
    const a = await buildArchive();
    const body = (format: string) =>
      JSON.stringify({ query: QUERIES[0], as_of: "2024-12-01", budget_tokens: 2000, format });
    const post = (format: string) => raw("POST", `/v1/archives/${a.id}/export/context`, a.key, body(format));

    const json = await post("json");
    expect(json.status, json.text).toBe(200);
    const ctx = JSON.parse(json.text);
    expect(ctx.cards.length).toBeGreaterThan(0);

    const md = await post("markdown");
    expect(md.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(md.headers.get("content-disposition")).toBe(`attachment; filename="${a.id}-context.md"`);
    const a0 = ctx.cards[0].anchored_spans[0];
    expect(md.text).toContain(`${a0.artifact_id}@v${a0.version} [${a0.start},${a0.end})`);
    // The Markdown holds its budget, counted on what is returned, and says its own count.
    for (const budget_tokens of [500, 800, 2000, 4000]) {
      const small = await raw(
        "POST",
        `/v1/archives/${a.id}/export/context`,
        a.key,
        JSON.stringify({ query: QUERIES[0], as_of: "2024-12-01", budget_tokens, format: "markdown" }),
      );
      const n = countTokens(small.text, "cl100k_base");
      expect(n, `${budget_tokens}`).toBeLessThanOrEqual(budget_tokens);
      expect(small.text).toContain(`${n} of ${budget_tokens} tokens`);
    }

    const csv = parseCsv((await post("csv")).text);
    expect(csv).toHaveLength(1 + ctx.cards.length);
    expect(csv[0]?.slice(-3)).toEqual(["claim", "anchors", "tokens"]);

    const bib = await post("bibtex");
    expect(bib.status).toBe(200);
    // The section's card cites its paper (part-of).
    expect(bib.text).toContain("@misc{gutierrez2024hipporag");
    const csl = JSON.parse((await post("csljson")).text);
    expect(csl.map((i: { id: string }) => i.id)).toContain("gutierrez2024hipporag");

    expect((await post("graphml")).status).toBe(400);
  });
});
