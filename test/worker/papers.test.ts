/** Locate and coverage over full-text imports: element chunks, as_of, exact snippets, isolation. */

import { describe, expect, it } from "vitest";
import { s2orcPaper, unarxivePaper } from "../fixtures/papers";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

const PID = "arxiv:2301.00001";
const S1 = `${PID}#s1-1-introduction`;
const S2 = `${PID}#s2-2-method`;
const S3 = `${PID}#s3-3-results`;
const S4 = `${PID}#s4-a-appendix`;

async function importFulltext(archive: string, key: string, records: unknown[]) {
  const res = await WORKER.fetch(
    `http://paperguru.test/v1/archives/${archive}/import?format=fulltext&name=papers.jsonl`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
      body: records.map((r) => JSON.stringify(r)).join("\n"),
    },
  );
  // biome-ignore lint/suspicious/noExplicitAny: structural checks
  return { status: res.status, body: (await res.json()) as any };
}

async function setup() {
  const a = await newArchive("papers");
  const imp = await importFulltext(a.id, a.key, [unarxivePaper, s2orcPaper]);
  expect(imp.status).toBe(200);
  return a;
}

const locate = (id: string, key: string, body: unknown) => api("POST", `/v1/archives/${id}/locate`, body, key);
const coverage = (id: string, key: string, q: string) => api("GET", `/v1/archives/${id}/coverage?${q}`, undefined, key);

