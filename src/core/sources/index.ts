/**
 * The source table: one SourceDefinition per source kind, and the spec validation and rate limits
 * read from it. The table is exhaustive over SOURCE_KINDS, so a kind added there without an entry
 * does not compile.
 */
import { fail, ok, type Result } from "../errors";
import { urlRefusal } from "../net";
import { arxivSource } from "./arxiv";
import { crossrefSource } from "./crossref";
import { dblpSource } from "./dblp";
import { githubSource } from "./github";
import { openalexSource } from "./openalex";
import { semanticScholarSource } from "./semanticscholar";
import { SOURCE_KINDS, type SourceDefinition, type SourceKind, type SourceSpec } from "./types";
import { urlSource } from "./url";

export const SOURCES: { readonly [K in SourceKind]: SourceDefinition } = {
  arxiv: arxivSource,
  openalex: openalexSource,
  crossref: crossrefSource,
  github: githubSource,
  url: urlSource,
  semanticscholar: semanticScholarSource,
  dblp: dblpSource,
};

/**
 * Minimum spacing between two requests to one source, from each source's PUBLISHED policy (a scheduler
 * must also honour 429/503 + Retry-After and any rate headers the response carries):
 * - arXiv, Terms of Use for arXiv APIs (https://info.arxiv.org/help/api/tou.html): no more than one
 *   request every three seconds, and a single connection at a time (shared by the legacy API, OAI-PMH
 *   and RSS).
 * - OpenAlex (https://docs.openalex.org/how-to-use-the-api/rate-limits-and-authentication): 100,000
 *   calls/day and at most 10 requests/second, faster "polite pool" with `mailto`. NOTE: OpenAlex has since
 *   moved to credits and API keys (developers.openalex.org/api-reference/authentication: key required from
 *   13 Feb 2026; a free key buys $1/day = 10,000 list/filter or 1,000 search calls; 100 req/s ceiling).
 *   10/s stays inside both regimes; the daily budget is what actually binds, so schedules should be sparse.
 * - Crossref (https://www.crossref.org/documentation/retrieve-metadata/rest-api/access-and-authentication/
 *   and the blog "Announcing changes to REST API rate limits", 5 Nov 2025, effective 1 Dec 2025): the old
 *   50 req/s for public and polite pools was cut to 5 req/s (public) and 10 req/s (polite, `mailto`), with
 *   lower concurrency limits (the exact split is not in the docs we could check; assume 1). We pace list
 *   queries at 1/s: the public-pool figure holds with or without mailto, list queries are the expensive
 *   kind, and the live limit is advertised in the x-rate-limit-limit / x-rate-limit-interval response
 *   headers, which win.
 * - GitHub REST (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api): 60
 *   requests/hour unauthenticated, 5,000/hour with a token (=> 720 ms); the default is the
 *   unauthenticated figure.
 * - url: no published limit; 1 s is a courteous default for an arbitrary web server.
 * Each figure is the `rateLimit` of the source's entry in SOURCES.
 */
export const RATE_LIMITS = Object.fromEntries(SOURCE_KINDS.map((k) => [k, SOURCES[k].rateLimit])) as {
  readonly [K in SourceKind]: SourceDefinition["rateLimit"];
};

/**
 * Check a source spec before it is stored or scheduled, naming the bad field (`kind`, `location`,
 * `query`) with a hint. Accepted query forms:
 * - arxiv: an arXiv API search_query (`cat:cs.CL AND ti:memory`; fields ti au abs co jr cat rn id all,
 *   operators AND OR ANDNOT, parentheses, double quotes) or an id list (`id:2405.14831,2312.10997`).
 * - openalex: `filter=<f>`, `search=<text>` or both joined by `&`; a bare filter (`concepts.id:C41008148,
 *   publication_year:2024`); a single work id (`W2741809807`, `doi:10.7717/peerj.4375`); else search text.
 * - crossref: `query=<text>`, `query.<field>=<text>`, `filter=<f>` joined by `&`; a bare filter
 *   (`from-update-date:2024-01-01,type:journal-article`); a DOI (single work); else query text.
 * - github / url: query is unused (may be empty).
 * The per-kind part is the `check` of the kind's entry in SOURCES.
 */
export function validateSourceSpec(
  spec: SourceSpec,
  opts: { allowHosts?: readonly string[] } = {},
): Result<SourceSpec> {
  const kind = spec?.kind;
  if (!SOURCE_KINDS.includes(kind))
    return fail(
      "validation",
      `unknown source kind ${JSON.stringify(kind)}`,
      "kind",
      `use one of ${SOURCE_KINDS.join(", ")}`,
    );
  const location = typeof spec.location === "string" ? spec.location.trim() : "";
  const query = typeof spec.query === "string" ? spec.query.trim() : "";
  if (typeof spec.location !== "string")
    return fail("validation", "location must be a string", "location", 'use "" for the API\'s default base URL');
  if (typeof spec.query !== "string")
    return fail("validation", "query must be a string", "query", 'use "" when unused');
  if (query.length > 2000)
    return fail("validation", `query has ${query.length} characters; the limit is 2000`, "query", "narrow the query");
  const problem = SOURCES[kind].check({ location, query }, (raw, allowHttpHosts = []) =>
    urlRefusal(raw, { allowHosts: opts.allowHosts ?? [], allowHttpHosts }),
  );
  if (problem) return fail("validation", problem.message, problem.field, problem.hint);
  return ok({ kind, location, query });
}
