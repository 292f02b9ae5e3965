import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

type Step = { from: string; to: string; edge_type: string };
type Seed = { chunk: string; reasons: string[] };

describe("plain text is grounded at ingest (title + content only, no entities or edges declared)", () => {
  it("links a passage naming another passage's title, and the router crosses that link", async () => {
    const { id, key } = await newArchive("gr");
    const artifacts = [
      {
        id: "kiss-and-tell",
        kind: "note",
        title: "Kiss and Tell (1945 film)",
        content: "Kiss and Tell is a 1945 American comedy film starring Shirley Temple as Corliss Archer.",
      },
      {
        id: "shirley-temple",
        kind: "note",
        title: "Shirley Temple",
        content:
          "Shirley Temple Black was an American actress, singer and dancer. As an adult she served as United States Ambassador to Ghana and to Czechoslovakia.",
      },
      { id: "other", kind: "note", title: "Meryl Streep", content: "Meryl Streep is an American actress." },
    ];
    const ing = await api("POST", `/v1/archives/${id}/ingest`, { artifacts }, key);
    expect(ing.status).toBe(200);
    const nb = await api("GET", `/v1/archives/${id}/neighbours?chunk=kiss-and-tell`, undefined, key);
    expect(nb.status).toBe(200);
    expect(nb.body.neighbours).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ chunk: "shirley-temple", type: "mentions", direction: "out" }),
      ]),
    );
    // Asked right after the ingest (same second): the derived edge is already usable.
    const r = await api(
      "POST",
      `/v1/archives/${id}/route`,
      {
        query: "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
        include_trace: true,
      },
      key,
    );
    expect(r.status).toBe(200);
    const chunks = (r.body.selected as Array<{ chunk: string }>).map((s) => s.chunk);
    expect(chunks.slice(0, 2)).toEqual(expect.arrayContaining(["kiss-and-tell", "shirley-temple"]));
    const steps = r.body.trace.router_steps as Step[];
    expect(
      steps.some((s) => s.from === "kiss-and-tell" && s.to === "shirley-temple" && s.edge_type === "mentions"),
    ).toBe(true);
    const res = await api("GET", `/v1/archives/${id}/resolve?mention=Corliss%20Archer`, undefined, key);
    expect(res.body.resolved).toEqual({ entity: "concept:corliss-archer", name: "corliss archer", via: "grounded" });
  });

  it("uses a declared edge in the same second it was ingested (edge validity is exact)", async () => {
    const { id, key } = await newArchive("gr");
    const artifacts = [
      { id: "a", kind: "note", title: "Alpha note", content: "The zebra protocol is described in the beta note." },
      {
        id: "b",
        kind: "note",
        title: "Beta note",
        content: "Handshake details live here.",
        edges: [{ type: "cites", target: "a" }],
      },
    ];
    expect((await api("POST", `/v1/archives/${id}/ingest`, { artifacts }, key)).status).toBe(200);
    const r = await api("POST", `/v1/archives/${id}/route`, { query: "zebra protocol", include_trace: true }, key);
    const steps = r.body.trace.router_steps as Step[];
    expect(steps.some((s) => s.from === "a" && s.to === "b" && s.edge_type === "cites")).toBe(true);
    const mass = (r.body.trace.diffusion.mass as Array<{ chunk: string }>).map((m) => m.chunk);
    expect(mass).toContain("b");
  });

  it("finds a conversation turn by a rare word beyond its synopsis (lexical expert over the full content)", async () => {
    const { id, key } = await newArchive("gr");
    const filler = "We talked about the weather and the week. It was a long week for everyone. Then we had lunch. ";
    const artifacts = [
      {
        id: "t1",
        kind: "record",
        title: "Jon, 8 May 2023",
        content: `Jon: ${filler}Anyway, I finally visited the Louvre in Paris last spring.`,
      },
      { id: "t2", kind: "record", title: "Jon, 8 May 2023", content: "Jon: I love my dog and my job." },
      { id: "t3", kind: "record", title: "Gina, 8 May 2023", content: "Gina: Jon, how is your dog doing these days?" },
    ];
    expect((await api("POST", `/v1/archives/${id}/ingest`, { artifacts }, key)).status).toBe(200);
    const r = await api(
      "POST",
      `/v1/archives/${id}/route`,
      { query: "When was Jon at the Louvre?", include_trace: true },
      key,
    );
    expect(r.body.selected[0].chunk).toBe("t1");
    const seeds = r.body.trace.seeds as Seed[];
    expect(seeds.find((s) => s.chunk === "t1")?.reasons).toContain("lexical");
    expect(r.body.candidates[0].experts.lex).toBe(1);
  });
});
