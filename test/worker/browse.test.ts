/**
 * Browsing over REST: chunk and entity listings with filters and cursor pages, one chunk with its
 * history in the public style (snake_case, ISO times, rounded weights, no storage keys), exact content.
 */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const base = (id: string) => `/v1/archives/${id}`;

function paper(i: number, extra: Record<string, unknown> = {}) {
  return {
    id: `arxiv:2401.${String(i).padStart(5, "0")}`,
    kind: "paper",
    title: `${i % 2 ? "Graph" : "Dense"} retrieval study ${i}`,
    content: `Study ${i} measures retrieval. It uses damping 0.85 and reports recall.`,
    entities: [{ type: "method", name: i % 2 ? "HippoRAG" : "DPR" }],
    boundaries: [i % 3 === 0 ? "split:dev" : "split:test"],
    valid_from: "2024-01-01",
    ...extra,
  };
}

describe("GET /chunks: filters and cursor pages", () => {
  it("pages through every chunk exactly once, in id order, and filters before the page is cut", async () => {
    const { id, key } = await newArchive("browse");
    const papers = Array.from({ length: 23 }, (_, i) => paper(i));
    const notes = [
      { id: "repo/src/a.ts#f", kind: "code_unit", title: "f", content: "export function f() {}" },
      { id: "note:1", kind: "note", title: "Dense notes", content: "A note.", valid_from: "2025-01-01" },
    ];
    expect((await api("POST", `${base(id)}/ingest`, { artifacts: [...papers, ...notes] }, key)).status).toBe(200);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const res = await api("GET", `${base(id)}/chunks${q}`, undefined, key);
      expect(res.status).toBe(200);
      expect(res.body.as_of).toMatch(ISO);
      seen.push(...res.body.chunks.map((c: { id: string }) => c.id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toHaveLength(25);
    expect(seen).toEqual([...seen].sort());
    expect(new Set(seen).size).toBe(25);

    const get = async (q: string) => (await api("GET", `${base(id)}/chunks?${q}`, undefined, key)).body;
    expect((await get("kind=note")).chunks.map((c: { id: string }) => c.id)).toEqual(["note:1"]);
    expect((await get("entity=method:hipporag&limit=500")).chunks).toHaveLength(11);
    expect((await get("boundary=split:dev&limit=500")).chunks).toHaveLength(8);
    expect((await get("prefix=repo/")).chunks.map((c: { id: string }) => c.id)).toEqual(["repo/src/a.ts#f"]);
    expect((await get("title_prefix=dense&limit=500")).chunks).toHaveLength(13);
    // Filters apply before the cut: two pages of hipporag papers, both full except the last.
    const p1 = await get("entity=method:hipporag&limit=6");
    expect(p1.chunks).toHaveLength(6);
    const p2 = await get(`entity=method:hipporag&limit=6&cursor=${p1.next_cursor}`);
    expect(p2.chunks).toHaveLength(5);
    expect(p2.next_cursor).toBeNull();
    // as_of: in mid-2024 only the papers existed (the note is from 2025, the code unit from now).
    expect((await get("as_of=2024-06-01&limit=500")).chunks).toHaveLength(23);

    const c = (await get("prefix=arxiv:2401.00001")).chunks[0];
    expect(c).toEqual({
      id: "arxiv:2401.00001",
      kind: "paper",
      version: 1,
      latest_version: 1,
      title: "Graph retrieval study 1",
      synopsis: expect.any(String),
      valid_from: "2024-01-01T00:00:00.000Z",
      valid_to: null,
      content_chars: papers[1]?.content.length,
      boundaries: ["split:test"],
      entities: expect.arrayContaining(["method:hipporag"]),
      deprecated_at: null,
      deprecated_by: null,
    });

    const bad = await api("GET", `${base(id)}/chunks?cursor=%%%`, undefined, key);
    expect(bad.status).toBe(400);
    const forged = await api("GET", `${base(id)}/chunks?cursor=_w`, undefined, key);
    expect(forged.status).toBe(400);
    expect(forged.body.error.field).toBe("cursor");
    expect((await api("GET", `${base(id)}/chunks?kind=poem`, undefined, key)).status).toBe(400);
    expect((await api("GET", `${base(id)}/chunks?limit=0`, undefined, key)).status).toBe(400);
  });
});

describe("GET /chunks/{id}, /content, /entities", () => {
  it("one chunk's history in the public style and exact spans of any version", async () => {
    const { id, key } = await newArchive("browse1");
    const code = {
      id: "repo/src/rank.ts#rank",
      kind: "code_unit",
      title: "rank",
      content: "export function rank(g: Graph): number[] {\n  return ppr(g, 0.85);\n}\n",
      edges: [{ type: "implements", target: "arxiv:2405.14831", weight: 0.35 }],
      valid_from: "2024-06-01",
    };
    await api("POST", `${base(id)}/ingest`, { artifacts: [code] }, key);
    await api(
      "POST",
      `${base(id)}/revise`,
      { ...code, content: code.content.replace("0.85", "0.5"), valid_from: "2024-09-01" },
      key,
    );
    await api("POST", `${base(id)}/deprecate`, { id: code.id, at: "2025-01-01", reason: "moved to rank2" }, key);

    const enc = encodeURIComponent(code.id);
    const d = await api("GET", `${base(id)}/chunks/${enc}`, undefined, key);
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({
      id: code.id,
      kind: "code_unit",
      latest_version: 2,
      first_valid_from: "2024-06-01T00:00:00.000Z",
      deprecated_at: "2025-01-01T00:00:00.000Z",
      deprecation_reason: "moved to rank2",
    });
    expect(d.body.versions.map((v: { valid_to: string }) => v.valid_to)).toEqual([
      "2024-09-01T00:00:00.000Z",
      "2025-01-01T00:00:00.000Z",
    ]);
    expect(d.body.versions[0].edges).toEqual([{ type: "implements", target: "arxiv:2405.14831", weight: 0.35 }]);
    expect(d.body.edges[0].weight).toBe(0.35);
    expect(d.body.versions[0].content_sha256).toMatch(/^[0-9a-f]{64}$/);
    // A code unit's declarations are stored per version; a signature is an exact, verifiable span.
    const sym = d.body.versions[0].symbols[0];
    expect(sym).toMatchObject({ name: "rank", kind: "function", exported: true, line: 1 });
    expect(sym.signature).toContain("rank(g: Graph)");
    const snippet = code.content.slice(sym.start, sym.end);
    expect(snippet).toContain("export function rank");
    const verified = await api(
      "POST",
      `${base(id)}/verify`,
      { anchors: [{ artifact_id: code.id, version: 1, start: sym.start, end: sym.end, snippet }] },
      key,
    );
    expect(verified.body.all_verified).toBe(true);
    expect(d.body.versions[1].symbols[0].signature).toContain("rank(g: Graph)");
    const text = JSON.stringify(d.body);
    for (const internal of ["contentKey", "content_key", "vectorId", "archiveId", "archives/"])
      expect(text).not.toContain(internal);
    // /history?chunk= is the same view.
    expect((await api("GET", `${base(id)}/history?chunk=${enc}`, undefined, key)).body).toEqual(d.body);

    const span = await api("GET", `${base(id)}/chunks/${enc}/content?version=1&start=7&end=15`, undefined, key);
    expect(span.body).toMatchObject({ version: 1, start: 7, end: 15, text: "function", truncated: false });
    expect(span.body.content_sha256).toBe(d.body.versions[0].content_sha256);
    const old = await api("GET", `${base(id)}/chunks/${enc}/content?as_of=2024-07-01`, undefined, key);
    expect(old.body.text).toBe(code.content);
    const cut = await api("GET", `${base(id)}/chunks/${enc}/content?version=2&max_chars=10`, undefined, key);
    expect(cut.body).toMatchObject({ start: 0, end: 10, truncated: true, next_start: 10 });
    const gone = await api("GET", `${base(id)}/chunks/${enc}/content`, undefined, key);
    expect(gone.status).toBe(404);
    expect(gone.body.error.hint).toMatch(/version/);
    expect((await api("GET", `${base(id)}/chunks/${enc}/content?version=3`, undefined, key)).body.error.field).toBe(
      "version",
    );
    expect((await api("GET", `${base(id)}/chunks/${enc}/content?version=1&start=9999`, undefined, key)).status).toBe(
      400,
    );
    expect((await api("GET", `${base(id)}/chunks/${enc}/content?version=1&start=9&end=3`, undefined, key)).status).toBe(
      400,
    );
    expect((await api("GET", `${base(id)}/chunks/nope`, undefined, key)).status).toBe(404);
  });

  it("entities page by page, merged ones on request, and one entity's names over time", async () => {
    const { id, key } = await newArchive("browse2");
    await api(
      "POST",
      `${base(id)}/ingest`,
      {
        artifacts: [
          paper(1, {
            entities: [
              { type: "method", name: "HippoRAG" },
              { type: "dataset", name: "MuSiQue" },
            ],
          }),
          paper(2, { entities: [{ type: "method", name: "Hippo-RAG" }] }),
        ],
      },
      key,
    );
    await api("POST", `${base(id)}/entities/merge`, { entity: "method:hippo-rag", into: "method:hipporag" }, key);
    await api("POST", `${base(id)}/entities/rename`, { entity: "method:hipporag", new_name: "HippoRAG 2" }, key);
    const list = await api("GET", `${base(id)}/entities?type=method`, undefined, key);
    expect(list.body.entities.map((e: { id: string }) => e.id)).toEqual(["method:hipporag"]);
    const all = await api("GET", `${base(id)}/entities?merged=true&limit=1`, undefined, key);
    expect(all.body.entities).toHaveLength(1);
    expect(all.body.next_cursor).toBeTruthy();
    const merged = await api("GET", `${base(id)}/entities?prefix=method:hippo-&merged=true`, undefined, key);
    expect(merged.body.entities[0]).toMatchObject({ id: "method:hippo-rag", merged_into: "method:hipporag" });
    expect(merged.body.entities[0].merged_at).toMatch(ISO);

    const e = await api("GET", `${base(id)}/entities/${encodeURIComponent("method:hipporag")}`, undefined, key);
    expect(e.status).toBe(200);
    expect(e.body).toMatchObject({ id: "method:hipporag", type: "method", name: "HippoRAG 2", merged_into: null });
    expect(e.body.events.map((x: { op: string }) => x.op)).toEqual(expect.arrayContaining(["absorbed", "rename"]));
    expect(typeof e.body.events[0].detail).toBe("object");
    expect(e.body.mentions[0]).toEqual({
      chunk: "arxiv:2401.00001",
      version: 1,
      valid_from: "2024-01-01T00:00:00.000Z",
      valid_to: null,
    });
    expect((await api("GET", `${base(id)}/entities/method%3Anope`, undefined, key)).status).toBe(404);
  });

  it("another archive's key reads none of it", async () => {
    const a = await newArchive("browse3");
    const b = await newArchive("browse4");
    await api("POST", `${base(b.id)}/ingest`, { artifacts: [paper(1)] }, b.key);
    for (const path of ["/chunks", "/entities", "/chunks/arxiv%3A2401.00001", "/chunks/arxiv%3A2401.00001/content"]) {
      const res = await api("GET", `${base(b.id)}${path}`, undefined, a.key);
      expect(res.status, path).toBe(403);
    }
  });
});
