/**
 * Code in a prompt (xKG seed 003, Tables 4-7): `max_code_bytes` and `code_chunks` on POST /context,
 * its markdown export, MCP `context` and POST /code-pairs. Every carried span re-verifies with
 * POST /verify, and the code bytes never pass the cap.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { connect, ok, toolError } from "./mcp-client";
import { WORKER } from "./worker";

const open: Client[] = [];
afterAll(async () => {
  for (const c of open) await c.close();
});

const bytes = (s: string) => new TextEncoder().encode(s).length;

/** A long module: forty helpers, the reservoir buffer in the middle (with a 2-byte "ω"), more helpers. */
const helpers = (from: number, n: number) =>
  Array.from(
    { length: n },
    (_, i) => `def scale_${from + i}(values, factor):\n    return [v * factor + ${from + i} for v in values]\n`,
  ).join("\n");
const REPLAY = [
  "import random",
  "",
  helpers(0, 20),
  "def reservoir_add(buffer, item, seen, size):",
  "    # reservoir sampling: every seen item stays in the buffer with equal probability (ω-free)",
  "    if len(buffer) < size:",
  "        buffer.append(item)",
  "    else:",
  "        j = random.randint(0, seen)",
  "        if j < size:",
  "            buffer[j] = item",
  "",
  helpers(20, 20),
].join("\n");
const GUIDE = [
  "import torch",
  "",
  helpers(100, 10),
  "def guided_eps(eps_cond, eps_uncond, w):",
  "    # classifier-free guidance: mix conditional and unconditional predictions",
  "    return (1 + w) * eps_cond - w * eps_uncond",
  "",
].join("\n");

const ARTIFACTS = [
  { id: "repo/replay.py", kind: "code_unit", title: "replay.py", content: REPLAY, valid_from: "2025-01-01" },
  { id: "repo/guide.py", kind: "code_unit", title: "guide.py", content: GUIDE, valid_from: "2025-01-01" },
  {
    id: "note:replay",
    kind: "note",
    title: "Why a reservoir buffer",
    content:
      "The replay buffer uses reservoir sampling so that every example seen so far is kept with equal probability.",
    valid_from: "2025-01-01",
  },
];

type Anchor = { artifact_id: string; version: number; start: number; end: number; snippet: string };
type Card = {
  artifact_id: string;
  kind: string;
  claim_boundary: string;
  logic_sketch: string;
  anchored_spans: Anchor[];
  tokens: number;
  code?: { bytes: number; source: string; truncated?: boolean };
};

async function setup() {
  const { id, key } = await newArchive("codectx");
  const ing = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: ARTIFACTS }, key);
  expect(ing.status, JSON.stringify(ing.body)).toBe(200);
  return { id, key, ask: (body: Record<string, unknown>) => api("POST", `/v1/archives/${id}/context`, body, key) };
}

const BASE = {
  query: "reservoir sampling replay buffer: keep every seen item with equal probability",
  budget_tokens: 6000,
  min_relevance: 0,
  min_card_relevance: 0,
};
/** A query both code units answer. */
const BOTH = { ...BASE, query: "reservoir_add replay buffer and guided_eps classifier-free guidance" };

async function verifyAll(id: string, key: string, anchors: Anchor[]) {
  const v = await api("POST", `/v1/archives/${id}/verify`, { anchors }, key);
  expect(v.status, JSON.stringify(v.body)).toBe(200);
  expect(v.body.all_verified, JSON.stringify(v.body.results.filter((r: { verified: boolean }) => !r.verified))).toBe(
    true,
  );
}

