/**
 * ProjectGuard's resources and session memory: the chunks that `motivate` a commitment reach the
 * brief and the render (heads only, uncommitted observations left out, cut first under the budget),
 * and the brief reads the session's own recent `user` turns when given a session_id.
 */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

const rec = (id: string, kind: string, title: string, content: string, valid_from: string, extra = {}) => ({
  id,
  kind,
  title,
  content,
  valid_from,
  ...extra,
});

async function project() {
  const { id, key } = await newArchive("pgsess");
  const a = (path: string, body: unknown) => api("POST", `/v1/archives/${id}${path}`, body, key);
  const ingest = await a("/ingest", {
    artifacts: [
      rec(
        "decision:cache-lru",
        "decision",
        "Evict the heads cache by least recent use",
        "The heads cache evicts the least recently used heads when it holds 512 entries.",
        "2024-02-01",
      ),
      rec(
        "decision:tokenizer",
        "decision",
        "Count tokens in cl100k_base",
        "Budgets are counted with the cl100k_base tokenizer, exactly.",
        "2024-02-01",
      ),
      rec(
        "note:miss-profile",
        "note",
        "Profiling: cache misses dominate latency",
        "A profile of 1,000 queries spent 70% of their time reading heads after cache misses.",
        "2024-01-15",
        { edges: [{ type: "motivates", target: "decision:cache-lru" }] },
      ),
      rec(
        "paper:lru-k",
        "paper",
        "The LRU-K page replacement algorithm",
        "LRU-K evicts the page whose K-th most recent reference is oldest.",
        "2024-01-10",
        { edges: [{ type: "motivates", target: "decision:cache-lru" }] },
      ),
      rec(
        "note:ttl-idea",
        "note",
        "Maybe expire entries after an hour",
        "An idea to expire cache entries after an hour, not yet agreed.",
        "2024-01-20",
        { edges: [{ type: "motivates", target: "decision:cache-lru" }] },
      ),
      rec(
        "note:tok-bench",
        "note",
        "Tokenizer benchmark",
        "Counting with cl100k_base took 3 ms per card.",
        "2024-01-20",
        { edges: [{ type: "motivates", target: "decision:tokenizer" }] },
      ),
    ],
  });
  expect(ingest.status, JSON.stringify(ingest.body)).toBe(200);
  const status = (chunk: string, value: string) =>
    a(`/chunks/${encodeURIComponent(chunk)}/annotations`, { key: "status", value, at: "2024-02-02" });
  await status("decision:cache-lru", "committed");
  await status("decision:tokenizer", "committed");
  // An observation still under discussion: it motivates, but is not committed project state.
  await status("note:ttl-idea", "proposed");
  return { id, key, a };
}

describe("ProjectGuard resources", () => {
  it("brief and render carry the committed records' motivating chunks, heads only", async () => {
    const { a } = await project();
    const brief = await a("/brief", {
      request: "Change how the heads cache evicts entries",
      as_of: "2024-06-01",
      budget_tokens: 3000,
    });
    expect(brief.status, JSON.stringify(brief.body)).toBe(200);
    const b = brief.body;
    expect(b.commitments.map((c: { id: string }) => c.id)).toContain("decision:cache-lru");
    const byId = new Map(b.resources.map((r: { id: string }) => [r.id, r]));
    expect([...byId.keys()].sort()).toEqual(
      b.commitments.some((c: { id: string }) => c.id === "decision:tokenizer")
        ? ["note:miss-profile", "note:tok-bench", "paper:lru-k"]
        : ["note:miss-profile", "paper:lru-k"],
    );
    expect(byId.get("paper:lru-k")).toEqual({
      id: "paper:lru-k",
      kind: "paper",
      version: 1,
      title: "The LRU-K page replacement algorithm",
      synopsis: expect.any(String),
      motivates: ["decision:cache-lru"],
    });
    // The proposed observation is not project state.
    expect(JSON.stringify(b)).not.toContain("note:ttl-idea");
    expect(b.session_turns).toBeUndefined();

    // Under a tight budget resources go right after the held-back list, before any commitment.
    const full = b.tokens as number;
    const cut = await a("/brief", {
      request: "Change how the heads cache evicts entries",
      as_of: "2024-06-01",
      budget_tokens: full - 20,
    });
    expect(cut.body.tokens).toBeLessThanOrEqual(full - 20);
    expect(cut.body.omitted.some((x: string) => byId.has(x))).toBe(true);
    expect(cut.body.commitments.length).toBe(b.commitments.length);

    const render = await a("/render", { as_of: "2024-06-01" });
    expect(render.status, JSON.stringify(render.body)).toBe(200);
    const rr = new Map(render.body.resources.map((r: { id: string; motivates: string[] }) => [r.id, r.motivates]));
    expect(Object.fromEntries(rr)).toEqual({
      "note:miss-profile": ["decision:cache-lru"],
      "paper:lru-k": ["decision:cache-lru"],
      "note:tok-bench": ["decision:tokenizer"],
    });
    // Cut first: the smallest cut of the render removes a resource, not a signature or a record.
    const rfull = render.body.tokens as number;
    const rcut = await a("/render", { as_of: "2024-06-01", budget_tokens: rfull - 10 });
    expect(rcut.body.tokens).toBeLessThanOrEqual(rfull - 10);
    expect(rr.has(rcut.body.omitted[0])).toBe(true);
    expect(rcut.body.decisions.length).toBe(2);
    // Before the statuses were set no record is committed, so nothing is motivated.
    expect((await a("/render", { as_of: "2024-02-01T12:00:00Z" })).body.resources).toEqual([]);
  });
});

