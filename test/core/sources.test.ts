import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ArtifactSchema } from "../../src/contract";
import type { ImportPlan } from "../../src/core/formats/types";
import { slug } from "../../src/core/ids";
import { type ArtifactInput, type ExistingState, planIngest, prepareBatch } from "../../src/core/ingest";
import { RATE_LIMITS, validateSourceSpec } from "../../src/core/sources";
import { arxivRequest, parseArxivFeed } from "../../src/core/sources/arxiv";
import { crossrefRequest, jatsToText, parseCrossrefWorks } from "../../src/core/sources/crossref";
import { openalexRequest, parseOpenAlexWorks, reconstructAbstract } from "../../src/core/sources/openalex";
import type { SourceSpec } from "../../src/core/sources/types";
import { emptyState, stateAfter } from "../fixtures/ingest-state";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/sources/${name}`, import.meta.url), "utf8");
const ARXIV_FEED = fixture("arxiv-feed.xml");
const ARXIV_ERROR = fixture("arxiv-error.xml");
const OPENALEX = fixture("openalex-works.json");
const CROSSREF = fixture("crossref-works.json");

function value<T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.message}`);
  return r.value;
}

function failure(r: { ok: boolean; error?: { field?: string; hint?: string; message: string } }) {
  expect(r.ok).toBe(false);
  if (r.ok || !r.error) throw new Error("expected a failure");
  return r.error;
}

const byId = (plan: ImportPlan, id: string) => {
  const a = plan.artifacts.find((x) => x.id === id);
  if (!a) throw new Error(`no artifact ${id} in ${plan.artifacts.map((x) => x.id).join(", ")}`);
  return a;
};

/** Every artifact passes the HTTP schema (title/synopsis/name/alias limits, caps) and prepareBatch. */
function expectIngestable(plan: ImportPlan) {
  for (const a of plan.artifacts) {
    const wire = {
      ...a,
      ...(a.valid_from !== undefined ? { valid_from: new Date(a.valid_from).toISOString() } : {}),
    };
    const parsed = ArtifactSchema.safeParse(wire);
    if (!parsed.success) throw new Error(`${a.id}: ${JSON.stringify(parsed.error.issues)}`);
    expect(a.content.length).toBeGreaterThan(0);
  }
  const prepared = prepareBatch(plan.artifacts);
  if (!prepared.ok) throw new Error(prepared.error.message);
}

async function ingest(batch: ArtifactInput[], state: ExistingState, now: number) {
  return value(await planIngest("a", value(prepareBatch(batch)), state, now, async () => "AAAA"));
}

const spec = (kind: SourceSpec["kind"], query: string, location = ""): SourceSpec => ({ kind, location, query });

