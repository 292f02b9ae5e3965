import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

describe("GET /chunks/{id}/diff", () => {
  it("diffs the latest version against the one before, or any two, with offsets into both", async () => {
    const { id, key } = await newArchive("diff");
    const v = (content: string) =>
      api(
        "POST",
        `/v1/archives/${id}/ingest`,
        { artifacts: [{ id: "design:cache", kind: "design", title: "Cache", content }] },
        key,
      );
    const v1 = "design: cache heads\nevict: LRU\nsize: 64 MB\n";
    const v2 = "design: cache heads\nevict: LFU\nsize: 64 MB\n";
    const v3 = "design: cache heads\nevict: LFU\nsize: 128 MB\nttl: 1 h\n";
    for (const c of [v1, v2, v3]) expect((await v(c)).status).toBe(200);
    const latest = await api("GET", `/v1/archives/${id}/chunks/design%3Acache/diff`, undefined, key);
    expect(latest.status, JSON.stringify(latest.body)).toBe(200);
    expect(latest.body).toMatchObject({
      from: { version: 2 },
      to: { version: 3 },
      inserted_lines: 2,
      deleted_lines: 1,
    });
    const del = latest.body.ops.find((o: { op: string }) => o.op === "delete");
    expect(v2.slice(del.from[0], del.from[1])).toBe("size: 64 MB\n");
    expect(latest.body.unified).toContain("+ttl: 1 h");
    const span = await api(
      "GET",
      `/v1/archives/${id}/chunks/design%3Acache/diff?from=1&to=3&context=0`,
      undefined,
      key,
    );
    expect(span.body.unified).toContain("-evict: LRU");
    expect(span.body.unified).not.toContain(" design: cache heads");
  });

  it("404 names the missing version, 400 a chunk with one version; other archives are refused", async () => {
    const { id, key } = await newArchive("diff");
    await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      { artifacts: [{ id: "n", kind: "note", title: "N", content: "one" }] },
      key,
    );
    const one = await api("GET", `/v1/archives/${id}/chunks/n/diff`, undefined, key);
    expect(one.status).toBe(400);
    expect(one.body.error.field).toBe("from");
    const missing = await api("GET", `/v1/archives/${id}/chunks/n/diff?from=1&to=7`, undefined, key);
    expect(missing.status).toBe(404);
    expect(missing.body.error.field).toBe("to");
    expect((await api("GET", `/v1/archives/${id}/chunks/nope/diff`, undefined, key)).status).toBe(404);
    const other = await newArchive("diff");
    expect((await api("GET", `/v1/archives/${id}/chunks/n/diff`, undefined, other.key)).status).toBe(403);
  });
});
