/**
 * Scheduled re-ingestion sources: what a source is, how fast we may ask it, and the small pure helpers the
 * source parsers (arxiv.ts, openalex.ts, crossref.ts) share. No I/O here: the scheduler fetches, the
 * parsers turn the response into an ImportPlan, the service applies it.
 */
import { fail, ok, type Result } from "../errors";
import { paperIdentity } from "../formats/paper";
import type { Deprecation, ImportPlan } from "../formats/types";
import { canonicalPaperId, slug } from "../ids";
import type { ArtifactInput, EdgeInput, EntityInput } from "../ingest";

export type SourceKind = "arxiv" | "openalex" | "crossref" | "github" | "url";

export const SOURCE_KINDS: readonly SourceKind[] = ["arxiv", "openalex", "crossref", "github", "url"];

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

function isLocalHost(host: string): boolean {
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]" || host.endsWith(".localhost");
}

/** https, or http only for localhost (tests, local mirrors) and, for arXiv, its documented http endpoint. */
function checkUrl(raw: string, allowHttpHosts: string[] = []): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return "is not an absolute URL";
  }
  if (u.username || u.password) return "must not embed credentials";
  if (u.protocol === "https:") return null;
  if (u.protocol === "http:" && (isLocalHost(u.hostname) || allowHttpHosts.includes(u.hostname))) return null;
  return `uses ${u.protocol} (only https, or http://localhost, is fetched)`;
}

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
export function validateSourceSpec(spec: SourceSpec): Result<SourceSpec> {
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
    case "crossref": {
      if (location) {
        const bad = checkUrl(location, kind === "arxiv" ? ["export.arxiv.org"] : []);
        if (bad)
          return fail(
            "validation",
            `location ${bad}`,
            "location",
            `leave it empty for the default API base, or give an https URL such as ${
              kind === "arxiv"
                ? "https://export.arxiv.org/api/query"
                : kind === "openalex"
                  ? "https://api.openalex.org"
                  : "https://api.crossref.org"
            }`,
          );
      }
      if (!query)
        return fail(
          "validation",
          `a ${kind} source needs a query`,
          "query",
          kind === "arxiv"
            ? "e.g. `cat:cs.CL AND ti:memory` or `id:2405.14831`"
            : kind === "openalex"
              ? "e.g. `filter=concepts.id:C41008148&search=long-term memory`"
              : "e.g. `query=retrieval augmented generation&filter=from-update-date:2024-01-01`",
        );
      const bad =
        kind === "arxiv"
          ? checkArxivQuery(query)
          : kind === "openalex"
            ? checkOpenAlexQuery(query)
            : checkCrossrefQuery(query);
      if (bad) return fail("validation", bad.message, "query", bad.hint);
      break;
    }
    case "url": {
      if (!location)
        return fail("validation", "a url source needs a URL", "location", "e.g. https://example.org/notes.md");
      const bad = checkUrl(location);
      if (bad) return fail("validation", `location ${bad}`, "location", "use an https URL (http only for localhost)");
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
// Shared output helpers: every parser's artifacts must pass the HTTP schema limits and prepareBatch.
// ---------------------------------------------------------------------------------------------------

/** The ingest API's limits (src/http/schemas.ts, INGEST_LIMITS) that parser output must respect. */
export const OUTPUT_LIMITS = {
  id: 512,
  title: 1000,
  synopsis: 2000,
  entityName: 300,
  aliasesPerEntity: 50,
  entities: 200,
  edges: 500,
  edgeTarget: 512,
  boundary: 200,
  boundaries: 100,
  source: 2000,
  reason: 2000,
} as const;

/**
 * Canonical chunk id of a cited paper, as paperIdentity would give it (so `10.48550/arXiv.X` targets
 * `arxiv:X`, the chunk the arXiv source writes), or null when the string is not a paper identifier.
 */
export function paperTarget(raw: string): string | null {
  return canonicalPaperId(raw) ? (paperIdentity([raw], "")?.id ?? null) : null;
}

/** Collapse whitespace and cut to at most `max` characters without splitting a surrogate pair. */
export function clip(s: string, max: number): string {
  const t = s.replace(/\s+/g, " ").trim();
  if (t.length <= max) return t;
  let cut = t.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut.trimEnd();
}

/** An entity cut to the schema limits (name <= 300, <= 50 distinct aliases of <= 300). */
export function fitEntity(e: EntityInput): EntityInput | null {
  const name = clip(e.name, OUTPUT_LIMITS.entityName);
  if (!name) return null;
  const aliases: string[] = [];
  const seen = new Set<string>([name]);
  for (const a of e.aliases ?? []) {
    const c = clip(a, OUTPUT_LIMITS.entityName);
    if (!c || seen.has(c)) continue;
    seen.add(c);
    aliases.push(c);
    if (aliases.length >= OUTPUT_LIMITS.aliasesPerEntity) break;
  }
  return { type: e.type, ...(e.id ? { id: e.id } : {}), name, ...(aliases.length ? { aliases } : {}) };
}

/** A person entity: `person:<slug of the name>`, the ORCID (bare 0000-0000-0000-0000 form) as an alias. */
export function personEntity(name: string, orcid?: string | null): EntityInput | null {
  const n = clip(name, OUTPUT_LIMITS.entityName);
  const s = slug(n);
  if (!s) return null;
  const o = orcid ? /(\d{4}-\d{4}-\d{4}-\d{3}[\dX])/i.exec(orcid)?.[1]?.toUpperCase() : undefined;
  return { type: "person", id: `person:${s.slice(0, 250)}`, name: n, ...(o ? { aliases: [o] } : {}) };
}

/**
 * Final shaping shared by all parsers: fit entities/edges/boundaries to the limits (capping, never
 * failing), drop self-edges and duplicates, keep one artifact per id (first wins; later ones are reported in
 * `skipped`), keep one deprecation per id, and drop artifacts whose id the same response deprecates: a
 * deprecated chunk accepts no new version (ingest answers 409 and fails the whole batch), so re-emitting a
 * retracted/withdrawn record on every scheduled run would break re-ingestion.
 */
export function finishPlan(
  artifacts: ArtifactInput[],
  deprecations: Deprecation[],
  skipped: ImportPlan["skipped"],
): ImportPlan {
  // One deprecation per chunk: the earliest dated one (the chunk stopped being valid then); ties keep the first.
  const byId = new Map<string, Deprecation>();
  for (const d of deprecations) {
    const prev = byId.get(d.id);
    if (prev && (d.at === undefined || (prev.at !== undefined && prev.at <= d.at))) continue;
    byId.set(d.id, {
      id: d.id,
      ...(d.at !== undefined ? { at: d.at } : {}),
      ...(d.by && d.by !== d.id ? { by: d.by } : {}),
      reason: clip(d.reason, OUTPUT_LIMITS.reason),
    });
  }
  const deps = [...byId.values()];
  const depIds = new Set(byId.keys());
  const out: ArtifactInput[] = [];
  const seen = new Set<string>();
  const skip = [...skipped];
  for (const a of artifacts) {
    if (depIds.has(a.id)) {
      skip.push({ ref: a.id, reason: "deprecated by the same response; recorded as a deprecation only" });
      continue;
    }
    if (seen.has(a.id)) {
      skip.push({ ref: a.id, reason: "duplicate record for the same paper in this response (first one kept)" });
      continue;
    }
    seen.add(a.id);
    out.push(fitArtifact(a));
  }
  return { artifacts: out, deprecations: deps, skipped: skip };
}

function fitArtifact(a: ArtifactInput): ArtifactInput {
  const entities: EntityInput[] = [];
  for (const e of a.entities ?? []) {
    const f = fitEntity(e);
    if (f) entities.push(f);
    if (entities.length >= OUTPUT_LIMITS.entities) break;
  }
  const edges: EdgeInput[] = [];
  const edgeKeys = new Set<string>();
  for (const e of a.edges ?? []) {
    const key = `${e.type}\u0000${e.target}`;
    if (e.target === a.id || !e.target || e.target.length > OUTPUT_LIMITS.edgeTarget || edgeKeys.has(key)) continue;
    edgeKeys.add(key);
    edges.push(e);
    if (edges.length >= OUTPUT_LIMITS.edges) break;
  }
  const boundaries = [
    ...new Set((a.boundaries ?? []).map((b) => clip(b, OUTPUT_LIMITS.boundary)).filter(Boolean)),
  ].slice(0, OUTPUT_LIMITS.boundaries);
  const title = clip(a.title, OUTPUT_LIMITS.title) || a.id;
  const synopsis = a.synopsis === undefined ? undefined : clip(a.synopsis, OUTPUT_LIMITS.synopsis);
  return {
    id: a.id,
    kind: a.kind,
    title,
    ...(synopsis ? { synopsis } : {}),
    content: a.content.trim() ? a.content : title,
    ...(entities.length ? { entities } : {}),
    ...(boundaries.length ? { boundaries } : {}),
    ...(edges.length ? { edges } : {}),
    ...(a.valid_from !== undefined && Number.isFinite(a.valid_from) ? { valid_from: a.valid_from } : {}),
    ...(a.source ? { source: a.source.slice(0, OUTPUT_LIMITS.source) } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------
// Reading untyped JSON without `any`
// ---------------------------------------------------------------------------------------------------

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

export function parseJson(text: string, source: string): Result<Json> {
  if (typeof text !== "string" || !text.trim())
    return fail("validation", `${source} response is empty`, "body", `expected the ${source} JSON response body`);
  try {
    return ok(JSON.parse(text) as Json);
  } catch (e) {
    return fail(
      "validation",
      `${source} response is not JSON: ${e instanceof Error ? e.message : String(e)}`,
      "body",
      `pass the raw ${source} response body (HTTP 200, application/json)`,
    );
  }
}

/** Epoch ms of a date string; undefined when it does not parse. */
export function parseTime(s: string | undefined): number | undefined {
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isFinite(t) ? t : undefined;
}