describe("source specs and rate limits", () => {
  it("publishes each source's documented minimum spacing", () => {
    expect(RATE_LIMITS.arxiv.minIntervalMs).toBe(3_000);
    expect(RATE_LIMITS.openalex.minIntervalMs).toBe(100);
    expect(RATE_LIMITS.crossref.minIntervalMs).toBeGreaterThanOrEqual(200);
    expect(RATE_LIMITS.github.minIntervalMs).toBe(60_000);
    expect(RATE_LIMITS.url.minIntervalMs).toBe(1_000);
    for (const r of Object.values(RATE_LIMITS)) expect(r.note.length).toBeGreaterThan(10);
  });

  it("accepts the documented query forms", () => {
    for (const s of [
      spec("arxiv", "cat:cs.CL AND ti:memory"),
      spec("arxiv", 'au:"Yu Su" ANDNOT (ti:survey OR abs:benchmark)'),
      spec("arxiv", "id:2405.14831,2312.10997v2"),
      spec("arxiv", "hep-th/9901001"),
      spec("arxiv", "cat:cs.CL", "http://export.arxiv.org/api/query"),
      spec("openalex", "filter=concepts.id:C41008148&search=long-term memory"),
      spec("openalex", "publication_year:2024,type:article"),
      spec("openalex", "W2741809807"),
      spec("openalex", "retrieval augmented generation", "https://api.openalex.org"),
      spec("crossref", "query.bibliographic=hipporag&filter=from-update-date:2024-01-01"),
      spec("crossref", "10.7717/peerj.4375"),
      spec("url", "", "https://example.org/notes.md"),
      spec("github", "", "octocat/hello-world"),
      spec("github", "", "octocat/hello-world/docs/guide@v1.2"),
    ])
      expect(validateSourceSpec(s).ok, JSON.stringify(s)).toBe(true);
    expect(value(validateSourceSpec(spec("arxiv", "  cat:cs.CL  ", " ")))).toEqual(spec("arxiv", "cat:cs.CL", ""));
    // Local hosts only through the deployment's allow-list (local development).
    const local = spec("url", "", "http://localhost:8080/feed.json");
    expect(validateSourceSpec(local).ok).toBe(false);
    expect(validateSourceSpec(local, { allowHosts: ["localhost"] }).ok).toBe(true);
    for (const location of ["https://169.254.169.254/latest/meta-data/", "https://10.0.0.1/x", "https://a.nip.io/x"])
      expect(failure(validateSourceSpec(spec("url", "", location))).field).toBe("location");
    expect(failure(validateSourceSpec(spec("openalex", "memory", "https://192.168.0.5"))).field).toBe("location");
  });

  it("names the bad field with a hint", () => {
    const cases: Array<[SourceSpec, string, RegExp]> = [
      [spec("arxiv", "memory agents"), "query", /no field prefix/],
      [spec("arxiv", "title:memory"), "query", /unknown field prefix `title:`/],
      [spec("arxiv", "(cat:cs.CL AND ti:memory"), "query", /parentheses/],
      [spec("arxiv", 'ti:"long term'), "query", /double quote/],
      [spec("arxiv", "id:not-an-id"), "query", /arXiv id/],
      [spec("arxiv", "cat:cs.CL&max_results=5"), "query", /`&` or `=`/],
      [spec("arxiv", ""), "query", /needs a query/],
      [spec("arxiv", "cat:cs.CL", "ftp://export.arxiv.org/api/query"), "location", /ftp/],
      [spec("openalex", "cat:x", "http://api.openalex.org"), "location", /http:/],
      [spec("openalex", "filter=type:article&per-page=5"), "query", /`per-page`/],
      [spec("openalex", "search="), "query", /empty/],
      [spec("crossref", "rows=5"), "query", /`rows`/],
      [spec("url", "", "http://example.org/x"), "location", /http:/],
      [spec("url", "", "not a url"), "location", /absolute URL/],
      [spec("url", "", "https://user:pw@example.org/"), "location", /credentials/],
      [spec("github", "", "https://github.com/octocat/hello-world"), "location", /owner\/repo/],
      [spec("github", "", "octocat/hello-world/../secrets"), "location", /owner\/repo/],
      [{ kind: "gitlab" as SourceSpec["kind"], location: "", query: "" }, "kind", /unknown source kind/],
    ];
    for (const [s, field, message] of cases) {
      const e = failure(validateSourceSpec(s));
      expect(e.field, JSON.stringify(s)).toBe(field);
      expect(e.message, JSON.stringify(s)).toMatch(message);
      expect(e.hint, JSON.stringify(s)).toBeTruthy();
    }
  });
});

