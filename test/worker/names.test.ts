/** Names as people type them: case and diacritics fold in the alias dictionary; ambiguity is shown. */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

describe("resolving names", () => {
  it("folds case and diacritics, and returns the candidates of an ambiguous name", async () => {
    const { id, key } = await newArchive("names");
    const r = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      {
        artifacts: [
          {
            id: "bio:erdos",
            kind: "note",
            title: "Collaboration graphs",
            content: "Paul Erdős wrote papers with hundreds of coauthors.",
            entities: [{ type: "person", id: "person:erdos", name: "Paul Erdős", aliases: ["Erdős Pál"] }],
          },
          {
            id: "bio:smiths",
            kind: "note",
            title: "Two authors",
            content: "J. Smith (John) wrote on graphs; J. Smith (Jane) on memory.",
            entities: [
              { type: "person", id: "person:john-smith", name: "John Smith", aliases: ["J. Smith"] },
              { type: "person", id: "person:jane-smith", name: "Jane Smith", aliases: ["J. Smith"] },
            ],
          },
        ],
      },
      key,
    );
    expect(r.status).toBe(200);
    const resolve = async (m: string) =>
      (await api("GET", `/v1/archives/${id}/resolve?mention=${encodeURIComponent(m)}`, undefined, key)).body;
    for (const m of ["Paul Erdős", "Paul Erdos", "paul ERDOS", "Erdos Pal", "PAUL ERDŐS"])
      expect((await resolve(m)).resolved?.entity, m).toBe("person:erdos");
    const amb = await resolve("j smith");
    expect(amb.resolved).toBeNull();
    expect(amb.candidates.map((c: { entity: string }) => c.entity).sort()).toEqual([
      "person:jane-smith",
      "person:john-smith",
    ]);
    // A query naming the person without diacritics reaches the note through the entity.
    const q = await api(
      "POST",
      `/v1/archives/${id}/route`,
      { query: "Who did Paul Erdos write with?", include_trace: true },
      key,
    );
    expect(q.body.trace.mentions.map((x: { entity: string }) => x.entity)).toContain("person:erdos");
    expect(q.body.candidates[0].chunk).toBe("bio:erdos");
  });

  it("after a rename, resolve shows the current name; the old name still resolves to the entity", async () => {
    const { id, key } = await newArchive("rename");
    const ing = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      {
        artifacts: [
          {
            id: "note:hippo",
            kind: "note",
            title: "Memory",
            content: "HippoRAG runs personalized PageRank over a knowledge graph.",
            entities: [{ type: "method", id: "method:hipporag", name: "HippoRAG" }],
          },
        ],
      },
      key,
    );
    expect(ing.status, JSON.stringify(ing.body)).toBe(200);
    const before = await api("GET", `/v1/archives/${id}/resolve?mention=HippoRAG`, undefined, key);
    expect(before.body.resolved).toMatchObject({ entity: "method:hipporag", name: "HippoRAG" });
    const ren = await api(
      "POST",
      `/v1/archives/${id}/entities/rename`,
      { entity: "method:hipporag", new_name: "HippoRAG 2" },
      key,
    );
    expect(ren.status, JSON.stringify(ren.body)).toBeLessThan(300);
    const now = await api("GET", `/v1/archives/${id}/resolve?mention=HippoRAG%202`, undefined, key);
    expect(now.body.resolved).toMatchObject({ entity: "method:hipporag", name: "HippoRAG 2", via: "alias" });
    const old = await api("GET", `/v1/archives/${id}/resolve?mention=HippoRAG`, undefined, key);
    expect(old.body.resolved).toMatchObject({ entity: "method:hipporag", name: "HippoRAG 2" });
    const byId = await api("GET", `/v1/archives/${id}/resolve?mention=method:hipporag`, undefined, key);
    expect(byId.body.resolved.name).toBe("HippoRAG 2");
  });

  it("a paper stored through /ingest is found by its title's leading name, as the README's sequence uses it", async () => {
    const { id, key } = await newArchive("lead");
    const ing = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      {
        artifacts: [
          {
            id: "arxiv:2405.14831",
            kind: "paper",
            title: "HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models",
            content: "We run personalized PageRank over a knowledge graph of passages.",
          },
          {
            id: "paper:survey",
            kind: "paper",
            title: "Survey: memory for agents",
            content: "A survey.",
            entities: [{ type: "paper", id: "paper:gm", name: "GraphMem: graph memory for agents" }],
          },
        ],
      },
      key,
    );
    expect(ing.status, JSON.stringify(ing.body)).toBe(200);
    const r = async (m: string) =>
      (await api("GET", `/v1/archives/${id}/resolve?mention=${encodeURIComponent(m)}`, undefined, key)).body.resolved;
    expect(await r("HippoRAG")).toMatchObject({ entity: "arxiv:2405.14831" });
    // A declared paper entity too; a generic leading word ("Survey") is not a name.
    expect(await r("GraphMem")).toMatchObject({ entity: "paper:gm" });
    expect((await r("Survey"))?.entity ?? "").not.toMatch(/^paper:/);
    // The alias is an entity's: aliasing it further (the README's next step) works.
    const alias = await api(
      "POST",
      `/v1/archives/${id}/entities/alias`,
      { entity: "arxiv:2405.14831", alias: "HippoRAG v1" },
      key,
    );
    expect(alias.status, JSON.stringify(alias.body)).toBeLessThan(300);
  });
});
