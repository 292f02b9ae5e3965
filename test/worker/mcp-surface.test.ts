/**
 * MCP's query arguments (filter, follow, ranking as REST takes them), route's limit, the research
 * ops of the seed systems (DIR, grounding, code pairs, version diff, the op schemas), the xKG export,
 * and the size of every tool's result on a small archive.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { HUB_LAST, READ_OPS, WRITE_OPS } from "../../src/mcp/ops";
import { MCP_RESULT_MAX_BYTES } from "../../src/mcp/server";
import { MCP_ROUTE_DEFAULT_LIMIT } from "../../src/mcp/tools";
import { api, newArchive } from "./helpers";
import { call, connect, type Json, ok, toolError } from "./mcp-client";
import { WORKER } from "./worker";

const open: Client[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

const file = (path: string, content: string, edges: Array<{ type: string; target: string }> = []) => ({
  id: `repo/${path}`,
  kind: "code_unit",
  title: path,
  content,
  edges,
  valid_from: "2024-01-01",
});
const PPR = "def ppr(graph, seeds):\n    return seeds\n\ndef damping():\n    return 0.85\n";
const INDEX = "from .ppr import damping\n\ndef build_index(docs):\n    return damping()\n";
const MAIN =
  "from .ppr import ppr\nfrom .index import build_index\n\ndef run():\n    return ppr(build_index([]), [])\n";

const XKG = {
  paper_title: "Classifier-Free Diffusion Guidance",
  paper_abstract: "Guidance for diffusion models without a classifier.",
  techniques: [
    {
      name: "Classifier-free guidance sampling",
      description:
        "At sampling time, combine the conditional and unconditional noise predictions of one diffusion model with a guidance weight.",
      weight: 1,
      code: {
        implementation: "def guided_eps(eps_cond, eps_uncond, w):\n    return (1 + w) * eps_cond - w * eps_uncond\n",
        test: "",
        documentation: "Mixes conditional and unconditional noise predictions.",
        package: [],
      },
      components: [],
    },
  ],
};

/** 14 notes on lighthouses (more candidates than route's default limit), two papers citing each other. */
const NOTES = Array.from({ length: 14 }, (_, i) => ({
  id: `note:lighthouse-${i}`,
  kind: "note",
  title: `Lighthouse ${i}`,
  content: `Lighthouse ${i} on the northern coast keeps a lantern of ${100 + i} candela; its keeper logs the fog and the ships passing the harbour.`,
  valid_from: "2024-02-01",
}));
const PAPERS = [
  {
    id: "paper:beacons",
    kind: "paper",
    title: "Coastal beacons and lighthouse lanterns",
    content: "A survey of lighthouse lanterns on the northern coast: candela, fog signals and keepers' logs.",
    edges: [{ type: "cites", target: "paper:fog" }],
    valid_from: "2024-03-01",
  },
  {
    id: "paper:fog",
    kind: "paper",
    title: "Fog signals at sea",
    content: "Fog signals complement lighthouse lanterns when the fog hides the light from passing ships.",
    valid_from: "2023-03-01",
  },
];