describe("arXiv", () => {
  it("builds search_query and id_list requests with conditional headers", () => {
    const r = arxivRequest(
      spec("arxiv", "cat:cs.CL AND ti:memory"),
      { etag: '"abc"', lastModified: "Wed, 21 Oct 2015 07:28:00 GMT" },
      { maxResults: 25 },
    );
    expect(r.url).toBe(
      "https://export.arxiv.org/api/query?search_query=cat%3Acs.CL+AND+ti%3Amemory&sortBy=lastUpdatedDate&sortOrder=descending&max_results=25",
    );
    expect(r.headers).toEqual({
      Accept: "application/atom+xml",
      "If-None-Match": '"abc"',
      "If-Modified-Since": "Wed, 21 Oct 2015 07:28:00 GMT",
    });
    const ids = arxivRequest(
      spec("arxiv", "id:2405.14831, 2312.10997", "http://export.arxiv.org/api/query"),
      {},
      { maxResults: 99_999 },
    );
    expect(ids.url).toBe(
      "http://export.arxiv.org/api/query?id_list=2405.14831%2C2312.10997&sortBy=lastUpdatedDate&sortOrder=descending&max_results=2000",
    );
    expect(ids.headers).toEqual({ Accept: "application/atom+xml" });
  });

  it("turns entries into versioned paper artifacts and withdrawn e-prints into deprecations", () => {
    const plan = value(parseArxivFeed(ARXIV_FEED, { source: "test" }));
    expect(plan.artifacts.map((a) => a.id)).toEqual(["arxiv:2405.14831"]);
    const a = byId(plan, "arxiv:2405.14831");
    expect(a.kind).toBe("paper");
    expect(a.title).toBe("HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models");
    expect(a.valid_from).toBe(Date.parse("2024-05-31T17:02:11Z"));
    expect(a.source).toBe("http://arxiv.org/abs/2405.14831v2");
    expect(a.boundaries).toEqual(["arxiv-version:v2", "category:cs.cl", "category:cs.ai", "year:2024"]);
    expect(a.content).toContain("Authors: Bernal Jiménez Gutiérrez, Yiheng Shu, Yu Su");
    expect(a.content).toContain("Comment: Code and data are available");
    expect(a.content).toContain("Journal reference: NeurIPS 2024");
    expect(a.content).toContain("hippocampal indexing theory");
    expect(a.synopsis?.startsWith("In order to thrive")).toBe(true);
    const [paper, cat, ...people] = a.entities ?? [];
    expect(paper).toEqual({
      type: "paper",
      id: "arxiv:2405.14831",
      name: a.title,
      // The title is the entity's name (ingest aliases names itself); its leading name ("HippoRAG: ...") is an alias.
      aliases: ["doi:10.5555/hipporag.2024", "HippoRAG"],
    });
    expect(cat).toEqual({ type: "concept", name: "arXiv cs.CL", aliases: ["cs.CL", "arxiv-cat:cs.CL"] });
    expect(people.map((p) => p.id)).toEqual([
      `person:${slug("Bernal Jiménez Gutiérrez")}`,
      "person:yiheng-shu",
      "person:yu-su",
    ]);
    expect(plan.deprecations).toEqual([
      {
        id: "arxiv:2301.00001",
        at: Date.parse("2023-03-02T09:00:00Z"),
        reason: "withdrawn on arXiv (v3): This paper has been withdrawn: the results could not be reproduced",
      },
    ]);
    expect(plan.skipped).toEqual([]);
    expectIngestable(plan);
  });

  it("maps an arXiv DOI to the arXiv id and keeps numeric-looking titles as text", () => {
    const xml = ARXIV_FEED.replace(
      "10.5555/hipporag.2024</arxiv:doi>",
      "10.48550/arXiv.2405.14831</arxiv:doi>",
    ).replace(/HippoRAG: Neurobiologically[^<]*<\/title>/, "1984</title>");
    const a = byId(value(parseArxivFeed(xml)), "arxiv:2405.14831");
    expect(a.title).toBe("1984");
    expect(a.entities?.[0]?.aliases).toEqual(["doi:10.48550/arxiv.2405.14831"]);
  });

  it("a later arXiv version becomes a new chunk version; an unchanged feed is a no-op", async () => {
    const v1 = ARXIV_FEED.replaceAll("2405.14831v2", "2405.14831v1")
      .replace("2024-05-31T17:02:11Z", "2024-05-23T17:47:55Z")
      .replace("outperforms\nstate-of-the-art methods remarkably, by up to 20%", "outperforms baselines");
    const p1 = value(parseArxivFeed(v1));
    expect(byId(p1, "arxiv:2405.14831").boundaries).toContain("arxiv-version:v1");
    const first = await ingest(p1.artifacts, emptyState(), 10_000_000_000_000);
    expect(first.results).toEqual([{ id: "arxiv:2405.14831", status: "created", version: 1 }]);
    const state = stateAfter(emptyState(), first);
    const p2 = value(parseArxivFeed(ARXIV_FEED));
    const second = await ingest(p2.artifacts, state, 10_000_000_000_001);
    expect(second.results).toEqual([{ id: "arxiv:2405.14831", status: "updated", version: 2 }]);
    expect(second.versions[0]?.validFrom).toBe(Date.parse("2024-05-31T17:02:11Z"));
    expect(second.versions[0]?.source).toBe("http://arxiv.org/abs/2405.14831v2");
    const again = await ingest(
      value(parseArxivFeed(ARXIV_FEED)).artifacts,
      stateAfter(state, second),
      10_000_000_000_002,
    );
    expect(again.results.map((r) => r.status)).toEqual(["unchanged"]);
    expect(again.versions).toEqual([]);
  });

  it("reports an arXiv error feed and malformed input as validation failures", () => {
    const err = failure(parseArxivFeed(ARXIV_ERROR));
    expect(err.message).toContain("incorrect id format for 1234.12345v1234");
    expect(err.field).toBe("query");
    expect(err.hint).toBeTruthy();
    for (const bad of ["", "<feed><entry>", "<html><body>rate limited</body></html>", '{"not":"xml"}']) {
      const e = failure(parseArxivFeed(bad));
      expect(e.field).toBe("body");
      expect(e.hint).toBeTruthy();
    }
    const dtd = failure(parseArxivFeed('<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY x "y">]><feed/>'));
    expect(dtd.message).toMatch(/DTD/);
  });

  it("skips an entry whose id is not an arXiv abs URL and accepts an empty feed", () => {
    const xml = ARXIV_FEED.replace("<id>http://arxiv.org/abs/2405.14831v2</id>", "<id>https://example.org/x</id>");
    const plan = value(parseArxivFeed(xml));
    expect(plan.artifacts).toEqual([]);
    expect(plan.skipped).toEqual([{ ref: "https://example.org/x", reason: "entry <id> is not an arXiv abs URL" }]);
    expect(value(parseArxivFeed('<feed xmlns="http://www.w3.org/2005/Atom"><title>empty</title></feed>'))).toEqual({
      artifacts: [],
      deprecations: [],
      skipped: [],
    });
  });
});

