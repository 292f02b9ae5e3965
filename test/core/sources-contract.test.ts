import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { feedPlan } from "../../src/app/intake/webhooks";
import { RATE_LIMITS, SOURCES, validateSourceSpec } from "../../src/core/sources";
import { commitRequest, treeRequest } from "../../src/core/sources/github";
import { SOURCE_KINDS, type SourceKind, type SourceSpec } from "../../src/core/sources/types";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/sources/${name}`, import.meta.url), "utf8");

/**
 * One sample per source kind: a spec the source accepts, one it refuses (and the field named), the
 * host its requests go to by default, and for HTTP sources a recorded answer and a malformed one.
 * Exhaustive over SourceKind, so a kind added to SOURCE_KINDS without a sample does not compile.
 */
interface Sample {
  good: { location: string; query: string };
  bad: { location: string; query: string; field: "location" | "query" };
  defaultHost: string;
  answer?: { body: string; source: string };
}

const SAMPLES: { readonly [K in SourceKind]: Sample } = {
  arxiv: {
    good: { location: "", query: "cat:cs.CL AND ti:memory" },
    bad: { location: "", query: "ti:(memory", field: "query" },
    defaultHost: "export.arxiv.org",
    answer: { body: fixture("arxiv-feed.xml"), source: "https://export.arxiv.org/api/query" },
  },
  openalex: {
    good: { location: "", query: "search=long-term memory" },
    bad: { location: "", query: "sort=cited_by_count", field: "query" },
    defaultHost: "api.openalex.org",
    answer: { body: fixture("openalex-works.json"), source: "https://api.openalex.org/works" },
  },
  crossref: {
    good: { location: "", query: "query=retrieval augmented generation" },
    bad: { location: "", query: "rows=5", field: "query" },
    defaultHost: "api.crossref.org",
    answer: { body: fixture("crossref-works.json"), source: "https://api.crossref.org/works" },
  },
  github: {
    good: { location: "octocat/hello-world/docs@main", query: "" },
    bad: { location: "octocat/hello-world/../x", query: "", field: "location" },
    defaultHost: "api.github.com",
  },
  url: {
    good: { location: "https://feeds.example.org/paperguru.json", query: "" },
    bad: { location: "", query: "", field: "location" },
    defaultHost: "feeds.example.org",
    answer: {
      body: JSON.stringify({
        artifacts: [{ id: "note:url", kind: "note", title: "From a URL", content: "A note served as feed JSON." }],
      }),
      source: "https://feeds.example.org/paperguru.json",
    },
  },
  semanticscholar: {
    good: { location: "", query: "long-term memory for LLM agents" },
    bad: { location: "", query: "ARXIV:", field: "query" },
    defaultHost: "api.semanticscholar.org",
    answer: {
      body: fixture("semanticscholar-search.json"),
      source: "https://api.semanticscholar.org/graph/v1/paper/search",
    },
  },
  dblp: {
    good: { location: "", query: "retrieval augmented generation year:2024" },
    bad: { location: "", query: "", field: "query" },
    defaultHost: "dblp.org",
    answer: { body: fixture("dblp-search.json"), source: "https://dblp.org/search/publ/api" },
  },
};

const feed = async (json: unknown) => feedPlan(json);

describe("SOURCES contract", () => {
  it("has one entry per source kind and takes its rate limit from it", () => {
    expect(Object.keys(SOURCES).sort()).toEqual([...SOURCE_KINDS].sort());
    for (const kind of SOURCE_KINDS) expect(RATE_LIMITS[kind]).toBe(SOURCES[kind].rateLimit);
  });

  for (const kind of SOURCE_KINDS) {
    const def = SOURCES[kind];
    const sample = SAMPLES[kind];
    const spec = (s: { location: string; query: string }): SourceSpec => ({ kind, ...s });

    describe(kind, () => {
      it("accepts a well-formed spec and refuses a malformed one, naming the field", () => {
        const good = validateSourceSpec(spec(sample.good));
        expect(good.ok).toBe(true);
        const bad = validateSourceSpec(spec(sample.bad));
        expect(bad.ok).toBe(false);
        if (!bad.ok) {
          expect(bad.error.kind).toBe("validation");
          expect(bad.error.field).toBe(sample.bad.field);
          expect(bad.error.hint?.length ?? 0).toBeGreaterThan(0);
        }
        expect(def.rateLimit.minIntervalMs).toBeGreaterThan(0);
        expect(def.rateLimit.note.length).toBeGreaterThan(10);
      });

      it("never requests outside its configured host", () => {
        const { fetch } = def;
        if (fetch.via === "repository") {
          const loc = fetch.parseLocation(sample.good.location);
          expect(loc.ok).toBe(true);
          if (!loc.ok) return;
          for (const req of [commitRequest(loc.value.repo, "main"), treeRequest(loc.value.repo, "main")])
            expect(new URL(req.url).hostname).toBe(sample.defaultHost);
          return;
        }
        const cond = { etag: '"v1"', lastModified: "Wed, 01 Jan 2025 00:00:00 GMT" };
        const byDefault = fetch.request(spec(sample.good), cond, { mailto: "ops@example.org" });
        expect(new URL(byDefault.url).hostname).toBe(sample.defaultHost);
        expect(byDefault.headers["If-None-Match"]).toBe('"v1"');
        expect(byDefault.headers["If-Modified-Since"]).toBe(cond.lastModified);
        const mirror = fetch.request(
          spec({ location: "https://mirror.example.net/api", query: sample.good.query }),
          {},
          {},
        );
        expect(new URL(mirror.url).hostname).toBe("mirror.example.net");
      });

      it("parses a recorded answer into artifacts with ids and kinds, and refuses a malformed one", async () => {
        const { fetch } = def;
        if (fetch.via === "repository") return;
        if (!sample.answer) throw new Error(`no recorded answer for ${kind}`);
        const plan = await fetch.parse(sample.answer.body, { source: sample.answer.source, feed });
        expect(plan.ok).toBe(true);
        if (!plan.ok) return;
        expect(plan.value.artifacts.length).toBeGreaterThan(0);
        for (const a of plan.value.artifacts) {
          expect(a.id.length).toBeGreaterThan(0);
          expect(a.kind.length).toBeGreaterThan(0);
        }
        const broken = await fetch.parse("{ this is not an answer", { source: sample.answer.source, feed });
        expect(broken.ok).toBe(false);
        if (!broken.ok) expect(broken.error.kind).toBe("validation");
      });
    });
  }
});
