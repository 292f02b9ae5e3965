/**
 * The pre-turn brief over a scripted project history: committed records only, superseded and
 * deprecated ones never, modules to preserve / revise / reuse, signatures as verifiable anchors, and
 * the budget held.
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

describe("POST /brief", () => {
  it("briefs committed commitments and the modules they bind, within the budget", async () => {
    const { id, key } = await newArchive("brief");
    const a = (path: string, body: unknown) => api("POST", `/v1/archives/${id}${path}`, body, key);
    await a("/ingest", {
      artifacts: [
        rec(
          "design:storage",
          "design",
          "Heads live in a Durable Object cache",
          "Every archive keeps its heads cache in one Durable Object; the cache is rebuilt from the change log.",
          "2024-01-01",
        ),
        rec("design:old-store", "design", "Heads cache in KV", "The heads cache lives in KV.", "2023-06-01"),
        rec(
          "decision:cache-lru",
          "decision",
          "Evict the cache by least recent use",
          "The heads cache evicts the least recently used heads.",
          "2024-02-01",
          {
            edges: [{ type: "part-of", target: "design:storage" }],
          },
        ),
        rec(
          "decision:cache-ttl",
          "decision",
          "Expire the cache after an hour",
          "Cache entries expire after an hour.",
          "2024-02-02",
        ),
        rec(
          "decision:cache-redis",
          "decision",
          "Put the cache in Redis",
          "Move the heads cache to Redis.",
          "2024-02-03",
        ),
        rec(
          "repo/cache.ts",
          "code_unit",
          "cache.ts",
          "export function getHead(id: string): string {\n  return id;\n}\nexport const CACHE_SIZE = 512;\n",
          "2024-03-01",
          {
            edges: [{ type: "implements", target: "decision:cache-lru" }],
          },
        ),
        rec("repo/store.ts", "code_unit", "store.ts", "export class Store {\n  heads = new Map();\n}\n", "2024-03-01", {
          edges: [{ type: "implements", target: "design:storage" }],
        }),
        rec(
          "repo/evict.ts",
          "code_unit",
          "evict.ts",
          "export function evict(n: number) {\n  return n;\n}\n",
          "2024-03-01",
          {
            edges: [{ type: "implements", target: "decision:cache-lru" }],
          },
        ),
        rec(
          "repo/main.ts",
          "code_unit",
          "main.ts",
          "import { getHead } from './cache';\ngetHead('x');\n",
          "2024-03-01",
          {
            edges: [{ type: "depends-on", target: "repo/cache.ts" }],
          },
        ),
      ],
    });
    const status = (chunk: string, value: string, at: string) =>
      a(`/chunks/${encodeURIComponent(chunk)}/annotations`, { key: "status", value, at });
    await status("design:storage", "committed", "2024-01-02");
    await status("design:old-store", "committed", "2023-06-02");
    await status("decision:cache-lru", "committed", "2024-02-02");
    await status("decision:cache-ttl", "proposed", "2024-02-03");
    await status("decision:cache-redis", "rejected", "2024-02-04");
    await a("/deprecate", { id: "design:old-store", by: "design:storage", at: "2024-01-01T12:00:00Z" });
    // The storage design changes after store.ts was written: store.ts must be revised.
    await a("/ingest", {
      artifacts: [
        rec(
          "design:storage",
          "design",
          "Heads live in a Durable Object cache",
          "Every archive keeps its heads cache in one Durable Object, snapshotted to R2 every 1,000 changes.",
          "2024-06-01",
        ),
      ],
    });

    const brief = await a("/brief", {
      request: "Change how the heads cache evicts entries",
      as_of: "2024-07-01",
      budget_tokens: 3000,
    });
    expect(brief.status, JSON.stringify(brief.body)).toBe(200);
    const b = brief.body;
    const committed = b.commitments.map((c: { id: string }) => c.id).sort();
    expect(committed).toEqual(["decision:cache-lru", "design:storage"]);
    expect(b.commitments.find((c: { id: string }) => c.id === "design:storage").version).toBe(2);
    // Superseded and deprecated records never reach the brief; uncommitted ones are held back.
    const text = JSON.stringify(b);
    expect(text).not.toContain("design:old-store");
    expect(text).not.toContain("in KV");
    const held = new Map(b.held_back.map((h: { id: string; status: string }) => [h.id, h.status]));
    expect(held.get("decision:cache-ttl")).toBe("proposed");
    // The rejected Redis decision is about the cache too: it is held back as rejected, never briefed,
    // at the default floor and with min_score 0 (every routed record counts).
    expect(held.get("decision:cache-redis")).toBe("rejected");
    const all = await a("/brief", {
      request: "Change how the heads cache evicts entries",
      as_of: "2024-07-01",
      budget_tokens: 3000,
      min_score: 0,
    });
    const heldAll = new Map(all.body.held_back.map((h: { id: string; status: string }) => [h.id, h.status]));
    expect(heldAll.get("decision:cache-redis")).toBe("rejected");
    expect(all.body.commitments.map((c: { id: string }) => c.id)).not.toContain("decision:cache-redis");
    // A high relevance floor keeps only the records the request is most about.
    const strict = await a("/brief", {
      request: "Change how the heads cache evicts entries",
      as_of: "2024-07-01",
      budget_tokens: 3000,
      min_score: 0.9,
    });
    expect(strict.body.commitments.length + strict.body.held_back.length).toBeLessThan(
      b.commitments.length + b.held_back.length,
    );
    for (const c of strict.body.commitments) expect(c.score).toBeGreaterThanOrEqual(0.9);
    expect(b.preserve.map((m: { id: string }) => m.id)).toEqual(["repo/cache.ts"]);
    expect(b.revise.map((m: { id: string }) => m.id)).toEqual(["repo/store.ts"]);
    expect(b.reuse.map((m: { id: string }) => m.id)).toEqual(["repo/evict.ts"]);
    expect(b.constraints.map((c: { symbol: string }) => c.symbol).sort()).toEqual(["CACHE_SIZE", "getHead"]);
    const verified = await a("/verify", { anchors: b.constraints.map((c: { anchor: unknown }) => c.anchor) });
    expect(verified.body.all_verified).toBe(true);
    expect(b.tokens).toBeLessThanOrEqual(3000);
    expect(b.omitted).toEqual([]);

    // Before the LRU decision was committed, it is held back, and so nothing binds cache.ts.
    const early = await a("/brief", {
      request: "Change how the heads cache evicts entries",
      as_of: "2024-02-01T12:00:00Z",
    });
    expect(early.body.commitments.map((c: { id: string }) => c.id)).toEqual(["design:storage"]);

    // A small budget: the result still fits, and what was cut is listed.
    const small = await a("/brief", {
      request: "Change how the heads cache evicts entries",
      as_of: "2024-07-01",
      budget_tokens: 300,
    });
    expect(small.body.tokens).toBeLessThanOrEqual(300);
    expect(small.body.omitted.length).toBeGreaterThan(0);
    // The held-back list goes first.
    expect(small.body.omitted).toContain("decision:cache-ttl");
    const tiny = await a("/brief", { request: "cache", as_of: "2024-07-01", budget_tokens: 100 });
    expect(tiny.body.tokens).toBeLessThanOrEqual(100);
    expect((await a("/brief", { request: "x", budget_tokens: 10 })).body.error.field).toBe("budget_tokens");
  });

  it("renders the committed state for a fresh session within the budget", async () => {
    const { id, key } = await newArchive("render");
    const a = (path: string, body: unknown) => api("POST", `/v1/archives/${id}${path}`, body, key);
    await a("/ingest", {
      artifacts: [
        rec(
          "design:storage",
          "design",
          "Heads in a Durable Object",
          "Every archive keeps its heads in one Durable Object.",
          "2024-01-01",
        ),
        rec("decision:lru", "decision", "LRU eviction", "Evict the least recently used heads.", "2024-02-01", {
          edges: [{ type: "part-of", target: "design:storage" }],
        }),
        rec("decision:redis", "decision", "Redis", "Move heads to Redis.", "2024-02-02"),
        rec(
          "repo/cache.ts",
          "code_unit",
          "cache.ts",
          "export function getHead(id: string): string {\n  return id;\n}\n",
          "2024-03-01",
          {
            edges: [{ type: "implements", target: "decision:lru" }],
          },
        ),
      ],
    });
    for (const [c, v] of [
      ["design:storage", "committed"],
      ["decision:lru", "committed"],
      ["decision:redis", "rejected"],
    ])
      await a(`/chunks/${encodeURIComponent(c as string)}/annotations`, { key: "status", value: v, at: "2024-02-05" });
    const r = await a("/render", { as_of: "2024-06-01" });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.designs.map((x: { id: string }) => x.id)).toEqual(["design:storage"]);
    expect(r.body.decisions).toEqual([
      {
        id: "decision:lru",
        version: 1,
        title: "LRU eviction",
        content: "Evict the least recently used heads.",
        part_of: ["design:storage"],
      },
    ]);
    expect(r.body.modules[0]).toMatchObject({ id: "repo/cache.ts", implements: ["decision:lru"] });
    expect(r.body.modules[0].signatures[0].symbol).toBe("getHead");
    expect(r.body.omitted).toEqual([]);
    expect(r.body.tokens).toBeLessThanOrEqual(8000);
    expect(JSON.stringify(r.body)).not.toContain("Redis");
    const small = await a("/render", { as_of: "2024-06-01", budget_tokens: 150 });
    expect(small.body.tokens).toBeLessThanOrEqual(150);
    expect(small.body.omitted[0]).toBe("repo/cache.ts#getHead");
    // Before the statuses were set nothing was committed.
    expect((await a("/render", { as_of: "2024-02-03" })).body.designs).toEqual([]);
  });
});

describe("the token budget of /brief and /render", () => {
  // 40 committed decisions about one topic, each with two implementing modules: a brief and a render
  // well over 1,000 tokens, where a token count takes 2 cl100k tokens ("1234" is "123" + "4").
  async function bigState() {
    const { id, key } = await newArchive("budget");
    const a = (path: string, body: unknown) => api("POST", `/v1/archives/${id}${path}`, body, key);
    const artifacts = [];
    for (let i = 0; i < 40; i++) {
      artifacts.push(
        rec(
          `decision:cache-${i}`,
          "decision",
          `Cache rule ${i}`,
          `The heads cache keeps rule ${i}: entries of shard ${i} are evicted after ${i + 2} minutes.`,
          "2024-01-01",
        ),
      );
      for (const m of ["a", "b"])
        artifacts.push(
          rec(
            `repo/cache/shard-${i}-${m}.ts`,
            "code_unit",
            `shard-${i}-${m}.ts`,
            `export function evictShard${i}${m}(n: number): number {\n  return n;\n}\n`,
            "2024-02-01",
            { edges: [{ type: "implements", target: `decision:cache-${i}` }] },
          ),
        );
    }
    expect((await a("/ingest", { artifacts })).status).toBe(200);
    for (let i = 0; i < 40; i++)
      await a(`/chunks/${encodeURIComponent(`decision:cache-${i}`)}/annotations`, {
        key: "status",
        value: "committed",
        at: "2024-01-02",
      });
    return a;
  }

  it("counts the result's own token count: a budget one under the uncut size is held", async () => {
    const a = await bigState();
    const body = { request: "heads cache eviction rule", as_of: "2024-06-01", min_score: 0 };
    const full = await a("/brief", { ...body, budget_tokens: 50_000 });
    expect(full.status, JSON.stringify(full.body)).toBe(200);
    expect(full.body.omitted).toEqual([]);
    expect(full.body.tokens).toBeGreaterThan(1000);
    for (const budget of [full.body.tokens - 1, full.body.tokens - 2]) {
      const cut = await a("/brief", { ...body, budget_tokens: budget });
      expect(cut.body.tokens, `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(cut.body.omitted.length).toBeGreaterThan(0);
    }
    const render = await a("/render", { as_of: "2024-06-01", budget_tokens: 50_000 });
    expect(render.body.omitted).toEqual([]);
    expect(render.body.tokens).toBeGreaterThan(1000);
    for (const budget of [render.body.tokens - 1, render.body.tokens - 2]) {
      const cut = await a("/render", { as_of: "2024-06-01", budget_tokens: budget });
      expect(cut.body.tokens, `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(cut.body.omitted.length).toBeGreaterThan(0);
    }
  });

  it("never answers over the budget: a budget the omitted list alone exceeds is a 400 naming budget_tokens", async () => {
    const a = await bigState();
    // 80 module ids and 40 decision ids cannot be listed in 100 tokens.
    const r = await a("/render", { as_of: "2024-06-01", budget_tokens: 100 });
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(400);
    expect(r.body.error.field).toBe("budget_tokens");
    const b = await a("/brief", {
      request: "heads cache eviction rule",
      as_of: "2024-06-01",
      budget_tokens: 100,
      min_score: 0,
    });
    expect(b.status, JSON.stringify(b.body).slice(0, 300)).toBe(400);
    expect(b.body.error.field).toBe("budget_tokens");
    // At a budget that holds the omitted lists, both answer within it.
    const r2 = await a("/render", { as_of: "2024-06-01", budget_tokens: 2500 });
    expect(r2.status).toBe(200);
    expect(r2.body.tokens).toBeLessThanOrEqual(2500);
    expect(r2.body.omitted.length).toBeGreaterThan(0);
  });
});