describe("OpenAlex", () => {
  it("builds list, filter and single-work requests", () => {
    const cond = { etag: 'W/"1"' };
    expect(
      openalexRequest(spec("openalex", "filter=concepts.id:C41008148&search=long-term memory"), cond, {
        mailto: "ops@example.org",
        perPage: 500,
      }),
    ).toEqual({
      url: "https://api.openalex.org/works?filter=concepts.id%3AC41008148&search=long-term+memory&sort=updated_date%3Adesc&per-page=200&mailto=ops%40example.org",
      headers: { Accept: "application/json", "If-None-Match": 'W/"1"' },
    });
    expect(openalexRequest(spec("openalex", "publication_year:2024,type:article")).url).toBe(
      "https://api.openalex.org/works?filter=publication_year%3A2024%2Ctype%3Aarticle&sort=updated_date%3Adesc&per-page=50",
    );
    expect(openalexRequest(spec("openalex", "memory: a survey")).url).toBe(
      "https://api.openalex.org/works?search=memory%3A+a+survey&sort=updated_date%3Adesc&per-page=50",
    );
    expect(openalexRequest(spec("openalex", "https://openalex.org/w2741809807"), {}, { mailto: "a@b.c" }).url).toBe(
      "https://api.openalex.org/works/W2741809807?mailto=a%40b.c",
    );
    expect(
      openalexRequest(spec("openalex", "https://doi.org/10.7717/PeerJ.4375", "https://api.openalex.org/works/")).url,
    ).toBe("https://api.openalex.org/works/doi:10.7717/peerj.4375");
  });

  it("reconstructs inverted-index abstracts in word order", () => {
    expect(reconstructAbstract({ world: [1], "hello,": [0], again: [3], hello: [2] })).toBe("hello, world hello again");
    expect(reconstructAbstract({ a: [5, -1, 1.5, "x", 1e12] })).toBe("a");
    expect(reconstructAbstract(null)).toBe("");
  });

  it("turns works into paper artifacts with all id forms, authors, topics and cites edges", () => {
    const plan = value(parseOpenAlexWorks(OPENALEX));
    expect(plan.artifacts.map((a) => a.id)).toEqual(["arxiv:2405.14831", "doi:10.7717/peerj.4375"]);
    const h = byId(plan, "arxiv:2405.14831");
    expect(h.valid_from).toBeUndefined();
    expect(h.source).toBe("https://openalex.org/W4398200915");
    expect(h.content).toContain(
      "We introduce HippoRAG, a retrieval framework inspired by a hippocampal indexing. It improves multi-hop question retrieval",
    );
    expect(h.content).toContain("Venue: arXiv (Cornell University)\nYear: 2024\nType: preprint");
    expect(h.boundaries).toEqual(["year:2024", "type:preprint"]);
    expect(h.entities?.[0]).toEqual({
      type: "paper",
      id: "arxiv:2405.14831",
      name: "HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models",
      aliases: ["doi:10.48550/arxiv.2405.14831", "openalex:W4398200915", "HippoRAG"],
    });
    expect(h.entities?.filter((e) => e.type === "concept").map((e) => e.name)).toEqual([
      "Topic Modeling",
      "Computer science",
      "Artificial intelligence",
      "Information retrieval",
      "Forgetting",
    ]);
    expect(h.entities?.find((e) => e.type === "person" && e.name.startsWith("Bernal"))?.aliases).toEqual([
      "0000-0002-1825-0097",
    ]);
    expect(h.entities?.find((e) => e.type === "venue")?.name).toBe("arXiv (Cornell University)");
    // The self-citation (its own OpenAlex id) is dropped; related_works are not edges.
    expect(h.edges).toEqual([
      { type: "cites", target: "openalex:W2741809807" },
      { type: "cites", target: "openalex:W3001234567" },
    ]);
    const oa = byId(plan, "doi:10.7717/peerj.4375");
    expect(oa.entities?.[0]?.aliases).toEqual(["openalex:W2741809807", "pmid:29456894", "mag:2741809807"]);
    expect(oa.synopsis).toBeUndefined();
    expect(plan.deprecations).toEqual([
      { id: "doi:10.5555/retracted.2020", reason: "retracted (OpenAlex is_retracted)" },
    ]);
    expect(plan.skipped).toEqual([{ ref: "results.3", reason: "work has no DOI, OpenAlex id, arXiv id or title" }]);
    expectIngestable(plan);
  });

  it("parses a single work object and reports API errors and malformed bodies", () => {
    const works = (JSON.parse(OPENALEX) as { results: unknown[] }).results;
    const single = value(parseOpenAlexWorks(JSON.stringify(works[1])));
    expect(single.artifacts.map((a) => a.id)).toEqual(["doi:10.7717/peerj.4375"]);
    const api = failure(
      parseOpenAlexWorks(
        JSON.stringify({ error: "Invalid query parameters error.", message: "filter foo is not a valid field" }),
      ),
    );
    expect(api.message).toContain("filter foo is not a valid field");
    expect(api.field).toBe("query");
    for (const bad of ["", "<html>", "[1,2]", '{"meta":{}}', '{"id":"https://openalex.org/A123"}']) {
      const e = failure(parseOpenAlexWorks(bad));
      expect(e.field).toBe("body");
      expect(e.hint).toBeTruthy();
    }
  });

  it("caps entities, edges, names and titles instead of failing", () => {
    const huge = {
      id: "https://openalex.org/W1",
      display_name: `A ${"very ".repeat(400)}long title`,
      authorships: Array.from({ length: 300 }, (_, i) => ({
        author: { display_name: `Author Number ${i} ${"x".repeat(i === 0 ? 400 : 1)}` },
      })),
      referenced_works: Array.from({ length: 700 }, (_, i) => `https://openalex.org/W${1000 + i}`),
    };
    const plan = value(parseOpenAlexWorks(JSON.stringify({ meta: {}, results: [huge] })));
    const a = byId(plan, "openalex:W1");
    expect(a.title.length).toBeLessThanOrEqual(1000);
    expect(a.entities?.length).toBe(200);
    expect(a.edges?.length).toBe(500);
    expect(Math.max(...(a.entities ?? []).map((e) => e.name.length))).toBeLessThanOrEqual(300);
    expectIngestable(plan);
  });
});