describe("the brief reads the session's own turns", () => {
  it("joins the session's last user requests at as_of, unless recent_requests are passed", async () => {
    const { id, key, a } = await project();
    const ev = (events: Array<{ role: string; text: string; at: string }>) =>
      api("POST", `/v1/archives/${id}/sessions/s-1/events`, { events }, key);
    expect(
      (
        await ev([
          { role: "user", text: "The heads cache evicts too eagerly.", at: "2024-05-01T10:00:00Z" },
          { role: "assistant", text: "Counting tokens in cl100k_base is exact.", at: "2024-05-01T10:01:00Z" },
          { role: "user", text: "Look at least recent use eviction again.", at: "2024-05-01T10:02:00Z" },
          // After the brief's as_of: never read.
          { role: "user", text: "Now count tokens with the tokenizer.", at: "2024-07-01T10:00:00Z" },
        ])
      ).status,
    ).toBe(200);
    // A follow-up that names nothing: alone it routes to no commitment.
    const request = "Please proceed.";
    const alone = await a("/brief", { request, as_of: "2024-06-01", budget_tokens: 2000 });
    expect(alone.status, JSON.stringify(alone.body)).toBe(200);
    expect(alone.body.commitments).toEqual([]);
    expect(alone.body.session_turns).toBeUndefined();

    const withSession = await a("/brief", { request, session_id: "s-1", as_of: "2024-06-01", budget_tokens: 2000 });
    expect(withSession.status, JSON.stringify(withSession.body)).toBe(200);
    expect(withSession.body.session_turns).toBe(2);
    const ids = withSession.body.commitments.map((c: { id: string }) => c.id);
    expect(ids[0]).toBe("decision:cache-lru");
    // The assistant's turn and the turn after as_of are not read: the tokenizer decision is not briefed.
    expect(ids).not.toContain("decision:tokenizer");

    // The same as passing those turns explicitly.
    const explicit = await a("/brief", {
      request,
      recent_requests: ["The heads cache evicts too eagerly.", "Look at least recent use eviction again."],
      as_of: "2024-06-01",
      budget_tokens: 2000,
    });
    expect(explicit.body.commitments).toEqual(withSession.body.commitments);
    // recent_requests win over the session.
    const override = await a("/brief", {
      request,
      session_id: "s-1",
      recent_requests: ["Count tokens with the cl100k_base tokenizer."],
      as_of: "2024-06-01",
      budget_tokens: 2000,
    });
    expect(override.body.session_turns).toBe(0);
    expect(override.body.commitments.map((c: { id: string }) => c.id)).toEqual(["decision:tokenizer"]);
    // Later, the newest turn is read too.
    const later = await a("/brief", { request, session_id: "s-1", as_of: "2024-08-01", budget_tokens: 2000 });
    expect(later.body.session_turns).toBe(3);
    expect(later.body.commitments.map((c: { id: string }) => c.id)).toContain("decision:tokenizer");
    // The agent stored the request as a turn before asking: it is not counted twice.
    await ev([{ role: "user", text: request, at: "2024-08-02T00:00:00Z" }]);
    const stored = await a("/brief", { request, session_id: "s-1", as_of: "2024-08-03", budget_tokens: 2000 });
    expect(stored.body.session_turns).toBe(3);
    expect(stored.body.commitments).toEqual(later.body.commitments);
    // An unknown session reads nothing.
    const none = await a("/brief", { request, session_id: "s-none", as_of: "2024-06-01", budget_tokens: 2000 });
    expect(none.body.session_turns).toBe(0);
    expect(none.body.commitments).toEqual([]);
    const bad = await a("/brief", { request, session_id: "", budget_tokens: 2000 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("session_id");
  });
});
