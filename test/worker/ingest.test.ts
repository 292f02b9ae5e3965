import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { R2BlobStore } from "../../src/adapters/r2/blob";
import { PackedBlobStore } from "../../src/core/packs";
import { miniArtifacts, T } from "../fixtures/mini";
import { api, newArchive } from "./helpers";

const ingest = (a: string, key: string, artifacts: unknown[]) =>
  api("POST", `/v1/archives/${a}/ingest`, { artifacts }, key);

describe("ingest", () => {
  it("creates versions, is idempotent, and versions changed content", async () => {
    const { id, key } = await newArchive();
    const first = await ingest(id, key, [...miniArtifacts]);
    expect(first.status).toBe(200);
    expect(first.body.counts).toEqual({ created: 4, updated: 0, unchanged: 0 });

    const again = await ingest(id, key, [...miniArtifacts]);
    expect(again.body.counts).toEqual({ created: 0, updated: 0, unchanged: 4 });

    const revised = {
      ...miniArtifacts[0],
      content: `${miniArtifacts[0].content} A revised version adds results on FEVER.`,
      valid_from: T.y2021,
    };
    const upd = await ingest(id, key, [revised]);
    expect(upd.body.results).toEqual([{ id: "arxiv:2005.11401", status: "updated", version: 2 }]);

    const hist = await api(
      "GET",
      `/v1/archives/${id}/history?chunk=${encodeURIComponent("arxiv:2005.11401")}`,
      undefined,
      key,
    );
    expect(hist.status).toBe(200);
    const versions = hist.body.versions as Array<{ version: number; valid_from: string; valid_to: string | null }>;
    expect(versions.map((v) => v.version)).toEqual([1, 2]);
    // Intervals are contiguous and never overlap: v1 ends exactly where v2 starts.
    expect(Date.parse(versions[0]?.valid_to ?? "")).toBe(Date.parse(T.y2021));
    expect(versions[1]?.valid_to).toBeNull();

    // Contents are stored per version in R2 and both remain readable.
    const rows = await env.DB.prepare(
      "SELECT content_key FROM chunk_versions WHERE archive_id = ? AND chunk_id = ? ORDER BY version",
    )
      .bind(id, "arxiv:2005.11401")
      .all<{ content_key: string }>();
    expect(rows.results).toHaveLength(2);
    const blobs = new PackedBlobStore(new R2BlobStore(env.CONTENT));
    expect(await blobs.get(rows.results[0]?.content_key as string)).toBe(miniArtifacts[0].content);
    expect(await blobs.get(rows.results[1]?.content_key as string)).not.toBe(miniArtifacts[0].content);
  });

  it("a batch is atomic: one conflicting artifact stores nothing", async () => {
    const { id, key } = await newArchive();
    await ingest(id, key, [miniArtifacts[1]]);
    const before = await env.DB.prepare("SELECT COUNT(*) AS n FROM chunk_versions WHERE archive_id = ?")
      .bind(id)
      .first<{ n: number }>();
    const bad = await ingest(id, key, [
      miniArtifacts[2],
      // A new version may not start before the current one: versions never overlap.
      { ...miniArtifacts[1], content: "changed", valid_from: "2019-01-01T00:00:00Z" },
    ]);
    expect(bad.status).toBe(409);
    expect(bad.body.error.field).toBe("artifacts.1.valid_from");
    const after = await env.DB.prepare("SELECT COUNT(*) AS n FROM chunk_versions WHERE archive_id = ?")
      .bind(id)
      .first<{ n: number }>();
    expect(after?.n).toBe(before?.n);
    const log = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM change_log WHERE archive_id = ? AND op LIKE '%arxiv:2405.14831%'",
    )
      .bind(id)
      .first<{ n: number }>();
    expect(log?.n).toBe(0);
  });

  it("rejects bad input with 4xx naming the field, and stores nothing", async () => {
    const { id, key } = await newArchive();
    const noTitle = await ingest(id, key, [{ id: "x:1", kind: "paper", content: "text" }]);
    expect(noTitle.status).toBe(400);
    expect(noTitle.body.error.field).toBe("artifacts.0.title");
    const badKind = await ingest(id, key, [{ id: "x:1", kind: "poem", title: "t", content: "text" }]);
    expect(badKind.status).toBe(400);
    expect(badKind.body.error.field).toBe("artifacts.0.kind");
    const badTime = await ingest(id, key, [
      { id: "x:1", kind: "paper", title: "t", content: "c", valid_from: "last tuesday" },
    ]);
    expect(badTime.status).toBe(400);
    expect(badTime.body.error.field).toBe("artifacts.0.valid_from");
    const dup = await ingest(id, key, [miniArtifacts[1], miniArtifacts[1]]);
    expect(dup.status).toBe(400);
    expect(dup.body.error.field).toBe("artifacts.1.id");
    const notJson = await api("POST", `/v1/archives/${id}/ingest`, "{not json", key);
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.type).toBe("validation");
    const n = await env.DB.prepare("SELECT COUNT(*) AS n FROM chunks WHERE archive_id = ?")
      .bind(id)
      .first<{ n: number }>();
    expect(n?.n).toBe(0);
  });

  it("returns 413 naming the limit for oversized batches and contents", async () => {
    const { id, key } = await newArchive();
    const many = Array.from({ length: 201 }, (_, i) => ({ id: `n:${i}`, kind: "note", title: `n${i}`, content: "x" }));
    const r1 = await ingest(id, key, many);
    expect(r1.status).toBe(413);
    expect(r1.body.error.message).toContain("200");
    const big = await ingest(id, key, [
      { id: "big", kind: "note", title: "big", content: "a".repeat(2 * 1024 * 1024 + 1) },
    ]);
    expect(big.status).toBe(413);
    expect(big.body.error.field).toBe("artifacts.0.content");
  });

  it("deprecates with a successor edge and keeps history", async () => {
    const { id, key } = await newArchive();
    await ingest(id, key, [...miniArtifacts]);
    const dep = await api(
      "POST",
      `/v1/archives/${id}/deprecate`,
      { id: "arxiv:2405.14831#method", by: "arxiv:2405.14831", at: T.y2025, reason: "superseded" },
      key,
    );
    expect(dep.status).toBe(200);
    const again = await api(
      "POST",
      `/v1/archives/${id}/deprecate`,
      { id: "arxiv:2405.14831#method", at: T.y2025 },
      key,
    );
    expect(again.status).toBe(409);
    const missing = await api("POST", `/v1/archives/${id}/deprecate`, { id: "nope" }, key);
    expect(missing.status).toBe(404);
    const hist = await api(
      "GET",
      `/v1/archives/${id}/history?chunk=${encodeURIComponent("arxiv:2405.14831#method")}`,
      undefined,
      key,
    );
    expect(hist.body.deprecated_by).toBe("arxiv:2405.14831");
    expect((hist.body.edges as Array<{ type: string }>).some((e) => e.type === "deprecated-by")).toBe(true);
    // New versions of a deprecated chunk are refused (the successor is a new id).
    const rev = await ingest(id, key, [{ ...miniArtifacts[3], content: "new text" }]);
    expect(rev.status).toBe(409);
  });

  it("drops an edge in a new version by closing it at the new version's start", async () => {
    const { id, key } = await newArchive();
    await ingest(id, key, [...miniArtifacts]);
    const v2 = { ...miniArtifacts[2], edges: [{ type: "cites", target: "arxiv:2005.11401" }], valid_from: T.y2025 };
    await ingest(id, key, [v2]);
    const edges = await env.DB.prepare("SELECT dst, valid_to FROM edges WHERE archive_id = ? AND src = ? ORDER BY dst")
      .bind(id, "arxiv:2405.14831")
      .all<{ dst: string; valid_to: number | null }>();
    expect(edges.results).toEqual([
      { dst: "arxiv:2004.04906", valid_to: Date.parse(T.y2025) },
      { dst: "arxiv:2005.11401", valid_to: null },
    ]);
  });
});
