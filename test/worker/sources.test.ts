import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { api, newArchive } from "./helpers";
import { calls, history, mockFetch, versionAt } from "./world";

/** A hand-written arXiv API Atom feed (the documented shape) with one entry per [id, vN, updated, abstract]. */
function arxivFeed(entries: Array<{ id: string; v: number; updated: string; summary: string; comment?: string }>) {
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title type="html">ArXiv Query: search_query=cat:cs.CL AND ti:memory</title>
  <id>http://arxiv.org/api/x</id>
  <updated>2024-06-01T00:00:00-04:00</updated>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">${entries.length}</opensearch:totalResults>
${entries
  .map(
    (e) => `  <entry>
    <id>http://arxiv.org/abs/${e.id}v${e.v}</id>
    <updated>${e.updated}</updated>
    <published>2024-05-23T17:47:55Z</published>
    <title>Memory paper ${e.id}</title>
    <summary>${e.summary}</summary>
    <author><name>Ada Example</name></author>
    ${e.comment ? `<arxiv:comment xmlns:arxiv="http://arxiv.org/schemas/atom">${e.comment}</arxiv:comment>` : ""}
    <link href="http://arxiv.org/abs/${e.id}v${e.v}" rel="alternate" type="text/html"/>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
  </entry>`,
  )
  .join("\n")}
</feed>`;
}

async function addSource(archive: string, key: string, body: Record<string, unknown>) {
  const res = await api("POST", `/v1/archives/${archive}/sources`, body, key);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function run(archive: string, key: string, source: string) {
  const res = await api("POST", `/v1/archives/${archive}/sources/${source}/run`, undefined, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe("arXiv source", () => {
  it("creates, skips unchanged and 304 responses, versions vN, deprecates withdrawals, backs off on errors", async () => {
    const { id, key } = await newArchive("src");
    const sid = await addSource(id, key, { kind: "arxiv", query: "cat:cs.CL AND ti:memory", interval_minutes: 60 });
    let body = arxivFeed([
      {
        id: "2405.14831",
        v: 1,
        updated: "2024-05-23T17:47:55Z",
        summary: "We introduce HippoRAG, a retrieval framework.",
      },
      { id: "2301.00001", v: 1, updated: "2023-01-01T12:00:00Z", summary: "A memory network for dialogue." },
    ]);
    let etag = '"v1"';
    let status = 200;
    mockFetch({
      "https://export.arxiv.org/api/query": (req) => {
        if (status !== 200) return new Response("busy", { status, headers: { "retry-after": "3600" } });
        if (req.headers.get("if-none-match") === etag) return new Response(null, { status: 304 });
        return new Response(body, { headers: { etag, "content-type": "application/atom+xml" } });
      },
    });

    const r1 = await run(id, key, sid);
    expect(r1.run.status).toBe("ok");
    expect(r1.run.counts).toMatchObject({ created: 2 });
    expect(calls[0]?.url).toContain("search_query=cat%3Acs.CL");
    expect(r1.source.status.last_change).not.toBeNull();
    const h1 = await history(id, key, "arxiv:2405.14831");
    expect(Date.parse(h1.body.versions[0].valid_from)).toBe(Date.parse("2024-05-23T17:47:55Z"));

    // Same ETag: a conditional request answered 304, nothing ingested.
    const r2 = await run(id, key, sid);
    expect(r2.run.status).toBe("not_modified");
    expect(calls.at(-1)?.headers.get("if-none-match")).toBe('"v1"');

    // New ETag, same bytes: the content hash matches, nothing ingested.
    etag = '"v1b"';
    expect((await run(id, key, sid)).run.status).toBe("unchanged");

    // v2 of one paper and a withdrawal of the other.
    etag = '"v2"';
    body = arxivFeed([
      {
        id: "2405.14831",
        v: 2,
        updated: "2024-05-31T17:02:11Z",
        summary: "We introduce HippoRAG 1.1, with better recall.",
      },
      {
        id: "2301.00001",
        v: 2,
        updated: "2023-03-02T09:00:00Z",
        summary: "This paper has been withdrawn by the author.",
        comment: "This paper has been withdrawn",
      },
    ]);
    const r3 = await run(id, key, sid);
    expect(r3.run.counts).toMatchObject({ updated: 1, deprecated: 1 });
    const h = await history(id, key, "arxiv:2405.14831");
    expect(h.body.versions.map((v: { source: string }) => v.source)).toEqual([
      expect.stringContaining("2405.14831v1"),
      expect.stringContaining("2405.14831v2"),
    ]);
    expect(await versionAt(id, key, "arxiv:2405.14831", "2024-05-25")).toBe(1);
    expect(await versionAt(id, key, "arxiv:2405.14831", "2024-06-05")).toBe(2);
    expect(await versionAt(id, key, "arxiv:2301.00001", "2023-02-01")).toBe(1);
    expect(await versionAt(id, key, "arxiv:2301.00001", "2023-04-01")).toBeNull();

    // The same feed again: nothing new (withdrawal already applied).
    etag = '"v2b"';
    const r4 = await run(id, key, sid);
    expect(r4.run.status).toBe("unchanged");

    // Failure: backoff, Retry-After respected, error visible in status and in the log.
    status = 503;
    const before = Date.now();
    const r5 = await run(id, key, sid);
    expect(r5.run.status).toBe("error");
    expect(r5.source.status.consecutive_failures).toBe(1);
    expect(r5.source.status.last_error).toMatch(/HTTP 503/);
    expect(Date.parse(r5.source.status.next_run)).toBeGreaterThanOrEqual(before + 3600_000);
    const log = await api("GET", `/v1/archives/${id}/ingest-log`, undefined, key);
    expect(log.body.entries.map((e: { status: string }) => e.status)).toEqual([
      "error",
      "unchanged",
      "ok",
      "unchanged",
      "not_modified",
      "ok",
    ]);
  });
});

describe("sources registry and cron", () => {
  it("adds, lists, pauses and deletes; cron runs due sources only", async () => {
    const { id, key } = await newArchive("src");
    const bad = await api("POST", `/v1/archives/${id}/sources`, { kind: "github", location: "not a repo" }, key);
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("location");
    const feed = {
      artifacts: [{ id: "note:url", kind: "note", title: "From a URL", content: "A note served as feed JSON." }],
    };
    const sid = await addSource(id, key, {
      kind: "url",
      location: "https://feeds.example.org/paperguru.json",
      interval_minutes: 30,
    });
    const paused = await addSource(id, key, {
      id: "later",
      kind: "url",
      location: "https://feeds.example.org/other.json",
      paused: true,
    });
    mockFetch({ "https://feeds.example.org/paperguru.json": () => Response.json(feed) });

    const list = await api("GET", `/v1/archives/${id}/sources`, undefined, key);
    expect(list.body.sources.map((s: { id: string }) => s.id).sort()).toEqual([paused, sid].sort());

    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/5 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(calls.map((c) => c.url)).toEqual(["https://feeds.example.org/paperguru.json"]);
    const s = await api("GET", `/v1/archives/${id}/sources/${sid}`, undefined, key);
    expect(s.body.status).toMatchObject({ last_status: "ok", consecutive_failures: 0 });
    expect(Date.parse(s.body.status.next_run)).toBeGreaterThan(Date.now() + 25 * 60_000);
    expect((await history(id, key, "note:url")).status).toBe(200);

    // Not due any more: a second tick fetches nothing.
    const ctx2 = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/5 * * * *" }), env, ctx2);
    await waitOnExecutionContext(ctx2);
    expect(calls).toHaveLength(1);

    const patched = await api("PATCH", `/v1/archives/${id}/sources/${sid}`, { paused: true }, key);
    expect(patched.body.paused).toBe(true);
    expect((await api("DELETE", `/v1/archives/${id}/sources/${paused}`, undefined, key)).status).toBe(200);
    expect((await api("GET", `/v1/archives/${id}/sources/${paused}`, undefined, key)).status).toBe(404);
  });

  it("a url source whose response is malformed records a clear error and stores nothing", async () => {
    const { id, key } = await newArchive("src");
    const sid = await addSource(id, key, { kind: "url", location: "https://feeds.example.org/broken.json" });
    let body = "<html>not json</html>";
    mockFetch({ "https://feeds.example.org/broken.json": () => new Response(body) });
    const r1 = await run(id, key, sid);
    expect(r1.run).toMatchObject({ status: "error", counts: null });
    expect(r1.run.error).toMatch(/not JSON/);
    body = JSON.stringify({ artifacts: [{ id: "note:x", kind: "note", title: "X" }] });
    const r2 = await run(id, key, sid);
    expect(r2.run.error).toMatch(/artifacts\.0\.content/);
    expect(r2.source.status.consecutive_failures).toBe(2);
    expect((await history(id, key, "note:x")).status).toBe(404);
  });

  it("a host that cannot be reached: the cause in the run and the status; backoff only after repeated failures", async () => {
    const { id, key } = await newArchive("src");
    const sid = await addSource(id, key, {
      kind: "url",
      location: "https://down.example.org/feed.json",
      interval_minutes: 60,
    });
    // What workerd throws for a DNS failure, a refused connection or a TLS error alike.
    mockFetch({
      "https://down.example.org/": () => {
        throw new Error("internal error; reference = 0123456789abcdef");
      },
    });
    const t0 = Date.now();
    const r1 = await run(id, key, sid);
    expect(r1.run.status).toBe("error");
    expect(r1.run.error).toMatch(/^could not reach down\.example\.org: the connection failed \(unknown host/);
    expect(r1.run.error).not.toContain("reference =");
    expect(r1.source.status.last_error).toBe(r1.run.error);
    expect(r1.source.status.consecutive_failures).toBe(1);
    // First failure: the normal interval (60 min), not a backoff.
    const next1 = Date.parse(r1.source.status.next_run) - t0;
    expect(next1).toBeGreaterThanOrEqual(59 * 60_000);
    expect(next1).toBeLessThan(62 * 60_000);
    const r2 = await run(id, key, sid);
    expect(r2.source.status.consecutive_failures).toBe(2);
    expect(Date.parse(r2.source.status.next_run) - t0).toBeGreaterThanOrEqual(119 * 60_000);
    // A timeout says so.
    mockFetch({
      "https://down.example.org/": () => {
        throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
      },
    });
    expect((await run(id, key, sid)).run.error).toMatch(/no response within 20 s/);
  });
});
