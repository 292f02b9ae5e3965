/**
 * SGMC (seed 001) through REST, MCP and the model port: Eq. 3 on a node's own text, A_S's removal of
 * incomplete entries (§3.3), usage(r) counted by selections (Eq. 12), the self-loop (Eqs. 11, 13,
 * 14), A_O's sub-outlines (Eq. 2, by the model and by shared names) and the review scaffold (§5).
 * Model roles run against a mocked OpenAI chat endpoint answering from what the model was asked.
 */
import { env } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app";
import { type Env, wire } from "../../src/wiring";
import { mockFetch } from "./fetch-guard";
import { ADMIN, api, newArchive } from "./helpers";
import { type Any, connect, ok as mcpOk, toolError } from "./mcp-client";

const CHAT = "https://api.openai.com/v1/chat/completions";
const base = (id: string) => `/v1/archives/${id}`;
const enc = encodeURIComponent;

const modelApp = wire({
  ...env,
  DISTILLER: "openai",
  LLM_BASE_URL: "https://api.openai.com/v1",
  LLM_MODEL: "mock-1",
  LLM_API_KEY: "sk-test",
} as unknown as Env);
const withModel = createApp(() => modelApp);

async function modelApi(method: string, path: string, body?: unknown): Promise<{ status: number; body: Any }> {
  const res = await withModel.request(`http://paperguru.test${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

interface Asked {
  schema: string;
  prompt: string;
}

/** The mocked chat endpoint: each call answers the next function of `script`; returns what it saw. */
function model(script: Array<(a: Asked) => unknown>) {
  const seen: Asked[] = [];
  mockFetch({
    [CHAT]: async (req) => {
      const body = (await req.json()) as {
        messages: Array<{ role: string; content: string }>;
        response_format?: { json_schema?: { name?: string } };
      };
      const asked = { schema: body.response_format?.json_schema?.name ?? "", prompt: body.messages[1]?.content ?? "" };
      seen.push(asked);
      const next = script.shift();
      if (next === undefined) throw new Error("the model was called more often than scripted");
      return Response.json({
        id: "chatcmpl-1",
        choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(next(asked)) } }],
        usage: { prompt_tokens: 100, completion_tokens: 30 },
      });
    },
  });
  return seen;
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(" ");

describe("Eq. 3 counts the direction's own text", () => {
  it("splits a 520-word section at θ = 500, counted from its content; words=references reads no content", async () => {
    const a = await newArchive("sgmc3");
    const r = await api(
      "POST",
      `${base(a.id)}/ingest`,
      {
        artifacts: [
          { id: "rev", kind: "section", title: "Review", content: "A review.", boundaries: ["outline"] },
          {
            id: "rev/long",
            kind: "section",
            title: "Long section",
            synopsis: "Short synopsis.",
            content: words(520),
            boundaries: ["outline"],
            edges: [{ type: "part-of", target: "rev" }],
          },
          {
            id: "rev/short",
            kind: "section",
            title: "Short section",
            content: words(40),
            boundaries: ["outline"],
            edges: [{ type: "part-of", target: "rev" }],
          },
        ],
      },
      a.key,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const tree = await api("GET", `${base(a.id)}/tree?root=rev`, undefined, a.key);
    expect(tree.status).toBe(200);
    const byId = new Map(tree.body.nodes.map((n: Any) => [n.id, n]));
    expect(byId.get("rev/long")).toMatchObject({
      words: { own: 520, own_from: "content", references: 0, counted: 520 },
      split: true,
    });
    expect(byId.get("rev/short")).toMatchObject({ words: { own: 40, own_from: "content" }, split: false });
    expect(tree.body.theta).toBe(500);
    expect(tree.body.pending).toEqual(["rev/long"]);
    const own = await api("GET", `${base(a.id)}/tree?root=rev&words=own`, undefined, a.key);
    expect(own.body.pending).toEqual(["rev/long"]);
    // References only: the node's head counts as own (not read), and counted is 0.
    const refs = await api("GET", `${base(a.id)}/tree?root=rev&words=references`, undefined, a.key);
    expect(refs.body.nodes.find((n: Any) => n.id === "rev/long").words).toEqual({
      own: 4,
      own_from: "head",
      references: 0,
      counted: 0,
    });
    expect(refs.body.done).toBe(true);
  });
});

describe("A_S removes incomplete entries before the top Q_k (§3.3)", () => {
  it("ranks by citations, reports which entries lack which field and the duplicates", async () => {
    const a = await newArchive("sgmcas");
    const paper = (id: string, title: string, extra: Record<string, unknown> = {}) => ({
      id,
      kind: "paper",
      title,
      content: `${title}: an abstract about EEG features.`,
      valid_from: "2023-05-01",
      ...extra,
    });
    const ing = await api(
      "POST",
      `${base(a.id)}/ingest`,
      {
        artifacts: [
          paper("p:a", "Differential entropy for EEG"),
          paper("p:b", "Graph networks over electrodes"),
          paper("p:c", "Spectral power features", { boundaries: ["year:2021"] }),
          paper("p:dup", "Differential Entropy for EEG!"),
          paper("p:noyear", "Undated preprint", { boundaries: ["year:unknown"] }),
          paper("p:untitled", "p:untitled"),
          { id: "p:noabs", kind: "paper", title: "Title only", content: "Title only.", valid_from: "2022-01-01" },
          {
            id: "rev",
            kind: "section",
            title: "Features",
            content: "Features.",
            boundaries: ["outline"],
            edges: ["p:a", "p:b", "p:c", "p:dup", "p:noyear", "p:noabs", "p:untitled", "p:missing"].map((t) => ({
              type: "cites",
              target: t,
            })),
          },
        ],
      },
      a.key,
    );
    expect(ing.status, JSON.stringify(ing.body)).toBe(200);
    const cite = (id: string, n: number) =>
      api("POST", `${base(a.id)}/chunks/${enc(id)}/annotations`, { key: "citations", value: n }, a.key);
    await cite("p:a", 50);
    await cite("p:b", 120);
    await cite("p:c", 7);
    await cite("p:dup", 10);
    await cite("p:noyear", 900);
    const sel = await api("POST", `${base(a.id)}/references/select`, { node: "rev", q_k: 2 }, a.key);
    expect(sel.status, JSON.stringify(sel.body)).toBe(200);
    expect(sel.body.selected.map((x: Any) => [x.id, x.citations, x.citations_from])).toEqual([
      ["p:b", 120, "annotation"],
      ["p:a", 50, "annotation"],
    ]);
    expect(sel.body.incomplete).toEqual(
      expect.arrayContaining([
        { id: "p:noyear", missing: ["year"] },
        { id: "p:noabs", missing: ["abstract"] },
        { id: "p:untitled", missing: ["title"] },
      ]),
    );
    expect(sel.body.incomplete).toHaveLength(3);
    expect(sel.body.duplicates).toEqual([{ id: "p:dup", of: "p:a" }]);
    expect(sel.body.beyond_q_k).toBe(1);
    expect(sel.body.not_visible).toEqual(["p:missing"]);
    // Without the year requirement, the undated paper leads by citations.
    const lax = await api(
      "POST",
      `${base(a.id)}/references/select`,
      { node: "rev", require: ["title", "abstract"] },
      a.key,
    );
    expect(lax.body.selected[0].id).toBe("p:noyear");
    expect(lax.body.incomplete).toEqual([
      { id: "p:noabs", missing: ["abstract"] },
      { id: "p:untitled", missing: ["title"] },
    ]);
    // Explicit ids; node and ids together is a 400 naming the field.
    const ids = await api("POST", `${base(a.id)}/references/select`, { ids: ["p:c", "p:noabs"] }, a.key);
    expect(ids.body.selected.map((x: Any) => x.id)).toEqual(["p:c"]);
    const both = await api("POST", `${base(a.id)}/references/select`, { node: "rev", ids: ["p:c"] }, a.key);
    expect(both.status).toBe(400);
    expect(both.body.error.field).toBe("node");
    const badField = await api("POST", `${base(a.id)}/references/select`, { node: "rev", require: ["doi"] }, a.key);
    expect(badField.status).toBe(400);
    expect(badField.body.error.field).toMatch(/^require/);
  });
});

describe("usage(r) counts selections (Eq. 12)", () => {
  it("each select with a new event id is a use; a repeated id counts once and replays the first answer", async () => {
    const a = await newArchive("sgmcuse");
    const rec = (id: string, day: string) => ({
      id,
      kind: "note",
      title: `Feedback ${id}`,
      content: `Check ${id}.`,
      boundaries: ["feedback", "agent:drafter"],
      valid_from: day,
    });
    await api(
      "POST",
      `${base(a.id)}/ingest`,
      { artifacts: [rec("fb:a", "2024-01-01"), rec("fb:b", "2024-01-02")] },
      a.key,
    );
    const select = (body: Record<string, unknown>) => api("POST", `${base(a.id)}/feedback/select`, body, a.key);
    // fb:b gets one use by hand: it leads.
    await api("POST", `${base(a.id)}/chunks/fb%3Ab/annotations`, { key: "uses", add: 1, event_id: "hand-1" }, a.key);
    const first = await select({ scope: "agent:drafter", event_id: "sel-1" });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.selected).toMatchObject({ id: "fb:b", uses: 1 });
    expect(first.body.used).toMatchObject({ id: "fb:b", event_id: "sel-1", uses: 2 });
    const repeat = await select({ scope: "agent:drafter", event_id: "sel-1" });
    expect(repeat.headers.get("Idempotent-Replayed")).toBe("true");
    expect(repeat.body).toEqual(first.body);
    const after = await select({ scope: "agent:drafter" });
    expect(after.body.selected).toMatchObject({ id: "fb:b", uses: 2 });
    expect(after.body.used).toBeNull();
    // fb:b gets a revision: fb:a (0 revisions) is selected, and its uses grow with each new id.
    await api(
      "POST",
      `${base(a.id)}/chunks/fb%3Ab/annotations`,
      { key: "revisions", add: 1, event_id: "rev-1" },
      a.key,
    );
    const s2 = await select({ scope: "agent:drafter", event_id: "sel-2" });
    expect(s2.body.used).toMatchObject({ id: "fb:a", uses: 1 });
    const s3 = await select({ scope: "agent:drafter", event_id: "sel-3" });
    expect(s3.body.used).toMatchObject({ id: "fb:a", uses: 2 });
    const uses = await api("GET", `${base(a.id)}/chunks/fb%3Aa/annotations?key=uses`, undefined, a.key);
    expect(uses.body.values.uses.value).toBe(2);
    // The same id for another scope is a conflict; nothing to select with an event id is a 409.
    const other = await select({ scope: "agent:search", event_id: "sel-3" });
    expect(other.status).toBe(409);
    expect(other.body.error.field).toBe("event_id");
    const none = await select({ scope: "agent:none", event_id: "sel-4" });
    expect(none.status).toBe(409);
    expect(none.body.error.message).toMatch(/no feedback record to select/);

    // Recording a use is a write: a read-only key may select, not count.
    const ro = (await api("POST", `${base(a.id)}/keys`, { scopes: ["read"] })).body;
    const roSelect = await api("POST", `${base(a.id)}/feedback/select`, { scope: "agent:drafter" }, ro.secret);
    expect(roSelect.status).toBe(200);
    const roUse = await api(
      "POST",
      `${base(a.id)}/feedback/select`,
      { scope: "agent:drafter", event_id: "ro-1" },
      ro.secret,
    );
    expect(roUse.status).toBe(403);
    expect((await select({ scope: "agent:drafter" })).body.selected).toMatchObject({ id: "fb:a", uses: 2 });

    // Over MCP: the read op refuses event_id; curate's use_feedback records a use.
    const open: Awaited<ReturnType<typeof connect>>[] = [];
    const client = await connect(ADMIN, open);
    try {
      const err = await toolError(client, "research", {
        archive: a.id,
        op: "feedback",
        args: { scope: "agent:drafter", event_id: "m-1" },
      });
      expect(err.field).toMatch(/event_id/);
      const used = await mcpOk(client, "curate", {
        archive: a.id,
        op: "use_feedback",
        args: { scope: "agent:drafter", event_id: "m-1" },
      });
      expect(used.used).toMatchObject({ id: "fb:a", uses: 3 });
      // A_S and the scaffold over the research tool.
      await api(
        "POST",
        `${base(a.id)}/ingest`,
        {
          artifacts: [
            {
              id: "rev",
              kind: "section",
              title: "Review",
              content: "Review.",
              boundaries: ["outline"],
              edges: [{ type: "cites", target: "fb:a" }],
            },
          ],
        },
        a.key,
      );
      const refs = await mcpOk(client, "research", { archive: a.id, op: "references", args: { node: "rev" } });
      expect(refs.selected.map((x: Any) => x.id)).toEqual(["fb:a"]);
      const md = await mcpOk(client, "research", {
        archive: a.id,
        op: "scaffold",
        args: { root: "rev", format: "markdown" },
      });
      expect(md.markdown).toContain("# Review scaffold: rev");
      expect(md.markdown).toContain("- `fb:a@v1` Feedback fb:a");
      const outline = await mcpOk(client, "curate", {
        archive: a.id,
        op: "outline",
        args: { node: "rev", method: "names", min_shared: 1, dry_run: true },
      });
      expect(outline.method).toBe("names");
      const loop = await toolError(client, "curate", {
        archive: a.id,
        op: "loop",
        args: { node: "rev", request: "x" },
      });
      expect(loop.message).toMatch(/no model configured/);
    } finally {
      for (const c of open) await c.close();
    }
  });
});

const NODE = "rev/retrieval";
const DRAFT_V1 = "HippoRAG improves recall by 30 points over ColBERTv2.";
const SOURCE = {
  id: "arxiv:2405.14831",
  kind: "paper",
  title: "HippoRAG",
  content: "On multi-hop QA it improves recall@5 by up to 20 points over ColBERTv2.",
  valid_from: "2024-05-23",
};

async function draftArchive() {
  const a = await newArchive("sgmcloop");
  await api(
    "POST",
    `${base(a.id)}/ingest`,
    {
      artifacts: [
        SOURCE,
        {
          id: NODE,
          kind: "section",
          title: "Retrieval",
          content: "Retrieval methods.",
          boundaries: ["outline"],
          edges: [{ type: "cites", target: SOURCE.id }],
        },
        {
          id: "fb:numbers",
          kind: "note",
          title: "Check every number against its cited span",
          content: "Numbers in a draft must match the cited passage exactly.",
          boundaries: ["feedback", "agent:drafter"],
        },
      ],
    },
    a.key,
  );
  const quote = "improves recall@5 by up to 20 points";
  const start = SOURCE.content.indexOf(quote);
  const anchor = { artifact_id: SOURCE.id, version: 1, start, end: start + quote.length, snippet: quote };
  const d = await api("POST", `${base(a.id)}/drafts`, { node: NODE, text: DRAFT_V1, evidence: [anchor] }, a.key);
  expect(d.status, JSON.stringify(d.body)).toBe(200);
  return { a, anchor };
}

describe("the self-loop (Eqs. 11, 13, 14)", () => {
  it("is off without a model: 409 naming the setting", async () => {
    const { a } = await draftArchive();
    const res = await api("POST", `${base(a.id)}/feedback/loop`, { node: NODE, request: "Check numbers." }, a.key);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/no model configured: set DISTILLER or EXTRACTOR and LLM_\*/);
  });

  it("reviews with r* as the checklist, refines, keeps each review as a version, stops when no feedback", async () => {
    const { a, anchor } = await draftArchive();
    const seen = model([
      // R^(0): one problem in Y^(0).
      () => ({
        feedback: [
          {
            title: "Check every number against its cited span",
            text: "The source says up to 20 points at recall@5, not 30.",
            category: "citation",
            quotes: ["recall by 30 points"],
          },
        ],
      }),
      // Y^(1) = A_W(C, R^(0)).
      () => ({ text: "HippoRAG improves recall@5 by up to 20 points over ColBERTv2." }),
      // R^(1): nothing further.
      () => ({ feedback: [] }),
    ]);
    const res = await modelApi("POST", `${base(a.id)}/feedback/loop`, {
      node: NODE,
      request: "Every number must match its cited source.",
      scope: "agent:drafter",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(seen.map((s) => s.schema)).toEqual(["feedback", "revision", "feedback"]);
    // Eq. 13: the review refers to r*.
    expect(seen[0]?.prompt).toContain("Check every number against its cited span");
    expect(seen[0]?.prompt).toContain("fb:numbers");
    expect(seen[1]?.prompt).toContain("The source says up to 20 points");
    expect(res.body.checklist).toMatchObject({ id: "fb:numbers" });
    expect(res.body.stop).toBe("no_feedback");
    expect(res.body.iterations.map((i: Any) => [i.x, i.draft.version, i.review.version, i.feedback.length])).toEqual([
      [0, 1, 1, 1],
      [1, 2, 2, 0],
    ]);
    expect(res.body.iterations[0].refined).toMatchObject({ version: 2, status: "updated" });
    expect(res.body.final).toEqual({ id: `${NODE}#draft`, version: 2 });
    // The refined draft keeps the evidence anchors; each review is a version of <node>#review.
    const draft = await api("GET", `${base(a.id)}/drafts?node=${enc(NODE)}`, undefined, a.key);
    expect(draft.body).toMatchObject({
      version: 2,
      text: "HippoRAG improves recall@5 by up to 20 points over ColBERTv2.",
    });
    expect(draft.body.evidence).toEqual([anchor]);
    const review = await api("GET", `${base(a.id)}/chunks/${enc(`${NODE}#review`)}`, undefined, a.key);
    expect(review.body.versions).toHaveLength(2);
    expect(review.body.versions[0].boundaries).toContain("sgmc:review");
    // The feedback anchors are spans of the version reviewed.
    const verify = await api(
      "POST",
      `${base(a.id)}/verify`,
      { anchors: res.body.iterations[0].feedback[0].anchors },
      a.key,
    );
    expect(verify.body.all_verified).toBe(true);
    // Reviews stay out of general routes.
    const route = await api("POST", `${base(a.id)}/route`, { query: "review of retrieval numbers" }, a.key);
    expect(JSON.stringify(route.body.selected)).not.toContain("#review");
  });

  it("stops at x_max when every review has feedback", async () => {
    const { a } = await draftArchive();
    let n = 0;
    const review = () => ({
      feedback: [
        { title: `Tighten ${n++}`, text: "Shorter.", category: "clarity", quotes: ["HippoRAG improves recall"] },
      ],
    });
    model([
      review,
      () => ({ text: `${DRAFT_V1} Revised once.` }),
      review,
      () => ({ text: `${DRAFT_V1} Revised twice.` }),
    ]);
    const res = await modelApi("POST", `${base(a.id)}/feedback/loop`, {
      node: NODE,
      request: "Be concise.",
      x_max: 2,
      checklist: "none",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.stop).toBe("x_max");
    expect(res.body.checklist).toBeNull();
    expect(res.body.iterations).toHaveLength(2);
    expect(res.body.final.version).toBe(3);
  });

  it("feedback/propose takes r* as its checklist", async () => {
    const { a } = await draftArchive();
    const seen = model([() => ({ feedback: [] })]);
    const res = await modelApi("POST", `${base(a.id)}/feedback/propose`, {
      node: NODE,
      request: "Check numbers.",
      scope: "agent:drafter",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.checklist).toMatchObject({ id: "fb:numbers", version: 1 });
    expect(seen[0]?.prompt).toContain("Numbers in a draft must match the cited passage exactly.");
    const none = model([() => ({ feedback: [] })]);
    const off = await modelApi("POST", `${base(a.id)}/feedback/propose`, {
      node: NODE,
      request: "Check numbers.",
      scope: "agent:drafter",
      checklist: "none",
    });
    expect(off.body.checklist).toBeNull();
    expect(none[0]?.prompt).not.toContain("fb:numbers");
  });
});

async function referencesArchive() {
  const a = await newArchive("sgmcao");
  const p = (id: string, title: string, entity?: string) => ({
    id,
    kind: "paper",
    title,
    content: `${title}. We study EEG emotion recognition.`,
    valid_from: "2024-01-01",
    ...(entity ? { entities: [{ type: "method", id: entity, name: entity.slice(7) }] } : {}),
  });
  const refs = [
    p("p:gnn1", "Graph neural networks for EEG", "method:GNN"),
    p("p:gnn2", "Dynamic graph convolution on EEG channels", "method:GNN"),
    p("p:de1", "Differential entropy features of EEG bands"),
    p("p:de2", "Entropy features for cross-subject EEG"),
    p("p:other", "A lone transformer baseline for EEG"),
  ];
  const ing = await api(
    "POST",
    `${base(a.id)}/ingest`,
    {
      artifacts: [
        ...refs,
        {
          id: "rev",
          kind: "section",
          title: "EEG emotion recognition",
          synopsis: "A survey of EEG emotion recognition.",
          content: "EEG emotion recognition.",
          boundaries: ["outline"],
          edges: refs.map((r) => ({ type: "cites", target: r.id })),
        },
      ],
    },
    a.key,
  );
  expect(ing.status, JSON.stringify(ing.body)).toBe(200);
  return a;
}

describe("A_O outlining (Eq. 2)", () => {
  it("without a model, groups the references by shared names and writes outline nodes the tree shows", async () => {
    const a = await referencesArchive();
    const dry = await api("POST", `${base(a.id)}/outline/propose`, { node: "rev", dry_run: true }, a.key);
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.method).toBe("names");
    expect(dry.body.directions.every((x: Any) => x.written === "dry_run")).toBe(true);
    const res = await api("POST", `${base(a.id)}/outline/propose`, { node: "rev" }, a.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const groups = res.body.directions.map((x: Any) => [x.references.sort(), x.written]);
    expect(groups).toEqual(
      expect.arrayContaining([
        [["p:gnn1", "p:gnn2"], "created"],
        [["p:de1", "p:de2"], "created"],
      ]),
    );
    expect(res.body.unassigned).toEqual(["p:other"]);
    expect(res.body.directions.find((x: Any) => x.references.includes("p:gnn1")).names).toEqual(["method:gnn"]);
    const tree = await api("GET", `${base(a.id)}/tree?root=rev`, undefined, a.key);
    const kids = tree.body.nodes.filter((n: Any) => n.parent === "rev");
    expect(kids.map((n: Any) => n.id).sort()).toEqual(res.body.directions.map((x: Any) => x.id).sort());
    for (const k of kids)
      expect(k.references.map((r: Any) => r.id).sort()).toEqual(
        res.body.directions.find((x: Any) => x.id === k.id).references.sort(),
      );
    // The same proposal again writes nothing new; method model without one is the 409.
    const again = await api("POST", `${base(a.id)}/outline/propose`, { node: "rev" }, a.key);
    expect(again.body.directions.every((x: Any) => x.written === "unchanged")).toBe(true);
    const needs = await api("POST", `${base(a.id)}/outline/propose`, { node: "rev", method: "model" }, a.key);
    expect(needs.status).toBe(409);
    expect(needs.body.error.field).toBe("model");
  });

  it("through the model: each direction cites references among the inputs; others are dropped", async () => {
    const a = await referencesArchive();
    const seen = model([
      () => ({
        directions: [
          { title: "Graph models", synopsis: "Electrode graphs.", references: ["p:gnn1", "p:gnn2", "p:invented"] },
          { title: "Invented", synopsis: "None real.", references: ["p:nowhere"] },
          { title: "Entropy features", synopsis: "DE features.", references: ["p:de1", "p:de2"] },
        ],
      }),
    ]);
    const res = await modelApi("POST", `${base(a.id)}/outline/propose`, { node: "rev" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(seen[0]?.schema).toBe("outline");
    expect(seen[0]?.prompt).toContain("[p:de1] Differential entropy features of EEG bands");
    expect(seen[0]?.prompt).toContain("We study EEG emotion recognition.");
    expect(res.body).toMatchObject({ method: "model", model: "openai:mock-1" });
    expect(res.body.directions.map((x: Any) => [x.id, x.references, x.order])).toEqual([
      ["rev/graph-models", ["p:gnn1", "p:gnn2"], 1],
      ["rev/entropy-features", ["p:de1", "p:de2"], 2],
    ]);
    expect(res.body.dropped.map((x: Any) => x.reason)).toEqual([
      "link: p:invented is not among the references",
      "link: p:nowhere is not among the references",
      "item: cites none of the references given",
    ]);
    expect(res.body.unassigned).toEqual(["p:other"]);
    const node = await api("GET", `${base(a.id)}/chunks/${enc("rev/graph-models")}`, undefined, a.key);
    expect(node.body.versions[0].boundaries).toEqual(expect.arrayContaining(["outline", "order:1"]));
  });
});

describe("review scaffold (§5)", () => {
  it("gives each node's references, draft and anchors as JSON and Markdown; every anchor verifies", async () => {
    const { a, anchor } = await draftArchive();
    const g = await api(
      "POST",
      `${base(a.id)}/hubs/gather`,
      { node: NODE, query: "HippoRAG recall over ColBERTv2" },
      a.key,
    );
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    const res = await api("GET", `${base(a.id)}/scaffold?root=${enc(NODE)}`, undefined, a.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [n] = res.body.nodes;
    expect(n).toMatchObject({
      id: NODE,
      references: [{ id: SOURCE.id, version: 1, title: "HippoRAG" }],
      draft: { id: `${NODE}#draft`, version: 1, text: DRAFT_V1 },
      hub: { id: `${NODE}#hub`, version: 1 },
    });
    expect(n.evidence[0]).toEqual({ ...anchor, title: "HippoRAG", from: "draft" });
    expect(n.evidence.length).toBe(res.body.anchors);
    const anchors = n.evidence.map(({ title: _t, from: _f, ...x }: Any) => x);
    expect((await api("POST", `${base(a.id)}/verify`, { anchors }, a.key)).body.all_verified).toBe(true);
    const md = await api("GET", `${base(a.id)}/scaffold?root=${enc(NODE)}&format=markdown`, undefined, a.key);
    expect(md.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(md.body).toContain("## Retrieval");
    expect(md.body).toContain(`> ${DRAFT_V1}`);
    expect(md.body).toContain(
      `\`${SOURCE.id}@v1 [${anchor.start},${anchor.end})\` (draft) "${anchor.snippet}": HippoRAG`,
    );
    // As of before the draft: no draft, no anchors from it.
    const before = await api("GET", `${base(a.id)}/scaffold?root=${enc(NODE)}&as_of=2000-01-01`, undefined, a.key);
    expect(before.status).toBe(404);
    const bad = await api("GET", `${base(a.id)}/scaffold?root=${enc(NODE)}&format=pdf`, undefined, a.key);
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("format");
  });
});

afterAll(() => mockFetch({}));
