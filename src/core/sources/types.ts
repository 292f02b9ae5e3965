/**
 * Scheduled re-ingestion sources: what a source is, what a source definition holds (the SOURCES table in
 * ./index.ts has one per kind, each in its source's file), and the small pure helpers the source parsers
 * share. No I/O here: the scheduler fetches, the parsers turn the response into an ImportPlan, the
 * service applies it.
 */
import type { Result } from "../errors";
import type { ImportPlan } from "../formats/types";

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

/**
 * A scholarly API's request builder: the spec, the validators remembered from the previous fetch (none
 * when omitted) and the builder's own options (paging, contact, keys).
 */
export type RequestBuilder<Opts> = (spec: SourceSpec, cond?: ConditionalHeaders, opts?: Opts) => HttpRequestSpec;

/** Conditional-request validators remembered from the previous successful fetch. */
export interface ConditionalHeaders {
  etag?: string | undefined;
  lastModified?: string | undefined;
}

// ---------------------------------------------------------------------------------------------------
// Definitions and validation helpers
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

/** Why a spec's location or query is refused: the field, the message and a hint. */
export interface SpecProblem {
  field: "location" | "query";
  message: string;
  hint: string;
}

/** core/net's urlRefusal with the caller's allowed hosts bound: null when the URL may be fetched. */
export type UrlCheck = (raw: string, allowHttpHosts?: readonly string[]) => string | null;

/** What a body parser is handed besides the body. */
export interface ParseContext {
  /** The URL the body came from. */
  source: string;
  /** Turns a feed JSON document into a plan (the application's feed reader; the url source uses it). */
  feed(json: unknown): Promise<Result<ImportPlan>>;
}

/** A source fetched by one conditional HTTP request per run, its body parsed into a plan. */
export interface HttpSourceFetch {
  via: "http";
  request(spec: SourceSpec, cond: ConditionalHeaders, opts: { mailto?: string | undefined }): HttpRequestSpec;
  parse(body: string, ctx: ParseContext): Result<ImportPlan> | Promise<Result<ImportPlan>>;
}

/** Where in a repository a github source reads: `owner/repo`, a path prefix and a ref (null: the default branch). */
export interface RepoLocation {
  repo: string;
  path: string;
  ref: string | null;
}

/** A source walked as a repository (several requests per run, by the application's repository walker). */
export interface RepositorySourceFetch {
  via: "repository";
  parseLocation(location: string): Result<RepoLocation>;
}

/** Everything that differs between source kinds: one entry per kind in SOURCES (./index.ts). */
export interface SourceDefinition {
  /** Minimum spacing between two requests to the source, from its published policy. */
  rateLimit: { minIntervalMs: number; note: string };
  /** The refusal of a trimmed location and query, or null when the spec is accepted. */
  check(spec: { location: string; query: string }, checkUrl: UrlCheck): SpecProblem | null;
  fetch: HttpSourceFetch | RepositorySourceFetch;
}

/** What scholarlyCheck checks a scholarly API source's spec against. */
export interface ScholarlyApi {
  kind: SourceKind;
  base: string;
  example: string;
  allowHttpHosts?: readonly string[];
  query?: (query: string) => { message: string; hint: string } | null;
}

/**
 * The definition of a scholarly API source (arXiv, OpenAlex, Crossref, Semantic Scholar, DBLP): its rate
 * limit, scholarlyCheck's check of `api`, and one HTTP request per run.
 */
export function scholarlySource(
  api: ScholarlyApi & Pick<SourceDefinition, "rateLimit"> & Pick<HttpSourceFetch, "request" | "parse">,
): SourceDefinition {
  const { rateLimit, request, parse, ...check } = api;
  return { rateLimit, check: scholarlyCheck(check), fetch: { via: "http", request, parse } };
}

/** The check of a scholarly API source: an optional https API base and a query its own check accepts. */
function scholarlyCheck(api: ScholarlyApi): SourceDefinition["check"] {
  return ({ location, query }, checkUrl) => {
    if (location) {
      const bad = checkUrl(location, api.allowHttpHosts ?? []);
      if (bad)
        return {
          field: "location",
          message: `location ${bad}`,
          hint: `leave it empty for the default API base, or give an https URL such as ${api.base}`,
        };
    }
    if (!query) return { field: "query", message: `a ${api.kind} source needs a query`, hint: `e.g. ${api.example}` };
    const bad = api.query?.(query);
    return bad ? { field: "query", ...bad } : null;
  };
}

/** The check of `a=b&c=d` query parameters: each allowed, non-empty and given once (null: accepted). */
export function checkPairs(
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
