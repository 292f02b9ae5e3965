/**
 * OpenAlex works API (https://docs.openalex.org/api-entities/works): request builder and parser for the
 * `/works` list response (`{meta, results: [...]}`) and a single work object (`/works/W…`).
 *
 * No valid_from: OpenAlex's `updated_date` moves whenever OpenAlex re-processes a record (citation counts,
 * author disambiguation), which says nothing about when the work changed, and `publication_date` lies before
 * versions other sources may already hold for the same chunk (ingest refuses a version that does not start
 * after the current one). Ingest time is monotone, so a changed record always lands as a later version.
 */
import { fail, ok, type Result } from "../errors";
import { arr, isObject, type JsonObject, num, str } from "../formats/common";
import { paperIdentity } from "../formats/paper";
import type { ImportPlan } from "../formats/types";
import { canonicalPaperId, slug } from "../ids";
import type { EdgeInput, EntityInput } from "../ingest";
import {
  addAuthor,
  jsonHeaders,
  jsonObjectBody,
  numeric,
  type RecordPlan,
  recordsPlan,
  withAliases,
  worksEndpoint,
  worksListParams,
  yearBoundary,
} from "./scholarly";
import {
  type ConditionalHeaders,
  checkPairs,
  clampInt,
  doiPath,
  type HttpRequestSpec,
  paperArtifact,
  paperHeader,
  paperTarget,
  type SourceSpec,
  scholarlySource,
} from "./types";

export const OPENALEX_API = "https://api.openalex.org";

const SINGLE_WORK_RE = /^(?:openalex:|https?:\/\/openalex\.org\/)?(W\d+)$/i;
const BARE_FILTER_RE = /^[a-z][a-z_.]*:[^\s,][^,]*(?:,[a-z][a-z_.]*:[^\s,][^,]*)*$/i;

/**
 * GET request for OpenAlex works. Accepted `query` forms:
 * - `filter=<filter>`, `search=<text>`, or both joined by `&` (`filter=concepts.id:C41008148&search=memory`);
 * - a bare filter, `key:value[,key:value]` (`authorships.author.id:A5023888391,publication_year:2024`);
 * - one work: `W2741809807`, `openalex:W…`, `https://openalex.org/W…` or a DOI (`doi:10.7717/peerj.4375`)
 *   -> `/works/<id>`, answered with a single work object;
 * - anything else is full-text `search`.
 * Lists are sorted by `updated_date:desc` with `per-page` (default 50, OpenAlex's maximum 200). `mailto`
 * joins the polite pool; `apiKey` (OpenAlex requires one from 13 Feb 2026) is sent as `api_key`.
 */
export function openalexRequest(
  spec: SourceSpec,
  cond: ConditionalHeaders = {},
  opts: { mailto?: string; perPage?: number; apiKey?: string } = {},
): HttpRequestSpec {
  const works = worksEndpoint(spec, OPENALEX_API);
  const headers = jsonHeaders(cond);
  const q = spec.query.trim();
  const common = new URLSearchParams();
  if (opts.mailto) common.set("mailto", opts.mailto);
  if (opts.apiKey) common.set("api_key", opts.apiKey);

  const single = SINGLE_WORK_RE.exec(q)?.[1];
  const doi = single ? null : canonicalPaperId(q);
  if (single || doi?.startsWith("doi:")) {
    // OpenAlex takes a DOI as /works/doi:10.x/y (https://docs.openalex.org/how-to-use-the-api/get-single-entities).
    const path = single ? single.toUpperCase() : `doi:${doiPath((doi as string).slice(4))}`;
    const qs = common.toString();
    return { url: `${works}/${path}${qs ? `?${qs}` : ""}`, headers };
  }

  const params = worksListParams(q, BARE_FILTER_RE, "search");
  params.set("sort", "updated_date:desc");
  params.set("per-page", String(clampInt(opts.perPage, 50, 1, 200)));
  for (const [k, v] of common) params.set(k, v);
  return { url: `${works}?${params.toString()}`, headers };
}

