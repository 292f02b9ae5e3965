/**
 * docs/interfaces.md's worked example for an agent over MCP, run block by block through the SDK's
 * Client as the page shows it (only the archive id is this test's), so the page cannot rot.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import DOC from "../../docs/interfaces.md?raw";
import { newArchive } from "./helpers";
import { type Any, connect, type Json, ok } from "./mcp-client";

const open: Client[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

const HEADING = "### Worked example: an agent over MCP";

/** The ```json blocks of the section under HEADING, in order, each {tool, arguments}. */
function exampleCalls(doc: string): Array<{ tool: string; arguments: Json }> {
  const start = doc.indexOf(HEADING);
  expect(start, `docs/interfaces.md has "${HEADING}"`).toBeGreaterThan(-1);
  const rest = doc.slice(start + HEADING.length);
  const end = rest.search(/\n##+ /);
  const section = end === -1 ? rest : rest.slice(0, end);
  return [...section.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1] as string));
}

describe("docs/interfaces.md: the MCP worked example", () => {
  it("runs every call as written, and each answers what the page says", async () => {
    const calls = exampleCalls(DOC);
    expect(calls.map((c) => c.tool)).toEqual([
      "remember",
      "route",
      "context",
      "verify",
      "neighbours",
      "remember",
      "research",
      "research",
    ]);
    const { id, key } = await newArchive("mcpdoc");
    const client = await connect(key, open);
    const results: Any[] = [];
    for (const c of calls) {
      expect(c.arguments.archive).toBe("demo");
      results.push(await ok(client, c.tool, { ...c.arguments, archive: id }));
    }
    const [stored, routed, ctx, verified, neighbours, revised, diff, schema] = results;
    expect(stored.counts).toEqual({ created: 3, updated: 0, unchanged: 0 });
    // "three candidates at most, papers and sections only"
    expect(routed.candidates.length).toBeLessThanOrEqual(3);
    expect(routed.candidates.length).toBeGreaterThan(0);
    for (const c of routed.candidates) expect(["paper", "section"]).toContain(c.kind);
    // "from the paper's subtree only, each card with the chunks it is part of"
    expect(ctx.cards.length).toBeGreaterThan(0);
    for (const card of ctx.cards) expect(card.artifact_id.startsWith("arxiv:2405.14831")).toBe(true);
    const section = ctx.cards.find((c: Json) => c.artifact_id === "arxiv:2405.14831#retrieval");
    expect(section.follow.map((f: Json) => f.chunk)).toEqual(["arxiv:2405.14831"]);
    expect(ctx.budget.total).toBe(800);
    expect(ctx.budget.remaining).toBeGreaterThanOrEqual(0);
    // "the exact text at a span"
    expect(verified.results[0].text).toBe("Personalized PageRank with damping 0.5");
    // "what cites the paper"
    const cites = neighbours.neighbours.filter((n: Json) => n.type === "cites" && n.direction === "in");
    expect(cites.map((n: Json) => n.chunk)).toEqual(["note:damping"]);
    // "how the section changed once it is revised"
    expect(revised.results[0]).toMatchObject({ id: "arxiv:2405.14831#retrieval", version: 2 });
    expect(diff.unified).toContain("+Synonym edges join nodes whose embeddings are close.");
    // "the arguments of an op"
    expect(schema.ops[0]).toMatchObject({ tool: "research", op: "coverage", rest: "GET /coverage" });
    expect(schema.ops[0].schema.required).toContain("paper");
  });
});