describe("element chunks through /import", () => {
  it("stores figures, tables and equations part-of the paper and re-importing creates nothing", async () => {
    const { id, key } = await setup();
    const els = await api(
      "GET",
      `/v1/archives/${id}/chunks?kind=element&prefix=${encodeURIComponent(PID)}`,
      undefined,
      key,
    );
    expect(els.body.chunks.map((c: { id: string }) => c.id)).toEqual([
      `${PID}#eq1`,
      `${PID}#fig1`,
      `${PID}#fig2`,
      `${PID}#tab1`,
    ]);
    const fig = await api("GET", `/v1/archives/${id}/chunks/${encodeURIComponent(`${PID}#fig1`)}`, undefined, key);
    expect(
      fig.body.edges
        .filter((e: { type: string }) => e.type === "discussed-in")
        .map((e: { dst: string }) => e.dst)
        .sort(),
    ).toEqual([S1, S3]);
    const again = await importFulltext(id, key, [unarxivePaper, s2orcPaper]);
    expect(again.body.counts.created).toBe(0);
    expect(again.body.counts.updated).toBe(0);
  });
});

describe("POST /locate", () => {
  it("ranks the paper's sections and elements with exact snippets that verify, and never another paper's", async () => {
    const { id, key } = await setup();
    const r = await locate(id, key, { paper: PID, query: "latency per query on three datasets", limit: 5 });
    expect(r.status).toBe(200);
    const top = r.body.items[0];
    expect(top).toMatchObject({ rank: 1, chunk: `${PID}#tab1`, kind: "element", element_type: "table", page: null });
    expect(top.discussed_in).toEqual([S2, S3]);
    expect(top.snippets[0]).toMatchObject({ text: "Latency per query on three datasets.", start: 0, score: 1 });
    // The table's discussion puts its sections first in `sections`.
    expect(r.body.sections.slice(0, 2)).toEqual([
      expect.objectContaining({ chunk: S2, via: `${PID}#tab1` }),
      expect.objectContaining({ chunk: S3, via: `${PID}#tab1` }),
    ]);
    for (const it of r.body.items) expect(it.chunk.startsWith(PID)).toBe(true);
    const anchors = r.body.items.flatMap(
      (it: { chunk: string; version: number; snippets: Array<{ start: number; end: number; text: string }> }) =>
        it.snippets.map((s) => ({
          artifact_id: it.chunk,
          version: it.version,
          start: s.start,
          end: s.end,
          snippet: s.text,
        })),
    );
    expect(anchors.length).toBeGreaterThan(0);
    const v = await api("POST", `/v1/archives/${id}/verify`, { anchors }, key);
    expect(v.body.all_verified).toBe(true);

    // A query about the other paper finds nothing of it inside this one.
    const other = await locate(id, key, { paper: PID, query: "weight gain of larvae per diet beetles" });
    for (const it of other.body.items) expect(it.chunk.startsWith(PID)).toBe(true);
    const beetle = await locate(id, key, { paper: "doi:10.1000/beetles", query: "weight gain of larvae per diet" });
    expect(beetle.body.items[0].chunk).toBe("doi:10.1000/beetles#fig1");
    expect(beetle.body.sections[0]).toMatchObject({ chunk: "doi:10.1000/beetles#s2-results" });

    // kinds: sections only.
    const secs = await locate(id, key, { paper: PID, query: "latency per query", kinds: ["section"] });
    expect(secs.body.items.every((x: { kind: string }) => x.kind === "section")).toBe(true);
    expect(secs.body.items.map((x: { chunk: string }) => x.chunk)).toContain(S2);
  });

  it("reads the version valid at as_of", async () => {
    const { id, key } = await setup();
    const rev = await api(
      "POST",
      `/v1/archives/${id}/revise`,
      {
        id: S4,
        kind: "section",
        title: "Routing memory for research agents: A Appendix",
        content: "Hyperparameters are the defaults. The damping factor is 0.85.",
        edges: [{ type: "part-of", target: PID }],
        valid_from: "2023-06-01",
      },
      key,
    );
    expect(rev.status).toBe(200);
    const q = { paper: PID, query: "hyperparameters damping factor", kinds: ["section"] };
    const now = await locate(id, key, q);
    expect(now.body.items[0]).toMatchObject({ chunk: S4, version: 2 });
    expect(now.body.items[0].snippets[0].text).toBe("The damping factor is 0.85.");
    const before = await locate(id, key, { ...q, as_of: "2023-03-01" });
    expect(before.body.items[0]).toMatchObject({ chunk: S4, version: 1 });
    expect(before.body.items[0].snippets).toEqual([
      { start: 0, end: 33, text: "Hyperparameters are the defaults.", score: 0.3333, page: null },
    ]);
    expect(before.body.as_of).toBe("2023-03-01T00:00:00.000Z");
    const early = await locate(id, key, { ...q, as_of: "2022-01-01" });
    expect(early.status).toBe(404);
    expect(early.body.error.field).toBe("as_of");
  });

  it("answers 404 for an unknown paper and 400 for a chunk that is not a paper", async () => {
    const { id, key } = await setup();
    const none = await locate(id, key, { paper: "arxiv:9999.99999", query: "x" });
    expect(none.status).toBe(404);
    expect(none.body.error.field).toBe("paper");
    const sec = await locate(id, key, { paper: S1, query: "x" });
    expect(sec.status).toBe(400);
    expect(sec.body.error.message).toMatch(/section chunk, not a paper/);
    const bad = await locate(id, key, { paper: PID, query: "x", limit: 500 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toMatch(/limit/);
  });

  it("keeps archives apart", async () => {
    const a = await setup();
    const b = await newArchive("papers-b");
    expect((await locate(b.id, b.key, { paper: PID, query: "latency" })).status).toBe(404);
    expect((await locate(a.id, b.key, { paper: PID, query: "latency" })).status).toBe(403);
    expect((await coverage(a.id, b.key, `paper=${encodeURIComponent(PID)}`)).status).toBe(403);
  });
});

describe("GET /coverage", () => {
  it("counts referenced items per type exactly, with micro and macro shares and the unlinked listed", async () => {
    const { id, key } = await setup();
    const r = await coverage(id, key, `paper=${encodeURIComponent(PID)}&rule=referenced`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ rule: "referenced", aggregate: "micro", total: 8, linked: 6, share: 0.75 });
    expect(r.body.types.section).toMatchObject({ total: 4, linked: 3, share: 0.75 });
    expect(r.body.types.section.unlinked.map((x: { chunk: string }) => x.chunk)).toEqual([S4]);
    expect(r.body.types.figure).toMatchObject({ total: 2, linked: 1, share: 0.5 });
    expect(r.body.types.figure.unlinked).toEqual([
      expect.objectContaining({ chunk: `${PID}#fig2`, referenced: false, version: 1 }),
    ]);
    expect(r.body.types.table).toMatchObject({ total: 1, linked: 1, share: 1, unlinked: [] });
    expect(r.body.types.equation).toMatchObject({ total: 1, linked: 1, share: 1 });
    const macro = await coverage(id, key, `paper=${encodeURIComponent(PID)}&rule=referenced&aggregate=macro`);
    expect(macro.body.share).toBe(0.8125); // (3/4 + 1/2 + 1 + 1) / 4
    const s2 = await coverage(id, key, `paper=${encodeURIComponent("doi:10.1000/beetles")}&rule=referenced`);
    expect(s2.body).toMatchObject({ total: 5, linked: 5, share: 1 });
  });

  it("reads edges as of a time: a later discussion links an element from then on", async () => {
    const { id, key } = await setup();
    const rev = await api(
      "POST",
      `/v1/archives/${id}/revise`,
      {
        id: `${PID}#fig2`,
        kind: "element",
        title: "Routing memory for research agents: Figure 2",
        content: "A diagram of the ingest pipeline.",
        boundaries: ["element:figure"],
        edges: [
          { type: "part-of", target: PID },
          { type: "discussed-in", target: S4 },
        ],
        valid_from: "2023-06-01",
      },
      key,
    );
    expect(rev.status).toBe(200);
    const q = `paper=${encodeURIComponent(PID)}&rule=referenced`;
    const before = await coverage(id, key, `${q}&as_of=2023-03-01`);
    expect(before.body).toMatchObject({ total: 8, linked: 6 });
    const now = await coverage(id, key, q);
    expect(now.body).toMatchObject({ total: 8, linked: 8, share: 1 });
    expect(now.body.types.figure.unlinked).toEqual([]);
    const early = await coverage(id, key, `${q}&as_of=2022-01-01`);
    expect(early.status).toBe(404);
  });

  it("grounded: an item is grounded when its version names an entity other than the paper, a person or a venue", async () => {
    const { id, key } = await setup();
    const q = `paper=${encodeURIComponent(PID)}`;
    // Only S1 names an entity (the PageRank paper it cites); captions and the other sections name none.
    const grounded = await coverage(id, key, `${q}&rule=grounded`);
    expect(grounded.body).toMatchObject({ total: 8, linked: 1, share: 0.125 });
    expect(
      grounded.body.types.section.unlinked.map((x: { chunk: string; referenced: boolean; grounded: boolean }) => [
        x.chunk,
        x.referenced,
        x.grounded,
      ]),
    ).toEqual([
      [S2, true, false],
      [S3, true, false],
      [S4, false, false],
    ]);
    expect((await coverage(id, key, `${q}&rule=both`)).body).toMatchObject({ linked: 1 });
    const dflt = await coverage(id, key, q);
    expect(dflt.body).toMatchObject({ rule: "either", aggregate: "micro", linked: 6, share: 0.75 });
    // The S2ORC paper's chunks name only themselves (ids that look like DOIs), which does not ground them.
    const beetles = await coverage(id, key, `paper=${encodeURIComponent("doi:10.1000/beetles")}&rule=grounded`);
    expect(beetles.body).toMatchObject({ total: 5, linked: 0 });
  });
});