/**
 * Abstracts come as an inverted index (word -> positions) for licensing reasons; put each word back at its
 * positions. Positions are bounded so a hostile index cannot make us allocate without limit.
 */
export function reconstructAbstract(index: unknown): string {
  if (!isObject(index)) return "";
  const at = new Map<number, string>();
  for (const [word, positions] of Object.entries(index)) {
    for (const p of arr(positions)) {
      if (typeof p === "number" && Number.isInteger(p) && p >= 0 && p < 200_000 && !at.has(p)) at.set(p, word);
    }
    if (at.size > 200_000) break;
  }
  return [...at.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, w]) => w)
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
}

const ARXIV_URL_RE = /arxiv\.org\/(?:abs|pdf)\/([^?#\s]+?)(?:\.pdf)?(?:[?#].*)?$/i;

/** arXiv id of a work, found in its locations' landing/pdf URLs (OpenAlex has no arXiv field in `ids`). */
function arxivIdOf(w: JsonObject): string | null {
  const locations = [w.primary_location, w.best_oa_location, ...arr(w.locations)];
  for (const loc of locations) {
    if (!isObject(loc)) continue;
    for (const u of [str(loc.landing_page_url), str(loc.pdf_url)]) {
      const m = u ? ARXIV_URL_RE.exec(u) : null;
      const id = m?.[1] ? canonicalPaperId(`arXiv:${m[1]}`) : null;
      if (id) return id;
    }
  }
  return null;
}

/** Other identifiers OpenAlex knows (PubMed, PMC, MAG), as aliases of the paper entity. */
function extraIdAliases(ids: unknown): string[] {
  if (!isObject(ids)) return [];
  const out: string[] = [];
  const pmid = str(ids.pmid)?.match(/(\d+)\/?$/)?.[1];
  if (pmid) out.push(`pmid:${pmid}`);
  const pmcid = str(ids.pmcid)?.match(/(PMC\d+)\/?$/i)?.[1];
  if (pmcid) out.push(`pmcid:${pmcid.toUpperCase()}`);
  const mag = numeric(ids.mag);
  if (mag !== undefined) out.push(`mag:${mag}`);
  return out;
}

function topConcepts(w: JsonObject): string[] {
  const scored: Array<{ name: string; score: number }> = [];
  for (const c of [...arr(w.concepts), ...arr(w.topics)]) {
    if (!isObject(c)) continue;
    const name = str(c.display_name);
    if (name) scored.push({ name, score: num(c.score) ?? 0 });
  }
  scored.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: string[] = [];
  const seen = new Set<string>();
  for (const { name } of scored) {
    const s = slug(name);
    if (!s || seen.has(s)) continue;
    seen.add(s);
    out.push(name);
    if (out.length === 5) break;
  }
  return out;
}

function workToPlan(w: JsonObject, ref: string): RecordPlan {
  const ids = isObject(w.ids) ? w.ids : {};
  const oaUrl = str(w.id) ?? str(ids.openalex);
  const doi = str(w.doi) ?? str(ids.doi);
  const title = str(w.display_name) ?? str(w.title) ?? "";
  const identity = paperIdentity([arxivIdOf(w), doi, oaUrl], title);
  const label = oaUrl ?? ref;
  if (!identity) return { skip: "work has no DOI, OpenAlex id, arXiv id or title", ref: label };
  if (w.is_retracted === true)
    return { deprecation: { id: identity.id, reason: "retracted (OpenAlex is_retracted)" }, ref: label };

  const entities: EntityInput[] = [withAliases(identity.entity, extraIdAliases(ids))];
  const venue =
    isObject(w.primary_location) && isObject(w.primary_location.source)
      ? str(w.primary_location.source.display_name)
      : undefined;
  if (venue) entities.push({ type: "venue", name: venue });
  const concepts = topConcepts(w);
  for (const c of concepts) entities.push({ type: "concept", name: c });
  const authors: string[] = [];
  for (const a of arr(w.authorships)) {
    if (!isObject(a)) continue;
    const author = isObject(a.author) ? a.author : {};
    const name = str(author.display_name) ?? str(a.raw_author_name);
    if (name) addAuthor(authors, entities, name, str(author.orcid));
  }

  const edges: EdgeInput[] = [];
  const own = new Set(identity.ids);
  for (const r of arr(w.referenced_works)) {
    const target = typeof r === "string" ? paperTarget(r) : null;
    if (target && !own.has(target)) edges.push({ type: "cites", target });
  }

  const year = num(w.publication_year);
  const type = str(w.type);
  const abstract = reconstructAbstract(w.abstract_inverted_index);
  const lines = paperHeader(title || identity.id, authors, venue, year);
  if (type) lines.push(`Type: ${type}`);
  if (concepts.length) lines.push(`Topics: ${concepts.join(", ")}`);

  return {
    ref: label,
    citations: num(w.cited_by_count),
    artifact: paperArtifact(
      { id: identity.id, title: title || identity.id, header: lines, abstract },
      {
        entities,
        boundaries: [...yearBoundary(year), ...(type ? [`type:${type}`] : [])],
        edges,
        ...(oaUrl ? { source: oaUrl } : doi ? { source: doi } : {}),
      },
    ),
  };
}

/**
 * Turn an OpenAlex `/works` response (list or single work) into an ImportPlan: one `paper` artifact per
 * work (identity arXiv > DOI > OpenAlex, all id forms as aliases; authors with ORCID aliases; venue; top 5
 * concepts/topics by score; `referenced_works` as `cites` edges to `openalex:W…`; boundaries `year:`,
 * `type:`), retracted works (`is_retracted`) as deprecations only. `related_works` is ignored (OpenAlex's
 * algorithmic suggestions, not a relation stated by the work).
 */
export function parseOpenAlexWorks(json: string): Result<ImportPlan> {
  const parsed = jsonObjectBody(json, "OpenAlex", "pass the body of GET /works or /works/{id}");
  if (!parsed.ok) return parsed;
  const body = parsed.value;
  if (str(body.error) && !Array.isArray(body.results))
    return fail(
      "validation",
      `OpenAlex API error: ${str(body.error)}${str(body.message) ? `: ${str(body.message)}` : ""}`,
      "query",
      "fix the OpenAlex filter/search (see https://docs.openalex.org/api-entities/works/filter-works)",
    );
  let works: unknown[];
  if (Array.isArray(body.results)) works = body.results;
  else if (str(body.id) && SINGLE_WORK_RE.test(str(body.id) ?? "")) works = [body];
  else
    return fail(
      "validation",
      "OpenAlex response has neither `results` (a /works list) nor a work `id`",
      "body",
      "pass the body of GET https://api.openalex.org/works?... or /works/W…",
    );
  // `cited_by_count` becomes the chunk's `citations` annotation (op set).
  return ok(recordsPlan(works, "results", "work is not an object", workToPlan));
}

function checkOpenAlexQuery(query: string): { message: string; hint: string } | null {
  return checkPairs(
    query,
    "OpenAlex",
    (k) => k === "filter" || k === "search",
    "use `filter=...`, `search=...` or both joined by `&` (paging, sorting and mailto are set by PaperGuru)",
  );
}

/** The openalex source: a works list or a single work of the OpenAlex API. */
export const openalexSource = scholarlySource({
  kind: "openalex",
  base: OPENALEX_API,
  example: "`filter=concepts.id:C41008148&search=long-term memory`",
  query: checkOpenAlexQuery,
  rateLimit: {
    minIntervalMs: 100,
    note: "OpenAlex: 100,000 calls/day, max 10 requests/second, polite pool with mailto (credit-based with API keys from Feb 2026; 100 req/s ceiling)",
  },
  request: (spec, cond, { mailto }) => openalexRequest(spec, cond, { mailto }),
  parse: (body) => parseOpenAlexWorks(body),
});
