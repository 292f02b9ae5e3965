/** SGMC on the kernel over REST: outline tree, hubs, drafts and their anchors, convergence, assembly, feedback. */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

const base = (id: string) => `/v1/archives/${id}`;
const enc = encodeURIComponent;

const PAPERS = [
  {
    id: "paper:de",
    kind: "paper",
    title: "Differential entropy features",
    synopsis: "DE features work well for EEG.",
    content:
      "Differential entropy features work well for EEG emotion recognition. They are computed per frequency band. A linear SVM on DE features reaches high accuracy.",
    valid_from: "2024-01-01",
  },
  {
    id: "paper:gnn",
    kind: "paper",
    title: "Graph networks over electrodes",
    synopsis: "Electrodes form a graph.",
    content:
      "Graph neural networks model electrodes as nodes of a graph. Adjacency follows the scalp layout. The graph model beats convolutional baselines on SEED.",
    valid_from: "2024-01-01",
  },
  {
    id: "paper:other",
    kind: "paper",
    title: "Unrelated protein folding study",
    content: "Protein folding is predicted from sequences. Nothing about EEG here.",
    valid_from: "2024-01-01",
  },
];

const node = (id: string, title: string, synopsis: string, edges: unknown[], extra: string[] = []) => ({
  id,
  kind: "section",
  title,
  synopsis,
  content: `${title}. ${synopsis}`,
  boundaries: ["outline", ...extra],
  edges,
  valid_from: "2024-02-01",
});

async function outline() {
  const a = await newArchive("sgmc");
  const ingest = await api(
    "POST",
    `${base(a.id)}/ingest`,
    {
      artifacts: [
        ...PAPERS,
        node("rev", "EEG emotion recognition", "A survey.", []),
        // Listed out of order: the order boundaries decide.
        node(
          "rev/models",
          "Models",
          "Graph models.",
          [
            { type: "part-of", target: "rev" },
            { type: "cites", target: "paper:gnn" },
          ],
          ["order:2"],
        ),
        node(
          "rev/features",
          "Features",
          "Which features.",
          [
            { type: "part-of", target: "rev" },
            { type: "cites", target: "paper:de" },
            { type: "cites", target: "paper:gnn" },
          ],
          ["order:1"],
        ),
      ],
    },
    a.key,
  );
  expect(ingest.status).toBe(200);
  return a;
}

