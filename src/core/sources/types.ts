/**
 * Scheduled re-ingestion sources: what a source is, how fast we may ask it, and the small pure helpers the
 * source parsers (arxiv.ts, openalex.ts, crossref.ts) share. No I/O here: the scheduler fetches, the
 * parsers turn the response into an ImportPlan, the service applies it.
 */
import { fail, ok, type Result } from "../errors";
import { synopsisOf } from "../formats/common";
import { paperIdentity } from "../formats/paper";
import { canonicalPaperId } from "../ids";
import type { ArtifactInput } from "../ingest";
import { urlRefusal } from "../net";

/** The kinds of source cron can re-ingest: the one list the schemas, the CLI and validation use. */
export const SOURCE_KINDS = ["arxiv", "openalex", "crossref", "github", "url", "semanticscholar", "dblp"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export interface SourceSpec {
  kind: SourceKind;
  /**
   * arxiv / openalex / crossref: the API base ("" = the default: https://export.arxiv.org/api/query,
   * https://api.openalex.org, https://api.crossref.org). url: the URL to fetch. github:
   * `owner/repo[/path][@ref]`.
   */
  location: string;
  /** The source's own query language (see validateSourceSpec and each request builder). */
  query: string;
}

export interface HttpRequestSpec {
  url: string;
  headers: Record<string, string>;
}

/** Conditional-request validators remembered from the previous successful fetch. */
export interface ConditionalHeaders {
  etag?: string | undefined;
  lastModified?: string | undefined;
}

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
 */
export const RATE_LIMITS: Record<SourceKind, { minIntervalMs: number; note: string }> = {
  arxiv: {
    minIntervalMs: 3_000,
    note: "arXiv API Terms of Use: at most 1 request every 3 seconds, single connection at a time",
  },
  openalex: {
    minIntervalMs: 100,
    note: "OpenAlex: 100,000 calls/day, max 10 requests/second, polite pool with mailto (credit-based with API keys from Feb 2026; 100 req/s ceiling)",
  },
  crossref: {
    minIntervalMs: 1_000,
    note: "Crossref REST API since 1 Dec 2025: 5 req/s public, 10 req/s polite (mailto), low concurrency; list queries paced at 1/s; obey x-rate-limit-* headers",
  },
  github: {
    minIntervalMs: 60_000,
    note: "GitHub REST: 60 requests/hour unauthenticated, 5,000/hour with a token (720 ms)",
  },
  url: { minIntervalMs: 1_000, note: "no published limit; 1 request/second courtesy default" },
  semanticscholar: {
    minIntervalMs: 1_000,
    note: "Semantic Scholar Academic Graph API: unauthenticated requests share one pool (5,000 per 5 minutes), an API key starts at 1 request/second; paced at 1/s; obey 429",
  },
  dblp: {
    minIntervalMs: 1_000,
    note: "dblp search API: no published number; it answers bursts with 429 and Retry-After; 1 request/second courtesy default",
  },
};

// ---------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------

export const ARXIV_FIELDS = ["ti", "au", "abs", "co", "jr", "cat", "rn", "id", "all"] as const;
const ARXIV_ID_RE = /^(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?\/\d{7})(?:v\d+)?$/i;

/**
 * The arXiv ids of an id-list query ("id:2405.14831", "id:2405.14831,2312.10997", "2405.14831 2312.10997",
 * "id_list=..."), or null when the query is a search_query.
 */
export function arxivIdList(query: string): string[] | null {
  let q = query.trim();
  if (/^id_list=/i.test(q)) q = q.slice("id_list=".length);
  else if (/^id:/i.test(q)) q = q.slice(3);
  const parts = q
    .split(/[\s,]+/)
    .map((p) => p.replace(/^arxiv:/i, ""))
    .filter(Boolean);
  return parts.length > 0 && parts.every((p) => ARXIV_ID_RE.test(p)) ? parts : null;
}

/** Split `a=b&c=d` into pairs when the query is written in that form, else null. */
export function queryPairs(query: string): Array<[string, string]> | null {
  if (!/^[a-z][a-z._-]*=/i.test(query.trim())) return null;
  const out: Array<[string, string]> = [];
  for (const part of query.trim().split("&")) {
    const eq = part.indexOf("=");
    if (eq <= 0) return null;
    out.push([part.slice(0, eq).trim(), part.slice(eq + 1).trim()]);
  }
  return out;
}

/** arXiv documents an http endpoint; every other fetch is https. */
export const ARXIV_HTTP_HOSTS = ["export.arxiv.org"];

const GITHUB_LOCATION_RE = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}(?:\/[^@\s]+)?(?:@[^\s@]+)?$/;

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
 */