describe("POST /context with code_chunks and max_code_bytes", () => {
  it("code cards carry their best windows as exact spans; other cards are untouched", async () => {
    const { id, key, ask } = await setup();
    const plain = await ask(BASE);
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    expect(plain.body.code_bytes).toBeUndefined();
    const r = await ask({ ...BASE, code_chunks: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const cards: Card[] = r.body.cards;
    const replay = cards.find((c) => c.artifact_id === "repo/replay.py") as Card;
    expect(replay.code).toMatchObject({ source: "windows" });
    expect(replay.claim_boundary).toBe("");
    expect(replay.logic_sketch).toBe("");
    // At most 3 windows of 350 characters, merged where they touch, in text order; the best holds the function.
    expect(replay.anchored_spans.length).toBeGreaterThan(0);
    expect(replay.anchored_spans.reduce((s, a) => s + a.end - a.start, 0)).toBeLessThanOrEqual(3 * 350);
    for (const [i, a] of replay.anchored_spans.entries()) {
      expect(a.snippet).toBe(REPLAY.slice(a.start, a.end));
      if (i) expect(a.start).toBeGreaterThan((replay.anchored_spans[i - 1] as Anchor).end);
    }
    expect(replay.anchored_spans.map((a) => a.snippet).join("")).toContain("def reservoir_add");
    expect(replay.code?.bytes).toBe(replay.anchored_spans.reduce((s, a) => s + bytes(a.snippet), 0));
    // The note keeps its claim; no code field.
    const note = cards.find((c) => c.kind === "note") as Card;
    expect(note.claim_boundary.length).toBeGreaterThan(0);
    expect(note.code).toBeUndefined();
    const codeCards = cards.filter((c) => c.code);
    expect(r.body.code_bytes).toBe(codeCards.reduce((s, c) => s + (c.code?.bytes ?? 0), 0));
    expect(r.body.code_left_out).toBeUndefined();
    await verifyAll(
      id,
      key,
      codeCards.flatMap((c) => c.anchored_spans),
    );

    // Smaller windows, one carried per unit.
    const small = await ask({ ...BASE, code_chunks: { size: 120, overlap: 20, top: 1 } });
    const one = (small.body.cards as Card[]).find((c) => c.artifact_id === "repo/replay.py") as Card;
    expect(one.anchored_spans).toHaveLength(1);
    expect((one.anchored_spans[0] as Anchor).end - (one.anchored_spans[0] as Anchor).start).toBeLessThanOrEqual(120);
    expect((one.anchored_spans[0] as Anchor).snippet).toMatch(/reservoir/);
    // The card JSON still fits the budget.
    const tight = await ask({ ...BASE, budget_tokens: 400, code_chunks: true });
    expect(tight.status).toBe(200);
    expect(tight.body.budget.cards + tight.body.budget.short_term).toBeLessThanOrEqual(400);
  });

  it("holds the code of all cards to max_code_bytes in rank order: whole, cut at a line end, left out", async () => {
    const { id, key, ask } = await setup();
    const whole = await ask({ ...BOTH, code_chunks: true });
    const codeCards = (whole.body.cards as Card[]).filter((c) => c.code);
    expect(codeCards.length).toBe(2);
    const first = codeCards[0]?.code?.bytes as number;
    const cap = first + 60;
    const r = await ask({ ...BOTH, code_chunks: true, max_code_bytes: cap });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const capped = (r.body.cards as Card[]).filter((c) => c.code);
    expect(r.body.code_bytes).toBeLessThanOrEqual(cap);
    expect(r.body.code_bytes).toBe(capped.reduce((s, c) => s + (c.code?.bytes ?? 0), 0));
    expect(capped[0]).toEqual(codeCards[0]);
    // The second gets the 60 bytes left: its first window cut to whole lines (they are < 60 bytes).
    const second = capped[1] as Card;
    expect(second.artifact_id).toBe(codeCards[1]?.artifact_id);
    expect(second.code?.truncated).toBe(true);
    expect(second.code?.bytes).toBeGreaterThan(0);
    expect(second.code?.bytes).toBeLessThanOrEqual(60);
    expect(second.anchored_spans).toHaveLength(1);
    expect(second.anchored_spans[0]?.snippet.endsWith("\n")).toBe(true);
    expect(r.body.code_left_out).toEqual([]);
    await verifyAll(
      id,
      key,
      capped.flatMap((c) => c.anchored_spans),
    );
    // A cap below any first line leaves every code card out, listed; the note stays.
    const tiny = await ask({ ...BOTH, code_chunks: true, max_code_bytes: 3 });
    expect(tiny.body.code_bytes).toBe(0);
    expect([...tiny.body.code_left_out].sort()).toEqual(["repo/guide.py", "repo/replay.py"]);
    expect((tiny.body.cards as Card[]).map((c) => c.kind)).toEqual(["note"]);
    // Without code_chunks the cap holds the distiller's spans, in code form.
    const spans = await ask({ ...BOTH, max_code_bytes: 52_100 });
    const own = (spans.body.cards as Card[]).filter((c) => c.code);
    expect(own.length).toBe(2);
    for (const c of own) {
      expect(c.code?.source).toBe("card");
      expect(c.claim_boundary).toBe("");
    }
    expect(spans.body.code_left_out).toEqual([]);
    await verifyAll(
      id,
      key,
      own.flatMap((c) => c.anchored_spans),
    );
  });

  it("names the field of bad bounds", async () => {
    const { ask } = await setup();
    for (const [body, field] of [
      [{ code_chunks: { size: 49 } }, "code_chunks.size"],
      [{ code_chunks: { size: 20_001 } }, "code_chunks.size"],
      [{ code_chunks: { size: 100, overlap: 100 } }, "code_chunks.overlap"],
      [{ code_chunks: { overlap: -1 } }, "code_chunks.overlap"],
      [{ code_chunks: { size: 100, window: 3 } }, "code_chunks.window"],
      [{ code_chunks: "yes" }, "code_chunks"],
      [{ max_code_bytes: 0 }, "max_code_bytes"],
    ] as const) {
      const r = await ask({ ...BASE, ...body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.field, JSON.stringify(r.body)).toBe(field);
    }
  });

  it("the markdown export renders the code verbatim in fences, with the code bytes and what was left out", async () => {
    const { id, key } = await setup();
    const md = await api(
      "POST",
      `/v1/archives/${id}/export/context`,
      { ...BASE, format: "markdown", code_chunks: { size: 200, overlap: 50, top: 1 }, max_code_bytes: 52_100 },
      key,
    );
    expect(md.status).toBe(200);
    const text = String(md.body);
    expect(text).toMatch(/Code: \d+ bytes of at most 52100\./);
    expect(text).toMatch(/\*\*Code\*\* \(best windows, \d+ bytes\)/);
    const fence = /```\n([\s\S]*?)```/g;
    const blocks = [...text.matchAll(fence)].map((m) => m[1] as string);
    expect(blocks.length).toBeGreaterThan(0);
    // Each block is a verbatim span of a unit (its blank lines kept).
    for (const b of blocks)
      expect(
        REPLAY.includes(b) || GUIDE.includes(b) || REPLAY.includes(b.slice(0, -1)) || GUIDE.includes(b.slice(0, -1)),
      ).toBe(true);
    const json = await api(
      "POST",
      `/v1/archives/${id}/export/context`,
      { ...BOTH, format: "json", code_chunks: true, max_code_bytes: 3 },
      key,
    );
    const parsed = typeof json.body === "string" ? JSON.parse(json.body) : json.body;
    expect(parsed.code_bytes).toBe(0);
    expect(parsed.code_left_out.length).toBe(2);
  });

  it("MCP context takes both options", async () => {
    const { id, key } = await setup();
    const client = await connect(key, open);
    const r = await ok(client, "context", { archive: id, ...BASE, code_chunks: { size: 200 }, max_code_bytes: 400 });
    const code = (r.cards as Array<Card & { anchored_spans: Array<Partial<Anchor>> }>).filter((c) => c.code);
    expect(code.length).toBeGreaterThan(0);
    expect(r.code_bytes).toBeLessThanOrEqual(400);
    expect(r.code_bytes).toBe(code.reduce((s, c) => s + (c.code?.bytes ?? 0), 0));
    for (const c of code)
      for (const a of c.anchored_spans) {
        const src = c.artifact_id === "repo/replay.py" ? REPLAY : GUIDE;
        expect(a.snippet).toBe(src.slice(a.start, a.end));
      }
    expect(Array.isArray(r.code_left_out)).toBe(true);
    // code_chunks is checked as REST's: a bad bound names the field.
    const bad = await toolError(client, "context", { archive: id, ...BASE, code_chunks: { size: 10 } });
    expect(bad.field).toBe("code_chunks.size");
    const worse = await toolError(client, "context", { archive: id, ...BASE, code_chunks: "350" });
    expect(worse.field).toBe("code_chunks");
  });
});

// ------------------------------------------------------------------ /code-pairs

const PAPER = {
  paper_title: "Rethinking Experience Replay",
  paper_abstract: "Tricks for rehearsal-based continual learning.",
  techniques: [
    {
      name: "Reservoir sampling buffer",
      description: "Keep a fixed-size memory of past examples, each seen example kept with equal probability.",
      weight: 1,
      code: {
        implementation: REPLAY,
        test: "",
        documentation: "Reservoir sampling into a replay buffer.",
        package: [],
      },
      components: [],
    },
    {
      name: "Classifier-free guidance",
      description: "Mix conditional and unconditional noise predictions with a guidance weight.",
      weight: 1,
      code: { implementation: GUIDE, test: "", documentation: "Guidance.", package: ["torch"] },
      components: [],
    },
  ],
};

type PairCode = {
  id: string;
  version: number;
  anchor: { start: number; end: number };
  bytes: number;
  truncated?: boolean;
  windows?: Anchor[];
};

describe("POST /code-pairs with code_chunks", () => {
  it("each pair's code is its best windows against the technique, exact and within max_code_bytes", async () => {
    const { id, key } = await newArchive("codepairs");
    const imp = await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/import?format=xkg&name=kg.json`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
      body: JSON.stringify(PAPER),
    });
    expect(imp.status).toBe(200);
    const ask = (body: Record<string, unknown>) =>
      api(
        "POST",
        `/v1/archives/${id}/code-pairs`,
        { query: "replay buffer and guidance", threshold: -1, ...body },
        key,
      );
    const r = await ask({ code_chunks: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const codes = (r.body.pairs as Array<{ technique: { id: string }; code: PairCode | null }>).filter((p) => p.code);
    expect(codes.length).toBe(2);
    const all: Anchor[] = [];
    for (const p of codes) {
      const c = p.code as PairCode;
      const src = p.technique.id.includes("reservoir") ? REPLAY : GUIDE;
      // The anchor still spans the implementation; the windows lie inside it.
      expect(c.anchor.end).toBe(src.length);
      expect(c.windows?.length).toBeGreaterThan(0);
      for (const w of c.windows ?? []) {
        expect(w.end).toBeLessThanOrEqual(c.anchor.end);
        expect(w.snippet).toBe(src.slice(w.start, w.end));
        all.push(w);
      }
      expect(c.bytes).toBe((c.windows ?? []).reduce((s, w) => s + bytes(w.snippet), 0));
    }
    const replay = codes.find((p) => p.technique.id.includes("reservoir"))?.code as PairCode;
    expect(replay.windows?.map((w) => w.snippet).join("")).toContain("def reservoir_add");
    expect(r.body.code_bytes).toBe(codes.reduce((s, p) => s + (p.code as PairCode).bytes, 0));
    await verifyAll(id, key, all);

    const first = ((codes[0] as { code: PairCode }).code as PairCode).bytes;
    const capped = await ask({ code_chunks: { size: 200, overlap: 50 }, max_code_bytes: first });
    expect(capped.status).toBe(200);
    expect(capped.body.code_bytes).toBeLessThanOrEqual(first);
    const kept = (capped.body.pairs as Array<{ code: PairCode | null }>).flatMap((p) => p.code?.windows ?? []);
    await verifyAll(id, key, kept);

    const bad = await ask({ code_chunks: { size: 60, overlap: 70 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("code_chunks.overlap");
  });
});
