/**
 * Scored cards that can say "nothing found": every candidate, selected chunk and card carries its
 * score and a relevance in [0, 1]; /context, MCP `context`, the CLI's client and export/context give
 * no cards when no chunk reaches the floor, and say so; a card floor drops weak cards.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_MIN_RELEVANCE } from "../../src/core/capital/scoring";
import { api, newArchive } from "./helpers";
import { connect, ok } from "./mcp-client";

const NOTES = [
  {
    id: "note:hipporag",
    title: "HippoRAG",
    content:
      "HippoRAG runs Personalized PageRank over a knowledge graph of extracted triples, so a question's entities spread relevance to passages that mention neighbouring entities.",
  },
  {
    id: "note:memgpt",
    title: "MemGPT",
    content:
      "MemGPT pages memory between a small main context and an external archive, as an operating system pages between RAM and disk, so an agent can work past its context window.",
  },
  {
    id: "arxiv:2005.11401",
    title: "Retrieval-augmented generation",
    content:
      "Retrieval-augmented generation conditions a sequence-to-sequence generator on passages a dense retriever finds in a Wikipedia index.",
  },
].map((n) => ({ ...n, kind: "note" }));

const OFF_TOPIC = ["What is the capital of Mongolia?", "Who won the 1998 FIFA World Cup final?"];

async function archive() {
  const a = await newArchive("abst");
  const r = await api("POST", `/v1/archives/${a.id}/ingest`, { artifacts: NOTES }, a.key);
  expect(r.status).toBe(200);
  return a;
}

const open: Client[] = [];
afterAll(async () => {
  for (const c of open) await c.close();
});

describe("relevance and abstention", () => {
  it("an on-topic question gets scored cards; an off-topic one none, with a note", async () => {
    const { id, key } = await archive();
    const on = await api("POST", `/v1/archives/${id}/context`, { query: "How does HippoRAG use PageRank?" }, key);
    expect(on.status).toBe(200);
    expect(on.body.evidence.found).toBe(true);
    expect(on.body.evidence.floor).toBe(DEFAULT_MIN_RELEVANCE);
    expect(on.body.cards[0].artifact_id).toBe("note:hipporag");
    for (const c of on.body.cards) {
      expect(typeof c.score).toBe("number");
      expect(c.relevance).toBeGreaterThanOrEqual(0);
      expect(c.relevance).toBeLessThanOrEqual(1);
    }
    expect(on.body.cards[0].relevance).toBeGreaterThanOrEqual(DEFAULT_MIN_RELEVANCE);
    expect(on.body.evidence.best_relevance).toBe(on.body.cards[0].relevance);

    for (const query of OFF_TOPIC) {
      const off = await api("POST", `/v1/archives/${id}/context`, { query }, key);
      expect(off.status).toBe(200);
      expect(off.body.cards, query).toEqual([]);
      expect(off.body.evidence.found).toBe(false);
      expect(off.body.evidence.best_relevance).toBeLessThan(DEFAULT_MIN_RELEVANCE);
      expect(off.body.evidence.note).toMatch(/No evidence above the relevance floor/);
      // The floor is the caller's to move: 0 gives the weak matches back.
      const all = await api("POST", `/v1/archives/${id}/context`, { query, min_relevance: 0 }, key);
      expect(all.body.evidence.found).toBe(all.body.cards.length > 0);
    }
  });

  it("/route's candidates and selection carry relevance; an identifier's chunk has 1", async () => {
    const { id, key } = await archive();
    const r = await api("POST", `/v1/archives/${id}/route`, { query: "external archive memory paging" }, key);
    expect(r.status).toBe(200);
    expect(r.body.selected[0].chunk).toBe("note:memgpt");
    for (const x of [...r.body.candidates, ...r.body.selected]) {
      expect(x.relevance).toBeGreaterThanOrEqual(0);
      expect(x.relevance).toBeLessThanOrEqual(1);
    }
    // Relevance does not depend on the other heads (unlike the lexical expert, 1 for the best).
    const m = r.body.candidates.find((c: { chunk: string }) => c.chunk === "note:memgpt");
    expect(m.experts.lex).toBe(1);
    expect(m.relevance).toBeLessThan(1);
    // A question naming an identifier gets that chunk first, relevant by definition.
    const pinned = await api("POST", `/v1/archives/${id}/context`, { query: "What does arXiv:2005.11401 do?" }, key);
    expect(pinned.body.cards[0].artifact_id).toBe("arxiv:2005.11401");
    expect(pinned.body.cards[0].relevance).toBe(1);
  });

  it("a card floor drops weaker cards, and is never above the evidence floor", async () => {
    const { id, key } = await archive();
    const q = { query: "memory of an agent past its context window, and PageRank over a graph", min_relevance: 0 };
    const all = await api("POST", `/v1/archives/${id}/context`, q, key);
    expect(all.body.cards.length).toBeGreaterThan(1);
    const rels = all.body.cards.map((c: { relevance: number }) => c.relevance).sort((a: number, b: number) => b - a);
    const cut = (rels[0] + rels[rels.length - 1]) / 2;
    const some = await api("POST", `/v1/archives/${id}/context`, { ...q, min_card_relevance: cut }, key);
    expect(some.body.evidence.card_floor).toBe(0);
    const floored = await api(
      "POST",
      `/v1/archives/${id}/context`,
      { ...q, min_relevance: cut, min_card_relevance: cut },
      key,
    );
    expect(floored.body.cards.length).toBeLessThan(all.body.cards.length);
    for (const c of floored.body.cards) expect(c.relevance).toBeGreaterThanOrEqual(cut);
    expect(floored.body.evidence.below_floor).toBeGreaterThan(0);
    const bad = await api("POST", `/v1/archives/${id}/context`, { query: "x", min_relevance: 2 }, key);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/min_relevance/);
  });

  it("MCP context and export/context say so too", async () => {
    const { id, key } = await archive();
    const client = await connect(key, open);
    const mcp = await ok(client, "context", { archive: id, query: OFF_TOPIC[0] });
    expect(mcp.cards).toEqual([]);
    expect(mcp.evidence.found).toBe(false);
    const on = await ok(client, "context", { archive: id, query: "HippoRAG PageRank" });
    expect(on.cards[0].relevance).toBeGreaterThan(0);
    const md = await api("POST", `/v1/archives/${id}/export/context`, { query: OFF_TOPIC[1], format: "markdown" }, key);
    expect(md.status).toBe(200);
    expect(String(md.body)).toMatch(/No evidence above the relevance floor/);
    expect(String(md.body)).toMatch(/0 cards/);
  });
});
