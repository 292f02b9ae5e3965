import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

const cache = {
  id: "design:cache",
  kind: "design",
  title: "Cache chunk heads in the Durable Object",
  content:
    "Every archive keeps its chunk heads cached in one Durable Object; eviction is least recently used once the cache exceeds 64 MB.",
};
const reworded = {
  id: "design:cache-v2-draft",
  kind: "design",
  title: "Cache chunk heads in the Durable Object",
  content:
    "Every archive keeps its chunk heads cached in one Durable Object; eviction is least frequently used once the cache exceeds 128 MB.",
};
const other = {
  id: "design:r2",
  kind: "design",
  title: "Store contents in R2",
  content:
    "Version contents are stored in R2 keyed by their SHA-256; the Durable Object never holds contents, only heads.",
};

describe("ingest with near_duplicates: revise", () => {
  it("revises the matching record instead of adding a near-duplicate; adds a different one; a retry is a no-op", async () => {
    const { id, key } = await newArchive("dup");
    const ingest = (body: unknown) => api("POST", `/v1/archives/${id}/ingest`, body, key);
    expect((await ingest({ artifacts: [cache] })).status).toBe(200);
    const res = await ingest({ artifacts: [reworded, other], near_duplicates: "revise" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.results[0]).toMatchObject({
      id: "design:cache",
      status: "updated",
      version: 2,
      requested_id: "design:cache-v2-draft",
    });
    expect(res.body.results[0].overlap).toBeGreaterThanOrEqual(0.4);
    expect(res.body.results[1]).toMatchObject({ id: "design:r2", status: "created", version: 1 });
    expect(res.body.results[1].requested_id).toBeUndefined();
    // The new text is version 2 of the existing record; the draft id was never created.
    const hist = await api("GET", `/v1/archives/${id}/chunks/${encodeURIComponent("design:cache")}`, undefined, key);
    expect(hist.body.versions).toHaveLength(2);
    expect((await api("GET", `/v1/archives/${id}/chunks/design%3Acache-v2-draft`, undefined, key)).status).toBe(404);
    const again = await ingest({ artifacts: [reworded], near_duplicates: "revise" });
    expect(again.body.results[0]).toMatchObject({ id: "design:cache", status: "unchanged", version: 2 });
    // Without the option, ids decide: the draft id is a new record.
    const plain = await ingest({ artifacts: [{ ...reworded, id: "design:plain" }] });
    expect(plain.body.results[0]).toMatchObject({ id: "design:plain", status: "created" });
  });

  it("never matches another kind, another boundary scope or another archive", async () => {
    const { id, key } = await newArchive("dup");
    const ingest = (body: unknown) => api("POST", `/v1/archives/${id}/ingest`, body, key);
    await ingest({ artifacts: [{ ...cache, boundaries: ["project:a"] }] });
    const asDecision = await ingest({ artifacts: [{ ...reworded, kind: "decision" }], near_duplicates: "revise" });
    expect(asDecision.body.results[0]).toMatchObject({ id: "design:cache-v2-draft", status: "created" });
    const otherScope = await ingest({
      artifacts: [{ ...reworded, id: "design:b", boundaries: ["project:b"] }],
      near_duplicates: "revise",
    });
    expect(otherScope.body.results[0]).toMatchObject({ id: "design:b", status: "created" });
    const b = await newArchive("dup");
    const elsewhere = await api(
      "POST",
      `/v1/archives/${b.id}/ingest`,
      { artifacts: [reworded], near_duplicates: "revise" },
      b.key,
    );
    expect(elsewhere.body.results[0]).toMatchObject({ id: "design:cache-v2-draft", status: "created" });
  });

  it("names the field of bad options", async () => {
    const { id, key } = await newArchive("dup");
    const bad = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      { artifacts: [cache], near_duplicates: "revise", near_duplicate_threshold: 1.5 },
      key,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("near_duplicate_threshold");
    const many = Array.from({ length: 51 }, (_, i) => ({ ...cache, id: `d${i}` }));
    const tooMany = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: many, near_duplicates: "revise" }, key);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.field).toBe("artifacts");
    const mode = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [cache], near_duplicates: "merge" }, key);
    expect(mode.status).toBe(400);
    expect(mode.body.error.field).toBe("near_duplicates");
  });
});