describe("Crossref", () => {
  it("builds list and single-DOI requests (polite pool via mailto)", () => {
    expect(
      crossrefRequest(
        spec("crossref", "retrieval augmented generation"),
        { lastModified: "x" },
        { mailto: "ops@example.org", rows: 20 },
      ),
    ).toEqual({
      url: "https://api.crossref.org/works?query=retrieval+augmented+generation&rows=20&sort=updated&order=desc&mailto=ops%40example.org",
      headers: {
        Accept: "application/json",
        "User-Agent": "PaperGuru/1.0 (mailto:ops@example.org)",
        "If-Modified-Since": "x",
      },
    });
    expect(
      crossrefRequest(spec("crossref", "query.bibliographic=hippo rag&filter=from-update-date:2024-01-01")).url,
    ).toBe(
      "https://api.crossref.org/works?query.bibliographic=hippo+rag&filter=from-update-date%3A2024-01-01&rows=50&sort=updated&order=desc",
    );
    expect(
      crossrefRequest(spec("crossref", "from-update-date:2024-01-01,type:journal-article"), {}, { rows: 5000 }).url,
    ).toBe(
      "https://api.crossref.org/works?filter=from-update-date%3A2024-01-01%2Ctype%3Ajournal-article&rows=1000&sort=updated&order=desc",
    );
    expect(crossrefRequest(spec("crossref", "https://doi.org/10.1002/(SICI)1097-4571#x")).url).toBe(
      "https://api.crossref.org/works/10.1002/(sici)1097-4571%23x",
    );
  });

  it("strips JATS markup from abstracts", () => {
    expect(jatsToText("<jats:title>Abstract</jats:title><jats:p>A &lt;b&gt; &amp; c&#x2019;s&#160;d</jats:p>")).toBe(
      "A <b> & c\u2019s d",
    );
  });

  it("turns items into paper artifacts with cites edges, and update notices into deprecations", () => {
    const plan = value(parseCrossrefWorks(CROSSREF));
    expect(plan.artifacts.map((a) => a.id)).toEqual([
      "doi:10.5555/memory.2021.001",
      "arxiv:2405.14831",
      "doi:10.5555/notice.retraction.1",
      "doi:10.5555/notice.erratum.1",
    ]);
    const m = byId(plan, "doi:10.5555/memory.2021.001");
    expect(m.title).toBe("Episodic Memory for Language Agents");
    expect(m.content).toContain("We study episodic memory & retrieval for agents. Results improve recall by 12%.");
    expect(m.content).toContain("Venue: Journal of Agent Memory\nIssued: 2021-06-15\nType: journal-article");
    expect(m.boundaries).toEqual(["year:2021", "type:journal-article"]);
    expect(m.edges).toEqual([
      { type: "cites", target: "doi:10.5555/ref.one" },
      { type: "cites", target: "arxiv:2405.14831" },
      { type: "cites", target: "doi:10.5555/ref.two" },
    ]);
    expect(m.entities?.find((e) => e.name === "Grace Hopper")).toEqual({
      type: "person",
      id: "person:grace-hopper",
      name: "Grace Hopper",
      aliases: ["0000-0002-1825-0097"],
    });
    expect(m.entities?.some((e) => e.name === "The Memory Consortium")).toBe(true);
    expect(m.source).toBe("https://doi.org/10.5555/memory.2021.001");
    expect(m.valid_from).toBeUndefined();

    // The version of record names its arXiv preprint: it lands on the arXiv chunk, the DOI as an alias.
    const h = byId(plan, "arxiv:2405.14831");
    expect(h.entities?.[0]?.aliases).toEqual(["doi:10.5555/hipporag.2024", "HippoRAG"]);

    const erratum = byId(plan, "doi:10.5555/notice.erratum.1");
    expect(erratum.title).toBe("erratum of 10.5555/erratum.target");
    expect(erratum.boundaries).toEqual(["year:2021", "type:journal-article", "crossref-update:erratum"]);

    expect(plan.deprecations).toEqual([
      {
        id: "doi:10.5555/retracted.2019",
        by: "doi:10.5555/notice.retraction.1",
        at: 1646352000000,
        reason: "retraction (Crossref update-to)",
      },
      {
        id: "doi:10.5555/erratum.target",
        by: "doi:10.5555/notice.erratum.1",
        at: Date.UTC(2021, 8, 1),
        reason: "erratum (Crossref update-to)",
      },
    ]);
    expect(plan.skipped).toEqual([
      { ref: "message.items.5", reason: "item has no valid DOI" },
      { ref: "doi:10.5555/retracted.2019", reason: "deprecated by the same response; recorded as a deprecation only" },
    ]);
    expectIngestable(plan);
    // The notice is grounded to the work it updates.
    const prepared = value(prepareBatch(plan.artifacts));
    expect(prepared.items[3]?.entityIds).toContain("doi:10.5555/erratum.target");
  });

  it("honours updated-by on an original record", () => {
    const items = (JSON.parse(CROSSREF) as { message: { items: unknown[] } }).message.items;
    const plan = value(parseCrossrefWorks(JSON.stringify({ status: "ok", "message-type": "work", message: items[4] })));
    expect(plan.artifacts).toEqual([]);
    expect(plan.deprecations).toEqual([
      {
        id: "doi:10.5555/retracted.2019",
        by: "doi:10.5555/notice.retraction.1",
        at: 1646352000000,
        reason: "retraction (Crossref updated-by)",
      },
    ]);
  });

  it("reports Crossref errors and malformed bodies", () => {
    const api = failure(
      parseCrossrefWorks(
        JSON.stringify({
          status: "failed",
          "message-type": "validation-failure",
          message: [
            {
              type: "filter-not-available",
              value: "bogus",
              message: "Filter bogus specified but there is no such filter for this route.",
            },
          ],
        }),
      ),
    );
    expect(api.message).toContain("Filter bogus specified");
    expect(api.field).toBe("query");
    for (const bad of [
      "",
      "Resource not found.",
      "null",
      '{"status":"ok","message-type":"member-list","message":{}}',
    ]) {
      const e = failure(parseCrossrefWorks(bad));
      expect(e.field).toBe("body");
      expect(e.hint).toBeTruthy();
    }
  });
});

