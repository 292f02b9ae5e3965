/**
 * `GET …/resolve` and the router resolve a mention through one resolver (CapitalStore.resolveIdx)
 * and say the same: an alias two entities carry is ambiguous in both (the route seeds each and marks
 * its trace mentions `ambiguous`; /resolve answers null with the same entities as candidates), and
 * a name only one entity carries resolves to it in both.
 */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

const ARTIFACTS = [
  {
    id: "note:hippo-method",
    kind: "note",
    title: "The HippoRAG method",
    content: "HippoRAG runs Personalized PageRank over a graph of extracted triples.",
    entities: [{ type: "method", id: "method:hipporag", name: "HippoRAG" }],
  },
  {
    id: "note:hippo-paper",
    kind: "note",
    title: "The HippoRAG paper",
    content: "The paper introducing HippoRAG evaluates it on multi-hop question answering.",
    entities: [{ type: "paper", id: "paper:hipporag", name: "HippoRAG: long-term memory", aliases: ["HippoRAG"] }],
  },
  {
    id: "note:memgpt",
    kind: "note",
    title: "MemGPT",
    content: "MemGPT pages memory between a main context and an archive.",
    entities: [{ type: "method", id: "method:memgpt", name: "MemGPT" }],
  },
];

describe("/resolve and the router agree", () => {
  it("on an ambiguous alias and on a name one entity carries", async () => {
    const { id, key } = await newArchive("resolve");
    expect((await api("POST", `/v1/archives/${id}/ingest`, { artifacts: ARTIFACTS }, key)).status).toBe(200);
    for (const [text, expected] of [
      ["HippoRAG", ["method:hipporag", "paper:hipporag"]],
      ["MemGPT", ["method:memgpt"]],
    ] as const) {
      const res = await api("GET", `/v1/archives/${id}/resolve?mention=${encodeURIComponent(text)}`, undefined, key);
      expect(res.status).toBe(200);
      const route = await api(
        "POST",
        `/v1/archives/${id}/route`,
        { query: `What does ${text} do?`, include_trace: true },
        key,
      );
      expect(route.status).toBe(200);
      const traced = (route.body.trace.mentions as Array<{ text: string; entity: string; ambiguous?: boolean }>).filter(
        (m) => m.text === text.toLowerCase(),
      );
      expect(traced.map((m) => m.entity).sort()).toEqual([...expected].sort());
      if (expected.length > 1) {
        expect(res.body.resolved).toBeNull();
        expect(res.body.candidates.map((c: { entity: string }) => c.entity).sort()).toEqual([...expected].sort());
        for (const m of traced) expect(m.ambiguous).toBe(true);
      } else {
        expect(res.body.resolved.entity).toBe(expected[0]);
        for (const m of traced) expect(m.ambiguous).toBeUndefined();
      }
    }
  });
});
