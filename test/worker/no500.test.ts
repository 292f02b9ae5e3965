/** Inputs that used to answer 500 or were stored altered: each is now a 4xx naming the field. */

import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

describe("bad input is a 4xx naming the field, never a 500", () => {
  it("PATCH a source with nothing to change ({} / only unknown fields / no body)", async () => {
    const { id, key } = await newArchive("p");
    const created = await api(
      "POST",
      `/v1/archives/${id}/sources`,
      { kind: "url", location: "https://example.org/feed.json", interval_minutes: 60 },
      key,
    );
    expect(created.status).toBe(201);
    const src = created.body.id as string;
    for (const body of [{}, { colour: "blue" }, undefined]) {
      const res = await api("PATCH", `/v1/archives/${id}/sources/${src}`, body, key);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/nothing to change|body/);
    }
    const ok = await api("PATCH", `/v1/archives/${id}/sources/${src}`, { paused: true }, key);
    expect(ok.status).toBe(200);
  });

  it("refuses megabyte ids in /verify and /history before they reach storage", async () => {
    const { id, key } = await newArchive("v");
    const big = "x".repeat(2_200_000);
    const verify = await api(
      "POST",
      `/v1/archives/${id}/verify`,
      { anchors: [{ artifact_id: big, version: 1, start: 0, end: 1, snippet: "x" }] },
      key,
    );
    expect(verify.status).toBe(400);
    expect(verify.body.error.field).toBe("anchors.0.artifact_id");
    const history = await api("GET", `/v1/archives/${id}/history?chunk=${"y".repeat(8000)}`, undefined, key);
    expect(history.status).toBe(400);
    expect(history.body.error.field).toBe("chunk");
  });

  it("refuses content with a lone surrogate instead of storing it altered", async () => {
    const { id, key } = await newArchive("s");
    const res = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      { artifacts: [{ id: "n1", kind: "note", title: "t", content: "Start \ud800 middle." }] },
      key,
    );
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe("artifacts.0.content");
    expect((await api("GET", `/v1/archives/${id}/history?chunk=n1`, undefined, key)).status).toBe(404);
    // A paired surrogate (an emoji) is fine and round-trips exactly.
    const ok = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      { artifacts: [{ id: "n2", kind: "note", title: "t", content: "Start \ud83d\ude00 middle." }] },
      key,
    );
    expect(ok.status).toBe(200);
  });

  it("refuses an oversized webhook header before reading the body", async () => {
    const { id } = await newArchive("w");
    const put = await api("PUT", `/v1/archives/${id}/webhooks/feed`, { kind: "generic" });
    expect(put.status).toBe(201);
    const res = await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/webhooks/feed`, {
      method: "POST",
      headers: { "content-type": "application/json", "X-PaperGuru-Signature": `sha256=${"0".repeat(5000)}` },
      body: "{}",
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { field: string } }).error.field).toBe("X-PaperGuru-Signature");
  });
});