describe("outline tree", () => {
  it("reads the subtree exactly with word counts, φ, order, done and as_of", async () => {
    const a = await outline();
    const r = await api("GET", `${base(a.id)}/tree?root=rev&theta=10`, undefined, a.key);
    expect(r.status).toBe(200);
    expect(r.body.nodes.map((n: { id: string }) => n.id)).toEqual(["rev", "rev/features", "rev/models"]);
    const [root, features, models] = r.body.nodes;
    expect(root).toMatchObject({ depth: 0, parent: null, children: ["rev/features", "rev/models"], leaf: false });
    // "Features Which features." = 3; references: "Differential entropy features DE features work well for EEG." = 9,
    // "Graph networks over electrodes Electrodes form a graph." = 8.
    expect(features.words).toEqual({ own: 3, own_from: "content", references: 17, counted: 20 });
    expect(features.split).toBe(true);
    expect(features.references.map((x: { id: string }) => x.id).sort()).toEqual(["paper:de", "paper:gnn"]);
    // "Models Graph models." = 3 + 8.
    expect(models.words).toEqual({ own: 3, own_from: "content", references: 8, counted: 11 });
    expect(models).toMatchObject({ depth: 1, parent: "rev", split: true, leaf: true });
    expect(r.body.done).toBe(false);
    expect(r.body.pending).toEqual(["rev/features", "rev/models"]);

    // θ = 500 (default): nothing to split, the tree is done.
    const d = await api("GET", `${base(a.id)}/tree?root=rev`, undefined, a.key);
    expect(d.body.theta).toBe(500);
    expect(d.body.done).toBe(true);
    // Counting only the node's own words: 3 ≤ 10.
    const own = await api("GET", `${base(a.id)}/tree?root=rev&theta=10&words=own`, undefined, a.key);
    expect(own.body.done).toBe(true);
    // d_max = 1: leaves at depth 1 are final even when φ = 1 (Eq. 5).
    const shallow = await api("GET", `${base(a.id)}/tree?root=rev&theta=10&d_max=1`, undefined, a.key);
    expect(shallow.body.done).toBe(true);

    // A subsection added later: a deeper node, invisible before it existed.
    await api(
      "POST",
      `${base(a.id)}/ingest`,
      {
        artifacts: [
          {
            ...node("rev/features/de", "Entropy", "DE.", [
              { type: "part-of", target: "rev/features" },
              { type: "part-of", target: "rev" },
            ]),
            valid_from: "2024-03-01",
          },
        ],
      },
      a.key,
    );
    const now = await api("GET", `${base(a.id)}/tree?root=rev&theta=10`, undefined, a.key);
    const de = now.body.nodes.find((n: { id: string }) => n.id === "rev/features/de");
    // Two part-of parents: it hangs under the deeper one.
    expect(de).toMatchObject({ depth: 2, parent: "rev/features" });
    expect(now.body.nodes.map((n: { id: string }) => n.id)).toEqual([
      "rev",
      "rev/features",
      "rev/features/de",
      "rev/models",
    ]);
    const before = await api("GET", `${base(a.id)}/tree?root=rev&theta=10&as_of=2024-02-15`, undefined, a.key);
    expect(before.body.nodes).toHaveLength(3);
    const gone = await api("GET", `${base(a.id)}/tree?root=rev&as_of=2024-01-15`, undefined, a.key);
    expect(gone.status).toBe(404);
    expect(gone.body.error.field).toBe("root");
  });

  it("bad input is a 4xx naming the field; a large subtree a 413; other archives' keys are refused", async () => {
    const a = await outline();
    const missing = await api("GET", `${base(a.id)}/tree`, undefined, a.key);
    expect(missing.status).toBe(400);
    expect(missing.body.error.field).toBe("root");
    const theta = await api("GET", `${base(a.id)}/tree?root=rev&theta=0`, undefined, a.key);
    expect(theta.status).toBe(400);
    expect(theta.body.error.field).toBe("theta");
    const big = await api("GET", `${base(a.id)}/tree?root=rev&max_nodes=2`, undefined, a.key);
    expect(big.status).toBe(413);
    expect(big.body.error.field).toBe("max_nodes");
    const b = await newArchive("sgmc");
    const other = await api("GET", `${base(a.id)}/tree?root=rev`, undefined, b.key);
    expect(other.status).toBe(403);
    // The same ids in another archive are not this archive's tree.
    const empty = await api("GET", `${base(b.id)}/tree?root=rev`, undefined, b.key);
    expect(empty.status).toBe(404);
  });
});

