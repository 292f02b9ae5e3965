/** The short-term window's fit (core/query.ts fitWindow): newest first, merged, cut at the first misfit. */
import { describe, expect, it } from "vitest";
import { fitWindow, recentChunkLine, sessionEventTokens } from "../../src/core/query";
import { countTokens, loadTokenizer } from "../../src/core/text/tokenizer";

const ev = (text: string, at: number) => ({ role: "user", text, tokens: 0, at });
const ch = (chunk: string, at: number) => ({
  chunk,
  version: 1,
  kind: "note",
  title: `Title of ${chunk}`,
  synopsis: `What ${chunk} says in one sentence.`,
  at,
});

describe("fitWindow", () => {
  it("merges events and opened chunks newest first and returns each list chronologically", async () => {
    await loadTokenizer("cl100k_base");
    // Read newest first, as the stores answer.
    const events = [ev("third", 30), ev("first", 10)];
    const chunks = [ch("note:b", 40), ch("note:a", 20)];
    const all = fitWindow({ events, chunks }, 10_000, "cl100k_base");
    expect(all.shortTerm.map((e) => e.text)).toEqual(["first", "third"]);
    expect(all.shortTermChunks.map((c) => c.chunk)).toEqual(["note:a", "note:b"]);
    expect(all.dropped).toEqual({ events: 0, chunks: 0 });
    const sizes = [
      sessionEventTokens("user", "first"),
      sessionEventTokens("user", "third"),
      countTokens(recentChunkLine(ch("note:a", 0))),
      countTokens(recentChunkLine(ch("note:b", 0))),
    ];
    expect(all.tokens).toBe(sizes.reduce((s, x) => s + x, 0));
    for (const c of all.shortTermChunks) expect(c.tokens).toBe(countTokens(recentChunkLine(c)));

    // A cap that holds the newest two (note:b at 40, "third" at 30) but not note:a: the window stops
    // there, and the older event is dropped with it though it would fit alone.
    const cap = (sizes[1] ?? 0) + (sizes[3] ?? 0);
    const cut = fitWindow({ events, chunks }, cap, "cl100k_base");
    expect(cut.shortTermChunks.map((c) => c.chunk)).toEqual(["note:b"]);
    expect(cut.shortTerm.map((e) => e.text)).toEqual(["third"]);
    expect(cut.dropped).toEqual({ events: 1, chunks: 1 });
    expect(cut.tokens).toBe(cap);

    // Nothing fits: everything counted as dropped.
    const none = fitWindow({ events, chunks }, 1, "cl100k_base");
    expect(none).toEqual({ shortTerm: [], shortTermChunks: [], dropped: { events: 2, chunks: 2 }, tokens: 0 });
    // An event and a chunk at the same instant: the event first.
    const tie = fitWindow({ events: [ev("same", 5)], chunks: [ch("note:t", 5)] }, sizes[0] ?? 0, "cl100k_base");
    expect(tie.shortTerm.length + tie.shortTermChunks.length).toBeLessThanOrEqual(1);
    expect(tie.dropped.chunks).toBe(1);
  });
});