describe("all sources", () => {
  it("land the same work on one chunk (arXiv, OpenAlex and Crossref agree on arxiv:2405.14831)", () => {
    const ids = [parseArxivFeed(ARXIV_FEED), parseOpenAlexWorks(OPENALEX), parseCrossrefWorks(CROSSREF)].map((r) =>
      value(r).artifacts.map((a) => a.id),
    );
    for (const list of ids) expect(list).toContain("arxiv:2405.14831");
  });

  it("are deterministic: re-parsing a response gives identical plans, and re-ingesting them is a no-op", async () => {
    const parsers = [
      () => parseArxivFeed(ARXIV_FEED),
      () => parseOpenAlexWorks(OPENALEX),
      () => parseCrossrefWorks(CROSSREF),
    ];
    for (const parse of parsers) {
      const a = value(parse());
      const b = value(parse());
      expect(b).toEqual(a);
      expect(JSON.stringify(b)).toBe(JSON.stringify(a));
      const first = await ingest(a.artifacts, emptyState(), 5_000_000_000_000);
      const again = await ingest(b.artifacts, stateAfter(emptyState(), first), 5_000_000_000_001);
      expect(again.results.every((r) => r.status === "unchanged")).toBe(true);
      expect(again.ops).toEqual([]);
    }
  });

  it("property: never throw on arbitrary input", () => {
    const mutate = (s: string) =>
      fc.tuple(fc.nat(s.length), fc.nat(200), fc.string()).map(([i, n, ins]) => s.slice(0, i) + ins + s.slice(i + n));
    fc.assert(
      fc.property(fc.oneof(fc.string(), mutate(ARXIV_FEED), mutate(OPENALEX), mutate(CROSSREF)), (input) => {
        for (const r of [parseArxivFeed(input), parseOpenAlexWorks(input), parseCrossrefWorks(input)]) {
          expect(typeof r.ok).toBe("boolean");
          if (r.ok) expectIngestable(r.value);
          else expect(r.error.kind).toBe("validation");
        }
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(
        fc.constantFrom("arxiv", "openalex", "crossref", "github", "url", "x"),
        fc.string(),
        fc.string(),
        (kind, location, query) => {
          const r = validateSourceSpec({ kind: kind as SourceSpec["kind"], location, query });
          expect(typeof r.ok).toBe("boolean");
          if (r.ok && (kind === "arxiv" || kind === "openalex" || kind === "crossref")) {
            const s = r.value;
            const req =
              kind === "arxiv" ? arxivRequest(s) : kind === "openalex" ? openalexRequest(s) : crossrefRequest(s);
            expect(() => new URL(req.url)).not.toThrow();
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