export function validateSourceSpec(
  spec: SourceSpec,
  opts: { allowHosts?: readonly string[] } = {},
): Result<SourceSpec> {
  const checkUrl = (raw: string, allowHttpHosts: readonly string[] = []) =>
    urlRefusal(raw, { allowHosts: opts.allowHosts ?? [], allowHttpHosts });
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

  switch (kind) {
    case "arxiv":
    case "openalex":
    case "crossref":
    case "semanticscholar":
    case "dblp": {
      const api = SCHOLARLY[kind];
      if (location) {
        const bad = checkUrl(location, kind === "arxiv" ? ARXIV_HTTP_HOSTS : []);
        if (bad)
          return fail(
            "validation",
            `location ${bad}`,
            "location",
            `leave it empty for the default API base, or give an https URL such as ${api.base}`,
          );
      }
      if (!query) return fail("validation", `a ${kind} source needs a query`, "query", `e.g. ${api.example}`);
      const bad = api.check?.(query);
      if (bad) return fail("validation", bad.message, "query", bad.hint);
      break;
    }
    case "url": {
      if (!location)
        return fail("validation", "a url source needs a URL", "location", "e.g. https://example.org/notes.md");
      const bad = checkUrl(location);
      if (bad)
        return fail(
          "validation",
          `location ${bad}`,
          "location",
          "use an https URL on a public host (local hosts only through OUTBOUND_ALLOW_HOSTS)",
        );
      break;
    }
    case "github": {
      if (!GITHUB_LOCATION_RE.test(location) || /(^|\/)\.\.?(\/|@|$)/.test(location))
        return fail(
          "validation",
          `github location ${JSON.stringify(location)} is not owner/repo[/path][@ref]`,
          "location",
          "e.g. `octocat/hello-world`, `octocat/hello-world/docs@main` (no `..` segments)",
        );
      break;
    }
  }
  return ok({ kind, location, query });
}

/** Per scholarly source: a default API base for the hint, a query example, and its query check. */
const SCHOLARLY: Record<
  "arxiv" | "openalex" | "crossref" | "semanticscholar" | "dblp",
  { base: string; example: string; check?: (query: string) => { message: string; hint: string } | null }
