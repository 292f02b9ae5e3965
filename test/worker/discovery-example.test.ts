/**
 * docs/research.md's worked example for one-shot discovery, run as written: every `http` block of
 * the section is sent to the Worker in order (the archive `papers` replaced by a fresh one) and must
 * answer 2xx; a `json` block right after it is the answer's excerpt (toMatchObject). The five engines
 * answer with the recorded responses in test/fixtures/sources (HippoRAG is in all five).
 */
import { describe, expect, it } from "vitest";
import DOC from "../../docs/research.md?raw";
import { httpSteps } from "../../scripts/lib/doc-http";
import arxivFeed from "../fixtures/sources/arxiv-feed.xml?raw";
import crossrefWorks from "../fixtures/sources/crossref-works.json?raw";
import dblpSearch from "../fixtures/sources/dblp-search.json?raw";
import openalexWorks from "../fixtures/sources/openalex-works.json?raw";
import s2Search from "../fixtures/sources/semanticscholar-search.json?raw";
import { mockFetch } from "./fetch-guard";
import { newArchive } from "./helpers";
import { WORKER } from "./worker";

const SECTION = "### Worked example: one-shot discovery";
const body =
  (text: string, type = "application/json") =>
  () =>
    new Response(text, { headers: { "content-type": type } });

describe("docs/research.md: the one-shot discovery example", () => {
  it("runs as written and answers what the page shows", async () => {
    mockFetch({
      "https://export.arxiv.org/api/query": body(arxivFeed, "application/atom+xml"),
      "https://api.openalex.org/works": body(openalexWorks),
      "https://api.crossref.org/works": body(crossrefWorks),
      "https://api.semanticscholar.org/graph/v1/paper/search": body(s2Search),
      "https://dblp.org/search/publ/api": body(dblpSearch),
    });
    const list = httpSteps(DOC, SECTION);
    expect(list.length).toBe(4);
    const { id, key } = await newArchive("discex");

    for (const s of list) {
      const res = await WORKER.fetch(
        `http://paperguru.test${s.path.replace("/v1/archives/papers/", `/v1/archives/${id}/`)}`,
        { method: s.method, headers: { authorization: `Bearer ${key}`, ...s.headers }, body: s.body },
      );
      const text = await res.text();
      expect(res.status, `${s.method} ${s.path}: ${text.slice(0, 500)}`).toBeLessThan(300);

      if (s.expect !== undefined) expect(JSON.parse(text), `${s.method} ${s.path}`).toMatchObject(s.expect as object);
    }
  });
});