describe("hubs, drafts, convergence and assembly", () => {
  it("gathers evidence from the node's references only, keeps each iteration, and drafts whose anchors verify", async () => {
    const a = await outline();
    const g = await api(
      "POST",
      `${base(a.id)}/hubs/gather`,
      { node: "rev/models", query: "EEG features graph", at: "2024-03-01" },
      a.key,
    );
    expect(g.status).toBe(200);
    expect(g.body.hub).toMatchObject({ id: "rev/models#hub", version: 1, status: "created" });
    expect(g.body.iteration).toBe(0);
    expect(g.body.references).toBe(1);
    // Only paper:gnn is a reference of rev/models; paper:de matches the query too but is filtered out.
    expect(g.body.cards.map((c: { artifact_id: string }) => c.artifact_id)).toEqual(["paper:gnn"]);
    expect(g.body.evidence.length).toBeGreaterThanOrEqual(2);
    const v = await api("POST", `${base(a.id)}/verify`, { anchors: g.body.evidence.map(stripTitle) }, a.key);
    expect(v.body.all_verified).toBe(true);

    // A second iteration with the default query; the hub keeps both, readable as of each time.
    const g2 = await api("POST", `${base(a.id)}/hubs/gather`, { node: "rev/features", at: "2024-03-01" }, a.key);
    expect(g2.status).toBe(200);
    expect(g2.body.query).toBe("Features. Which features.");
    expect(new Set(g2.body.cards.map((c: { artifact_id: string }) => c.artifact_id))).toEqual(
      new Set(["paper:de", "paper:gnn"]),
    );
    const g3 = await api(
      "POST",
      `${base(a.id)}/hubs/gather`,
      { node: "rev/features", query: "differential entropy", at: "2024-03-05", max_cards: 1 },
      a.key,
    );
    expect(g3.body.hub).toMatchObject({ version: 2, status: "updated" });
    const hub = await api("GET", `${base(a.id)}/hubs?node=${enc("rev/features")}`, undefined, a.key);
    expect(hub.body.iterations.map((i: { iteration: number }) => i.iteration)).toEqual([0, 1]);
    expect(hub.body.iterations[1].query).toBe("differential entropy");
    expect(hub.body.iterations[1].evidence).toEqual(g3.body.evidence);
    const early = await api("GET", `${base(a.id)}/hubs?node=${enc("rev/features")}&as_of=2024-03-02`, undefined, a.key);
    expect(early.body.iterations).toHaveLength(1);

    // Drafts: anchors must verify; the version cites their artifacts and keeps them.
    const anchor = stripTitle(g3.body.evidence[0]);
    const bad = await api(
      "POST",
      `${base(a.id)}/drafts`,
      { node: "rev/features", text: "x", evidence: [anchor, { ...anchor, snippet: `${anchor.snippet.slice(1)}!` }] },
      a.key,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("evidence.1");
    const d1 = await api(
      "POST",
      `${base(a.id)}/drafts`,
      {
        node: "rev/features",
        text: "the cat sat on the mat",
        evidence: [anchor],
        at: "2024-03-10",
      },
      a.key,
    );
    expect(d1.status).toBe(200);
    expect(d1.body.draft).toMatchObject({ id: "rev/features#draft", version: 1, status: "created" });
    expect(d1.body.cites).toEqual([anchor.artifact_id]);
    const d2 = await api(
      "POST",
      `${base(a.id)}/drafts`,
      { node: "rev/features", text: "the cat sat on the mat today", evidence: [anchor], at: "2024-03-20" },
      a.key,
    );
    expect(d2.body.draft.version).toBe(2);
    const read = await api(
      "GET",
      `${base(a.id)}/drafts?node=${enc("rev/features")}&as_of=2024-03-15`,
      undefined,
      a.key,
    );
    expect(read.body).toMatchObject({ version: 1, iteration: 0, text: "the cat sat on the mat" });
    expect(read.body.evidence).toEqual([anchor]);
    const rv = await api("POST", `${base(a.id)}/verify`, { anchors: read.body.evidence }, a.key);
    expect(rv.body.all_verified).toBe(true);
    // The draft's cites edge is in the graph, as of its time.
    const cites = await api(
      "GET",
      `${base(a.id)}/neighbours?chunk=${enc("rev/features#draft")}&as_of=2024-03-25`,
      undefined,
      a.key,
    );
    expect(JSON.stringify(cites.body)).toContain(anchor.artifact_id);

    // Convergence: v2 against v1: overlap 6, precision 6/7, recall 1, F1 12/13.
    const conv = `${base(a.id)}/convergence?draft=${enc("rev/features#draft")}`;
    const c9 = await api("GET", `${conv}&epsilon=0.9`, undefined, a.key);
    expect(c9.status).toBe(200);
    expect(c9.body.pairs).toEqual([{ from: 1, to: 2, precision: 0.8571, recall: 1, f1: 0.9231 }]);
    expect(c9.body.stop).toEqual({ iteration: 1, version: 2, reason: "similar" });
    const c95 = await api("GET", `${conv}&epsilon=0.95`, undefined, a.key);
    expect(c95.body.stop).toBeNull();
    const tmax = await api("GET", `${conv}&epsilon=0.95&t_max=1`, undefined, a.key);
    expect(tmax.body.stop).toEqual({ iteration: 1, version: 2, reason: "t_max" });
    const recall = await api("GET", `${conv}&epsilon=0.95&measure=recall`, undefined, a.key);
    expect(recall.body.stop).toMatchObject({ iteration: 1, reason: "similar" });
    const asOf = await api("GET", `${conv}&epsilon=0.9&as_of=2024-03-15`, undefined, a.key);
    expect(asOf.body.pairs).toEqual([]);
    expect(asOf.body.stop).toBeNull();
    const eps = await api("GET", `${conv}&epsilon=2`, undefined, a.key);
    expect(eps.status).toBe(400);
    expect(eps.body.error.field).toBe("epsilon");

    // Assembly: only the converged section, in tree order, within the budget.
    const asm = await api("POST", `${base(a.id)}/assemble`, { root: "rev", budget_tokens: 500 }, a.key);
    expect(asm.status).toBe(200);
    expect(asm.body.text).toBe("## Features\n\nthe cat sat on the mat today\n\n");
    expect(asm.body.sections).toEqual([
      { node: "rev/features", depth: 1, draft: "rev/features#draft", version: 2, tokens: asm.body.tokens },
    ]);
    expect(asm.body.left_out).toEqual([
      { node: "rev", reason: "no_draft", tokens: null },
      { node: "rev/models", reason: "no_draft", tokens: null },
    ]);
    const strict = await api(
      "POST",
      `${base(a.id)}/assemble`,
      { root: "rev", budget_tokens: 500, epsilon: 0.95 },
      a.key,
    );
    expect(strict.body.left_out).toContainEqual({ node: "rev/features", reason: "not_converged", tokens: null });
    const tight = await api("POST", `${base(a.id)}/assemble`, { root: "rev", budget_tokens: 50, epsilon: 0.5 }, a.key);
    expect(tight.body.sections).toHaveLength(1);
    const tiny = await api("POST", `${base(a.id)}/assemble`, { root: "rev", budget_tokens: 50 }, a.key);
    expect(tiny.body.tokens).toBeLessThanOrEqual(50);
    const past = await api(
      "POST",
      `${base(a.id)}/assemble`,
      { root: "rev", as_of: "2024-03-15", require_converged: false },
      a.key,
    );
    expect(past.body.text).toBe("## Features\n\nthe cat sat on the mat\n\n");
  });

  it("refuses a node without references, unknown nodes and read-only keys on writes", async () => {
    const a = await outline();
    const none = await api("POST", `${base(a.id)}/hubs/gather`, { node: "rev" }, a.key);
    expect(none.status).toBe(400);
    expect(none.body.error.field).toBe("node");
    const unknown = await api("POST", `${base(a.id)}/drafts`, { node: "nope", text: "x" }, a.key);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.field).toBe("node");
    const extra = await api("POST", `${base(a.id)}/drafts`, { node: "rev", text: "x", colour: 1 }, a.key);
    expect(extra.status).toBe(400);
    const ro = await api("POST", `${base(a.id)}/keys`, { scopes: ["read"] });
    expect(ro.status).toBe(201);
    const denied = await api("POST", `${base(a.id)}/drafts`, { node: "rev", text: "x" }, ro.body.secret);
    expect(denied.status).toBe(403);
  });
});