async function seed(): Promise<{ id: string; key: string }> {
  const { id, key } = await newArchive("mcps");
  const artifacts = [
    ...NOTES,
    ...PAPERS,
    file("ppr.py", PPR),
    file("index.py", INDEX, [{ type: "depends-on", target: "repo/ppr.py" }]),
    file("main.py", MAIN, [
      { type: "depends-on", target: "repo/ppr.py" },
      { type: "depends-on", target: "repo/index.py" },
    ]),
  ];
  const res = await api("POST", `/v1/archives/${id}/ingest`, { artifacts }, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const rev = await api(
    "POST",
    `/v1/archives/${id}/ingest`,
    {
      artifacts: [
        {
          ...NOTES[0],
          content: `${NOTES[0]?.content}\nRebuilt in 2024 with an LED lantern.`,
          valid_from: "2024-06-01",
        },
      ],
    },
    key,
  );
  expect(rev.status).toBe(200);
  const imp = await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/import?format=xkg&name=kg.json`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
    body: JSON.stringify(XKG),
  });
  expect(imp.status).toBe(200);
  return { id, key };
}

describe("MCP context and route take REST's filter, follow and ranking", () => {
  it("filter narrows, follow attaches neighbours, ranking reorders; route honours limit", async () => {
    const { id, key } = await seed();
    const client = await connect(key, open);
    const q = "lighthouse lanterns on the northern coast";

    // route: at most `limit` candidates (default 10), all of them only on request.
    const bare = await ok(client, "route", { archive: id, query: q });
    expect(bare.candidates_total).toBeGreaterThan(MCP_ROUTE_DEFAULT_LIMIT);
    expect(bare.candidates.length).toBe(MCP_ROUTE_DEFAULT_LIMIT);
    expect(bare.selected.length).toBeLessThanOrEqual(MCP_ROUTE_DEFAULT_LIMIT);
    const five = await ok(client, "route", { archive: id, query: q, limit: 5 });
    expect(five.candidates.length).toBe(5);
    expect(five.selected.length).toBeLessThanOrEqual(5);
    expect(five.candidates).toEqual(bare.candidates.slice(0, 5));
    const all = await ok(client, "route", { archive: id, query: q, limit: 5, include_candidates: true });
    expect(all.candidates.length).toBe(bare.candidates_total);

    // filter: only papers; the same filter REST takes, the same answer.
    const papers = await ok(client, "route", { archive: id, query: q, filter: { kinds: ["paper"] } });
    const kinds = new Set(papers.candidates.map((c: Json) => c.kind));
    expect([...kinds]).toEqual(["paper"]);
    const rest = await api(
      "POST",
      `/v1/archives/${id}/route`,
      { query: q, filter: { kinds: ["paper"] }, limit: 10 },
      key,
    );
    expect(papers.candidates.map((c: Json) => c.chunk)).toEqual(
      rest.body.candidates.slice(0, 10).map((c: Json) => c.chunk),
    );
    const cited = await ok(client, "context", {
      archive: id,
      query: q,
      filter: { cited_by: "paper:beacons" },
      budget_tokens: 800,
    });
    expect(cited.cards.map((c: Json) => c.artifact_id)).toEqual(["paper:fog"]);
    const floor = await ok(client, "context", { archive: id, query: q, filter: { min_similarity: 0.99 } });
    expect(floor.cards).toEqual([]);
    const grounded = await ok(client, "route", {
      archive: id,
      query: "classifier-free guidance",
      filter: { grounded: true },
    });
    expect(grounded.candidates.length).toBeGreaterThan(0);
    for (const c of grounded.candidates) expect(c.kind).toBe("technique");

    // follow: each card carries its exact neighbours over the edge types asked for.
    const followed = await ok(client, "context", {
      archive: id,
      query: "coastal beacons survey",
      filter: { kinds: ["paper"] },
      follow: [{ type: "cites", direction: "out" }],
      budget_tokens: 1200,
    });
    const beacons = followed.cards.find((c: Json) => c.artifact_id === "paper:beacons");
    expect(beacons.follow.map((f: Json) => f.chunk)).toEqual(["paper:fog"]);

    // ranking: a Paper Circle mode with MMR; the shorthands mode/mmr are the same ranking.
    const ranked = await ok(client, "route", {
      archive: id,
      query: q,
      ranking: { mode: "discovery", mmr: true, lambda: 0.3 },
      limit: 6,
    });
    expect(ranked.ranking).toMatchObject({ mode: "discovery", lambda: 0.3 });
    expect(ranked.ranking.items.length).toBeLessThanOrEqual(6);
    const short = await ok(client, "route", { archive: id, query: q, mode: "discovery", mmr: true, limit: 6 });
    expect(short.ranking.mode).toBe("discovery");
    const ctxRanked = await ok(client, "context", {
      archive: id,
      query: q,
      ranking: { mode: "stable", view: "hidden_gems" },
      include_trace: true,
    });
    expect(ctxRanked.ranking.view).toBe("hidden_gems");

    // Bad input names the field, as REST does.
    const unknown = await toolError(client, "context", { archive: id, query: q, filter: { venue: "x" } });
    expect(unknown.type).toBe("validation");
    expect(unknown.field).toMatch(/^filter/);
    const both = await toolError(client, "route", { archive: id, query: q, mode: "stable", ranking: { mode: "poe" } });
    expect(both.field).toBe("mode");
    const lambda = await toolError(client, "context", { archive: id, query: q, ranking: { lambda: 0.5 } });
    expect(lambda.field).toBe("ranking.lambda");
  });
});

describe("MCP research ops of the seed systems", () => {
  it("DIR, grounding, code pairs, version diff, xKG export; every op's args schema", async () => {
    const { id, key } = await seed();
    const client = await connect(key, open);
    const research = (op: string, args: Json) => ok(client, "research", { archive: id, op, args });

    const dir = await research("dir", { prefix: "repo/" });
    // As in dir.test.ts: ppr.ppr and index.build_index used by main.py, ppr.damping only by index.py.
    expect(dir).toMatchObject({ dir: 0.6667, total: 3, used: 2, integration: ["repo/main.py"] });
    const grounding = await research("grounding", {});
    expect(grounding).toMatchObject({ kind: "technique", total: 1, grounded: 1, share: 1 });
    const pairs = await research("code_pairs", { query: "classifier-free guidance sampling", limit: 3 });
    expect(pairs.pairs[0].code.id).toBeTruthy();
    const diff = await research("diff", { chunk: "note:lighthouse-0" });
    expect(diff.unified).toContain("+Rebuilt in 2024 with an LED lantern.");
    const badDiff = await call(client, "research", {
      archive: id,
      op: "diff",
      args: { chunk: "note:lighthouse-0", to: 9 },
    });
    expect(badDiff.isError).toBe(true);
    expect(badDiff.json.error.type).toBe("not_found");

    const xkg = await ok(client, "export", {
      archive: id,
      format: "xkg",
      paper: "paper:classifier-free-diffusion-guidance",
    });
    expect(JSON.parse(xkg.text).paper_title).toBe(XKG.paper_title);
    const notXkg = await toolError(client, "export", { archive: id, format: "csv", paper: "paper:x" });
    expect(notXkg.field).toBe("paper");

    // Every op's args as a JSON Schema, from the same zod schema the server checks them with.
    const listing = await research("schema", {});
    const names = listing.ops.map((o: Json) => `${o.tool}.${o.op}`).sort();
    expect(names).toEqual(
      [
        ...Object.keys(READ_OPS).map((o) => `research.${o}`),
        ...Object.keys(WRITE_OPS).map((o) => `curate.${o}`),
      ].sort(),
    );
    for (const o of listing.ops) {
      const one = await research("schema", { op: o.op });
      const hit = one.ops.find((x: Json) => x.tool === o.tool);
      expect(hit.schema.type, `${o.tool}.${o.op}`).toBe("object");
    }
    const dirSchema = (await research("schema", { op: "dir" })).ops[0].schema;
    expect(dirSchema.required).toEqual(["prefix"]);
    expect(Object.keys(dirSchema.properties)).toContain("as_of");
    const draft = (await research("schema", { op: "draft" })).ops.map((o: Json) => o.tool).sort();
    expect(draft).toEqual(["curate", "research"]);
    const unknownOp = await call(client, "research", { archive: id, op: "schema", args: { op: "nope" } });
    expect(unknownOp.json.error.field).toBe("args.op");
    // Paper Circle's modes and weights without a query.
    const modes = await research("modes", {});
    expect(modes.modes.find((m: Json) => m.mode === "stable").weights.similarity).toBeGreaterThan(0);
    expect(modes.defaults.min_similarity).toBeGreaterThan(0);
  });
});

describe("MCP results are bounded", () => {
  it("a hub returns its newest iterations; a result over the cap is a too_large error, not megabytes", async () => {
    const { id, key } = await seed();
    const client = await connect(key, open);
    await ok(client, "remember", {
      archive: id,
      artifacts: [
        {
          id: "rev",
          kind: "section",
          title: "Lighthouse review",
          content: "Lighthouse review: what the sources say.",
          edges: [
            { type: "cites", target: "paper:beacons" },
            { type: "cites", target: "paper:fog" },
          ],
          valid_from: "2024-01-01T00:00:00Z",
        },
      ],
    });
    const gathers = HUB_LAST + 2;
    for (let i = 0; i < gathers; i++)
      await ok(client, "curate", {
        archive: id,
        op: "gather",
        args: {
          node: "rev",
          query: `lighthouse lanterns, pass ${i}`,
          at: `2024-06-${String(i + 1).padStart(2, "0")}T00:00:00Z`,
        },
      });
    const hub = await ok(client, "research", { archive: id, op: "hub", args: { node: "rev" } });
    expect(hub.iterations_total).toBe(gathers);
    expect(hub.iterations.map((x: Json) => x.iteration)).toEqual(
      Array.from({ length: HUB_LAST }, (_, i) => gathers - HUB_LAST + i),
    );
    const two = await ok(client, "research", { archive: id, op: "hub", args: { node: "rev", last: 2 } });
    expect(two.iterations.map((x: Json) => x.query)).toEqual([
      `lighthouse lanterns, pass ${gathers - 2}`,
      `lighthouse lanterns, pass ${gathers - 1}`,
    ]);

    // One 700,000-character line revised: its diff (ops + unified) is ~2.8 MB, within REST's
    // 1,000-line limit; MCP answers too_large naming the cap.
    const line = (c: string) => `${c.repeat(700_000)}\n`;
    const big = { id: "note:big", kind: "note", title: "Big", content: line("a"), valid_from: "2024-01-01" };
    expect((await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [big] }, key)).status).toBe(200);
    const rev = { ...big, content: line("b"), valid_from: "2024-02-01" };
    expect((await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [rev] }, key)).status).toBe(200);
    const tooBig = await toolError(client, "research", { archive: id, op: "diff", args: { chunk: "note:big" } });
    expect(tooBig.type).toBe("too_large");
    expect(tooBig.message).toContain(String(MCP_RESULT_MAX_BYTES));
    expect(tooBig.hint).toBeTruthy();
  });

  it("measures every read tool's largest result on a small archive", async () => {
    const { id, key } = await seed();
    const client = await connect(key, open);
    const q = "lighthouse lanterns on the northern coast";
    const calls: Array<[string, Json]> = [
      ["context", { query: q }],
      ["context", { query: q, budget_tokens: 4000, include_trace: true }],
      ["route", { query: q }],
      ["route", { query: q, include_candidates: true }],
      ["route", { query: q, include_trace: true }],
      ["expand", { chunks: NOTES.slice(0, 8).map((n) => ({ id: n.id })) }],
      ["verify", { anchors: [{ artifact_id: "paper:fog", version: 1, start: 0, end: 40 }] }],
      ["list", { of: "chunks" }],
      ["list", { of: "entities" }],
      ["read", { chunk: "paper:beacons" }],
      ["history", { chunk: "note:lighthouse-0" }],
      ["neighbours", { chunk: "paper:beacons" }],
      ["resolve", { mention: "lighthouse" }],
      ["project", { request: "add a damping option to ppr" }],
      ["project", {}],
      ["export", { format: "markdown" }],
      ["research", { op: "stats", args: {} }],
      ["research", { op: "dir", args: { prefix: "repo/" } }],
      ["research", { op: "grounding", args: {} }],
      ["research", { op: "code_pairs", args: { query: "guidance" } }],
      ["research", { op: "diff", args: { chunk: "note:lighthouse-0" } }],
      ["research", { op: "schema", args: {} }],
      ["research", { op: "schema", args: { op: "assemble" } }],
      ["research", { op: "coverage", args: { paper: "paper:beacons" } }],
      ["research", { op: "runs", args: {} }],
    ];
    const sizes: string[] = [];
    let largest = 0;
    for (const [name, args] of calls) {
      const r = await call(client, name, { archive: id, ...args });
      expect(r.isError, `${name} ${JSON.stringify(args)}: ${JSON.stringify(r.json).slice(0, 300)}`).toBe(false);
      sizes.push(
        `${name}${args.op ? `.${args.op}` : ""}${args.include_trace ? "+trace" : ""}${args.include_candidates ? "+candidates" : ""}: ${r.bytes}`,
      );
      largest = Math.max(largest, r.bytes);
      // The default route answer is small whatever the pool: limit candidates, no trace.
      if (name === "route" && !args.include_trace && !args.include_candidates) expect(r.bytes).toBeLessThan(6000);
    }
    console.log(`mcp result bytes on a ${NOTES.length + PAPERS.length + 5}-chunk archive: ${sizes.join("; ")}`);
    // Each result is bounded by a budget or a limit; on this archive none is near the export cap.
    expect(largest).toBeLessThan(64 * 1024);
  });
});
