/** Sources fetch only public hosts, check every redirect hop, cap bodies while streaming, and never store upstream bodies in errors. */
import { describe, expect, it } from "vitest";
import { calls, mockFetch } from "./fetch-guard";
import { api, newArchive } from "./helpers";

const FEED = JSON.stringify({ artifacts: [{ id: "n1", kind: "note", title: "A note", content: "Some text." }] });

async function urlSource(archive: string, key: string, location: string) {
  const res = await api(
    "POST",
    `/v1/archives/${archive}/sources`,
    { kind: "url", location, interval_minutes: 60 },
    key,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

describe("outbound requests from sources", () => {
  it("refuses private, metadata and internal locations when the source is registered", async () => {
    const { id, key } = await newArchive("ssrf");
    for (const location of [
      "https://169.254.169.254/latest/meta-data/",
      "https://10.1.2.3/feed.json",
      "http://127.0.0.1:8080/feed.json",
      "https://metadata.google.internal/computeMetadata/v1/",
      "https://[fd00:ec2::254]/latest/meta-data/",
      "https://10.0.0.1.nip.io/feed.json",
    ]) {
      const res = await api("POST", `/v1/archives/${id}/sources`, { kind: "url", location }, key);
      expect(res.status, location).toBe(400);
      expect(res.body.error.field).toBe("location");
    }
    const openalex = await api(
      "POST",
      `/v1/archives/${id}/sources`,
      { kind: "openalex", location: "https://192.168.0.10", query: "memory" },
      key,
    );
    expect(openalex.status).toBe(400);
    expect(calls).toHaveLength(0);
  });

  it("checks every redirect hop and never sends a request to a refused one", async () => {
    const { id, key } = await newArchive("redir");
    mockFetch({
      "https://feeds.example.org/a": () =>
        new Response(null, { status: 302, headers: { location: "https://feeds.example.org/b" } }),
      "https://feeds.example.org/b": () =>
        new Response(null, { status: 301, headers: { location: "http://169.254.169.254/latest/meta-data/" } }),
      "http://169.254.169.254": () => new Response("ami-id\ninstance-id"),
      "https://feeds.example.org/ok": () => new Response(null, { status: 302, headers: { location: "/ok2" } }),
      "https://feeds.example.org/ok2": () => new Response(FEED),
    });
    const bad = await urlSource(id, key, "https://feeds.example.org/a");
    const r = await api("POST", `/v1/archives/${id}/sources/${bad}/run`, undefined, key);
    expect(r.body.run.status).toBe("error");
    expect(r.body.run.error).toMatch(/redirect target .*169\.254\.169\.254/);
    expect(calls.map((c) => c.url).some((u) => u.includes("169.254"))).toBe(false);
    const good = await urlSource(id, key, "https://feeds.example.org/ok");
    const ok = await api("POST", `/v1/archives/${id}/sources/${good}/run`, undefined, key);
    expect(ok.body.run.status).toBe("ok");
  });

  it("caps a chunked body while reading it and keeps upstream bodies out of last_error", async () => {
    const { id, key } = await newArchive("cap");
    const chunk = new Uint8Array(1024 * 1024).fill(32);
    mockFetch({
      // 24 MiB, chunked: no Content-Length.
      "https://feeds.example.org/big": () =>
        new Response(
          new ReadableStream({
            start(c) {
              for (let i = 0; i < 24; i++) c.enqueue(chunk);
              c.close();
            },
          }),
        ),
      "https://feeds.example.org/err": () =>
        new Response("internal: db password is hunter2", { status: 500, statusText: "Internal Server Error" }),
    });
    const big = await urlSource(id, key, "https://feeds.example.org/big");
    const r = await api("POST", `/v1/archives/${id}/sources/${big}/run`, undefined, key);
    expect(r.body.run.status).toBe("error");
    expect(r.body.run.error).toMatch(/over 16777216 bytes/);
    const err = await urlSource(id, key, "https://feeds.example.org/err");
    await api("POST", `/v1/archives/${id}/sources/${err}/run`, undefined, key);
    const view = await api("GET", `/v1/archives/${id}/sources/${err}`, undefined, key);
    expect(view.body.status.last_error).toMatch(/HTTP 500/);
    expect(view.body.status.last_error).not.toMatch(/hunter2/);
  });
});