describe("feedback memory (Eq. 12)", () => {
  it("selects among the fewest revisions the most used, as of a time, within a scope", async () => {
    const a = await newArchive("sgmc");
    const rec = (id: string, day: string, scope: string) => ({
      id,
      kind: "note",
      title: `Feedback ${id}`,
      content: `Check ${id} before drafting.`,
      boundaries: ["feedback", scope],
      valid_from: day,
    });
    await api(
      "POST",
      `${base(a.id)}/ingest`,
      {
        artifacts: [
          rec("fb:a", "2024-01-01", "agent:drafter"),
          rec("fb:b", "2024-01-02", "agent:drafter"),
          rec("fb:c", "2024-01-03", "agent:drafter"),
          rec("fb:s", "2024-01-01", "agent:search"),
        ],
      },
      a.key,
    );
    const count = (id: string, key: string, at: string, event_id: string) =>
      api("POST", `${base(a.id)}/chunks/${enc(id)}/annotations`, { key, add: 1, at, event_id }, a.key);
    const select = (body: Record<string, unknown>) => api("POST", `${base(a.id)}/feedback/select`, body, a.key);

    // No counters: all tie on (0, 0); the oldest of the scope, or the newest.
    expect((await select({ scope: "agent:drafter" })).body.selected.id).toBe("fb:a");
    expect((await select({ scope: "agent:drafter", tie: "newest" })).body.selected.id).toBe("fb:c");
    await count("fb:a", "revisions", "2024-02-01", "e1");
    await count("fb:b", "uses", "2024-02-01", "e2");
    await count("fb:b", "uses", "2024-02-02", "e3");
    await count("fb:b", "uses", "2024-02-02", "e3"); // a retry: counted once
    await count("fb:c", "uses", "2024-02-03", "e4");
    const now = await select({ scope: "agent:drafter" });
    expect(now.body).toMatchObject({ records: 3, r_min: 0, r_min_size: 2 });
    expect(now.body.selected).toMatchObject({ id: "fb:b", uses: 2, revisions: 0 });
    expect(now.body.candidates.map((c: { id: string }) => c.id)).toEqual(["fb:b", "fb:c"]);
    // fb:b gets a revision: R_min is {fb:c} alone, although fb:b is used more.
    await count("fb:b", "revisions", "2024-02-04", "e5");
    expect((await select({ scope: "agent:drafter" })).body.selected.id).toBe("fb:c");
    // As of before the revision, fb:b again; as of before any counter, fb:a (oldest).
    expect((await select({ scope: "agent:drafter", as_of: "2024-02-03T12:00:00Z" })).body.selected.id).toBe("fb:b");
    expect((await select({ scope: "agent:drafter", as_of: "2024-01-31" })).body.selected.id).toBe("fb:a");
    // Records not yet written are not candidates.
    expect((await select({ as_of: "2024-01-01T12:00:00Z" })).body.records).toBe(2);
    // Without a scope every feedback record counts: fb:s (0 revisions, 0 uses) ties below fb:c's 1 use.
    expect((await select({})).body.selected.id).toBe("fb:c");
    const bad = await select({ tie: "random" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("tie");
    const empty = await select({ scope: "agent:none" });
    expect(empty.body).toMatchObject({ records: 0, selected: null, r_min: null });
  });
});

describe("research memory in general queries", () => {
  it("leaves hubs and drafts out of /context and /route unless the filter asks for them", async () => {
    const a = await outline();
    const g = await api(
      "POST",
      `${base(a.id)}/hubs/gather`,
      { node: "rev/features", query: "differential entropy features EEG", at: "2024-03-01" },
      a.key,
    );
    expect(g.status).toBe(200);
    const anchor = stripTitle(g.body.evidence[0]);
    const d = await api(
      "POST",
      `${base(a.id)}/drafts`,
      {
        node: "rev/features",
        text: "Differential entropy features work well for EEG emotion recognition, per frequency band.",
        evidence: [anchor],
        at: "2024-03-10",
      },
      a.key,
    );
    expect(d.status).toBe(200);
    const query = "differential entropy features EEG frequency band";
    const ids = (cards: Array<{ artifact_id: string }>) => cards.map((c) => c.artifact_id);
    const memory = (xs: string[]) => xs.filter((x) => x.endsWith("#hub") || x.endsWith("#draft"));

    // Asked for: both are there (the filter flag, or a boundary naming the tag).
    const asked = await api(
      "POST",
      `${base(a.id)}/route`,
      { query, limit: 32, filter: { research_memory: true } },
      a.key,
    );
    expect(asked.status).toBe(200);
    const askedIds = asked.body.candidates.map((c: { chunk: string }) => c.chunk);
    expect(new Set(memory(askedIds))).toEqual(new Set(["rev/features#hub", "rev/features#draft"]));
    const hubsOnly = await api(
      "POST",
      `${base(a.id)}/context`,
      { query, budget_tokens: 2000, filter: { boundaries_any: ["sgmc:hub"] } },
      a.key,
    );
    expect(ids(hubsOnly.body.cards)).toEqual(["rev/features#hub"]);

    // Not asked for: neither, on route (candidates and selection) and context; the sources still are.
    const route = await api("POST", `${base(a.id)}/route`, { query, limit: 32 }, a.key);
    expect(route.status).toBe(200);
    expect(memory(route.body.candidates.map((c: { chunk: string }) => c.chunk))).toEqual([]);
    expect(memory(route.body.selected.map((c: { chunk: string }) => c.chunk))).toEqual([]);
    const ctx = await api("POST", `${base(a.id)}/context`, { query, budget_tokens: 2000 }, a.key);
    expect(ctx.status).toBe(200);
    expect(memory(ids(ctx.body.cards))).toEqual([]);
    expect(ids(ctx.body.cards)).toContain("paper:de");
    // Another filter does not bring them back.
    const kinds = await api(
      "POST",
      `${base(a.id)}/context`,
      { query, budget_tokens: 2000, filter: { kinds: ["note", "section", "paper"] } },
      a.key,
    );
    expect(memory(ids(kinds.body.cards))).toEqual([]);
    // Their own routes still read them.
    const hub = await api("GET", `${base(a.id)}/hubs?node=${enc("rev/features")}`, undefined, a.key);
    expect(hub.body.iterations).toHaveLength(1);
  });
});

function stripTitle(e: { artifact_id: string; version: number; start: number; end: number; snippet: string }) {
  return { artifact_id: e.artifact_id, version: e.version, start: e.start, end: e.end, snippet: e.snippet };
}
