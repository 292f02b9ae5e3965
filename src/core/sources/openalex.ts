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
import {
  jsonObjectBody,
  numeric,
  type PaperAuthor,
  paperRecord,
  type RecordPlan,
  recordsPlan,
  worksRequest,
} from "./scholarly";
import { checkPairs, clampInt, doiPath, type RequestBuilder, scholarlySource } from "./types";

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
export const openalexRequest: RequestBuilder<{ mailto?: string; perPage?: number; apiKey?: string }> = (
  spec,
  cond = {},
  opts = {},
) => {
  return worksRequest(spec, cond, {
    base: OPENALEX_API,
    single: (q) => {
      const single = SINGLE_WORK_RE.exec(q)?.[1];
      if (single) return single.toUpperCase();
      // OpenAlex takes a DOI as /works/doi:10.x/y (https://docs.openalex.org/how-to-use-the-api/get-single-entities).
      const doi = canonicalPaperId(q);
      return doi?.startsWith("doi:") ? `doi:${doiPath(doi.slice(4))}` : null;
    },
    bareFilter: BARE_FILTER_RE,
    textKey: "search",
    list: { sort: "updated_date:desc", "per-page": String(clampInt(opts.perPage, 50, 1, 200)) },
    always: { mailto: opts.mailto, api_key: opts.apiKey },
  });
};

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

  const venue =
    isObject(w.primary_location) && isObject(w.primary_location.source)
      ? str(w.primary_location.source.display_name)
      : undefined;
  const concepts = topConcepts(w);
  const authors: PaperAuthor[] = [];
  for (const a of arr(w.authorships)) {
    if (!isObject(a)) continue;
    const author = isObject(a.author) ? a.author : {};
    const name = str(author.display_name) ?? str(a.raw_author_name);
    if (name) authors.push({ name, orcid: str(author.orcid) });
  }
  const type = str(w.type);
  return {
    ref: label,
    citations: num(w.cited_by_count),
    artifact: paperRecord({
      identity,
      title: title || identity.id,
      aliases: extraIdAliases(ids),
      authors,
      venues: venue ? [venue] : [],
      entities: concepts.map((name) => ({ type: "concept", name })),
      year: num(w.publication_year),
      lines: [...(type ? [`Type: ${type}`] : []), ...(concepts.length ? [`Topics: ${concepts.join(", ")}`] : [])],
      abstract: reconstructAbstract(w.abstract_inverted_index),
      boundaries: type ? [`type:${type}`] : [],
      cites: arr(w.referenced_works).map((r) => [typeof r === "string" ? r : undefined]),
      source: oaUrl ?? doi,
    }),
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