> = {
  arxiv: {
    base: "https://export.arxiv.org/api/query",
    example: "`cat:cs.CL AND ti:memory` or `id:2405.14831`",
    check: (q) => checkArxivQuery(q),
  },
  openalex: {
    base: "https://api.openalex.org",
    example: "`filter=concepts.id:C41008148&search=long-term memory`",
    check: (q) => checkOpenAlexQuery(q),
  },
  crossref: {
    base: "https://api.crossref.org",
    example: "`query=retrieval augmented generation&filter=from-update-date:2024-01-01`",
    check: (q) => checkCrossrefQuery(q),
  },
  semanticscholar: {
    base: "https://api.semanticscholar.org/graph/v1",
    example: "`long-term memory for LLM agents` or `ARXIV:2405.14831`",
    check: (q) =>
      /^(?:CorpusId|DOI|ARXIV|MAG|ACL|PMID|PMCID|URL):\s*$/i.test(q)
        ? { message: "Semantic Scholar paper id has no value", hint: "e.g. `ARXIV:2405.14831`" }
        : null,
  },
  dblp: { base: "https://dblp.org/search/publ/api", example: "`retrieval augmented generation year:2024`" },
};
function checkArxivQuery(query: string): { message: string; hint: string } | null {
  const hint =
    "write an arXiv API search_query with field prefixes (ti au abs co jr cat rn id all), e.g. `cat:cs.CL AND ti:memory`, or an id list `id:2405.14831,2312.10997`";
  if (arxivIdList(query)) return null;
  const q = query.replace(/^search_query=/i, "");
  if (/[&=]/.test(q.replace(/"[^"]*"/g, "")))
    return { message: "arXiv query contains `&` or `=`; only the search_query value is expected", hint };
  if (/^id(_list)?[:=]/i.test(q)) return { message: "arXiv id list contains something that is not an arXiv id", hint };
  if ((q.match(/"/g) ?? []).length % 2 !== 0) return { message: "arXiv query has an unbalanced double quote", hint };
  let depth = 0;
  for (const ch of q.replace(/"[^"]*"/g, "")) {
    if (ch === "(") depth++;
    else if (ch === ")" && --depth < 0) break;
  }
  if (depth !== 0) return { message: "arXiv query has unbalanced parentheses", hint };
  const prefixes = [...q.replace(/"[^"]*"/g, "").matchAll(/([A-Za-z_]+):/g)].map((m) => (m[1] ?? "").toLowerCase());
  if (prefixes.length === 0) return { message: "arXiv query has no field prefix", hint };
  const unknown = prefixes.find((p) => !(ARXIV_FIELDS as readonly string[]).includes(p));
  if (unknown) return { message: `arXiv query uses unknown field prefix \`${unknown}:\``, hint };
  return null;
}

function checkPairs(
  query: string,
  source: string,
  allowed: (key: string) => boolean,
  hint: string,
): { message: string; hint: string } | null {
  const pairs = queryPairs(query);
  if (!pairs) return null;
  const seen = new Set<string>();
  for (const [k, v] of pairs) {
    if (!allowed(k)) return { message: `${source} query parameter \`${k}\` is not accepted here`, hint };
    if (!v) return { message: `${source} query parameter \`${k}\` is empty`, hint };
    if (seen.has(k)) return { message: `${source} query parameter \`${k}\` appears twice`, hint };
    seen.add(k);
  }
  return null;
}

function checkOpenAlexQuery(query: string): { message: string; hint: string } | null {
  return checkPairs(
    query,
    "OpenAlex",
    (k) => k === "filter" || k === "search",
    "use `filter=...`, `search=...` or both joined by `&` (paging, sorting and mailto are set by PaperGuru)",
  );
}

function checkCrossrefQuery(query: string): { message: string; hint: string } | null {
  return checkPairs(
    query,
    "Crossref",
    (k) => k === "query" || k === "filter" || /^query\.[a-z-]+$/.test(k),
    "use `query=...`, `query.<field>=...` (e.g. query.bibliographic) and `filter=...` joined by `&` (rows, sort and mailto are set by PaperGuru)",
  );
}

/** Append conditional-request headers (the sources answer 304 when nothing changed). */
export function conditionalHeaders(cond: ConditionalHeaders | undefined, base: Record<string, string>) {
  const headers = { ...base };
  if (cond?.etag) headers["If-None-Match"] = cond.etag;
  if (cond?.lastModified) headers["If-Modified-Since"] = cond.lastModified;
  return headers;
}

/** A DOI in a URL path: every reserved character escaped except the prefix/suffix slash. */
export function doiPath(doi: string): string {
  return encodeURIComponent(doi).replace(/%2F/gi, "/");
}

export function clampInt(n: number | undefined, def: number, min: number, max: number): number {
  if (n === undefined || !Number.isFinite(n)) return def;
  return Math.min(max, Math.max(min, Math.trunc(n)));
}

// ---------------------------------------------------------------------------------------------------
// Shared by the parsers (output fitting, JSON reading and plan assembly live in ../formats/common.ts)
// ---------------------------------------------------------------------------------------------------

/**
 * Canonical chunk id of a cited paper, as paperIdentity would give it (so `10.48550/arXiv.X` targets
 * `arxiv:X`, the chunk the arXiv source writes), or null when the string is not a paper identifier.
 */
export function paperTarget(raw: string): string | null {
  return canonicalPaperId(raw) ? (paperIdentity([raw], "")?.id ?? null) : null;
}

/** "Authors: A, B, C" for a record's content, at most 500 names ("... and N more"). */
export function authorsLine(authors: string[]): string {
  const more = authors.length > 500 ? ` and ${authors.length - 500} more` : "";
  return `Authors: ${authors.slice(0, 500).join(", ")}${more}`;
}

/**
 * The `paper` artifact of one source record: content = the header lines (title, authors, venue, ...), a
 * blank line and the abstract; synopsis = the abstract's first sentences (ingest's rule); `title` is the
 * display title (never empty).
 */
export function paperArtifact(
  record: { id: string; title: string; header: string[]; abstract: string },
  more: Omit<ArtifactInput, "id" | "kind" | "title" | "synopsis" | "content">,
): ArtifactInput {
  const { id, title, header, abstract } = record;
  const synopsis = synopsisOf(title, abstract);
  return {
    id,
    kind: "paper",
    title,
    ...(synopsis ? { synopsis } : {}),
    content: abstract ? `${header.join("\n")}\n\n${abstract}` : header.join("\n"),
    ...more,
  };
}
