/**
 * Semantic Scholar Academic Graph API (https://api.semanticscholar.org/api-docs/graph): request builder
 * and parser for paper relevance search (`GET /graph/v1/paper/search?query=…&fields=…&limit=…`, answered
 * `{total, offset, next?, data: [paper]}`) and one paper (`GET /graph/v1/paper/{paper_id}?fields=…`, a
 * paper object; paper_id: the S2 sha, `CorpusId:<n>`, `DOI:<doi>`, `ARXIV:<id>`, `PMID:`, `ACL:`, `MAG:`,
 * `URL:<url>`).
 *
 * Paper fields used: `paperId`, `externalIds` {DOI, ArXiv, CorpusId, DBLP, PubMed, MAG, ACL}, `title`,
 * `abstract`, `venue`, `year`, `publicationDate`, `authors` [{authorId, name}], `citationCount`,
 * `isOpenAccess`, `url`, `references` [{paperId, externalIds}] (the one-paper endpoint; search omits
 * references, which the API does not return there). `citationCount` becomes the paper chunk's
 * `citations` annotation (op set). No valid_from (see openalex.ts): ingest time is monotone.
 */
import { fail, ok, type Result } from "../errors";
import { arr, isObject, type JsonObject, num, str } from "../formats/common";
import { paperIdentity } from "../formats/paper";
import type { ImportPlan } from "../formats/types";
import type { EdgeInput, EntityInput } from "../ingest";
import {
  addAuthor,
  apiBase,
  jsonHeaders,
  jsonObjectBody,
  numeric,
  type RecordPlan,
  recordsPlan,
  withAliases,
  yearBoundary,
} from "./scholarly";
import {
  type ConditionalHeaders,
  clampInt,
  type HttpRequestSpec,
  paperArtifact,
  paperHeader,
  paperTarget,
  type SourceSpec,
  scholarlySource,
} from "./types";

export const SEMANTIC_SCHOLAR_API = "https://api.semanticscholar.org/graph/v1";

/** What the parser reads; references only on the one-paper endpoint (search does not return them). */
export const S2_FIELDS =
  "paperId,externalIds,title,abstract,venue,year,publicationDate,authors,citationCount,isOpenAccess,url";
export const S2_PAPER_FIELDS = `${S2_FIELDS},references.paperId,references.externalIds`;

/** A paper id the API takes on /paper/{id}: a 40-hex sha or a prefixed external id. */
const PAPER_ID_RE = /^(?:[0-9a-f]{40}|(?:CorpusId|DOI|ARXIV|MAG|ACL|PMID|PMCID|URL):\S+)$/i;

/**
 * GET request for Semantic Scholar. `query`: one paper id (`CorpusId:215416146`, `DOI:10.18653/v1/…`,
 * `ARXIV:2405.14831`, a 40-hex sha) -> `/paper/{id}` with references; anything else is search text ->
 * `/paper/search` (`limit` default 50, the API's maximum 100). `apiKey` goes in `x-api-key`.
 */
export function semanticScholarRequest(
  spec: SourceSpec,
  cond: ConditionalHeaders = {},
  opts: { limit?: number; apiKey?: string } = {},
): HttpRequestSpec {
  const base = apiBase(spec, SEMANTIC_SCHOLAR_API);
  const headers = jsonHeaders(cond, opts.apiKey ? { "x-api-key": opts.apiKey } : {});
  const q = spec.query.trim();
  if (PAPER_ID_RE.test(q)) {
    // The id stays readable (':' and '/' are path-safe in the API's own examples); the rest is escaped.
    const id = encodeURIComponent(q).replace(/%3A/gi, ":").replace(/%2F/gi, "/");
    return { url: `${base}/paper/${id}?fields=${encodeURIComponent(S2_PAPER_FIELDS)}`, headers };
  }
  const params = new URLSearchParams({
    query: q,
    fields: S2_FIELDS,
    limit: String(clampInt(opts.limit, 50, 1, 100)),
  });
  return { url: `${base}/paper/search?${params.toString()}`, headers };
}

function refTarget(r: unknown): string | null {
  if (!isObject(r)) return null;
  const x = isObject(r.externalIds) ? r.externalIds : {};
  for (const raw of [str(x.ArXiv) ? `arXiv:${str(x.ArXiv)}` : undefined, str(x.DOI)]) {
    const t = raw ? paperTarget(raw) : null;
    if (t) return t;
  }
  return null;
}

function paperToPlan(p: JsonObject, ref: string): RecordPlan {
  const x = isObject(p.externalIds) ? p.externalIds : {};
  const title = str(p.title) ?? "";
  const arxiv = str(x.ArXiv);
  const identity = paperIdentity([arxiv ? `arXiv:${arxiv}` : undefined, str(x.DOI)], title);
  const label = str(p.paperId) ? `s2:${str(p.paperId)}` : ref;
  if (!identity) return { skip: "paper has no DOI, arXiv id or title", ref: label };

  // Other ids as aliases of the paper entity (resolvable mentions; dedup across sources by DOI/title).
  const aliases: string[] = [];
  const corpus = numeric(x.CorpusId);
  if (corpus !== undefined) aliases.push(`CorpusId:${corpus}`);
  if (str(p.paperId)) aliases.push(`s2:${str(p.paperId)}`);
  if (str(x.DBLP)) aliases.push(`dblp:${str(x.DBLP)}`);
  if (str(x.PubMed)) aliases.push(`pmid:${str(x.PubMed)}`);
  const entities: EntityInput[] = [withAliases(identity.entity, aliases)];
  const venue = str(p.venue);
  if (venue) entities.push({ type: "venue", name: venue });
  const authors: string[] = [];
  for (const a of arr(p.authors)) {
    const name = isObject(a) ? str(a.name) : undefined;
    if (name) addAuthor(authors, entities, name);
  }
  const edges: EdgeInput[] = [];
  const own = new Set(identity.ids);
  for (const r of arr(p.references)) {
    const t = refTarget(r);
    if (t && !own.has(t)) edges.push({ type: "cites", target: t });
  }
  const year = num(p.year);
  const citations = num(p.citationCount);
  const lines = paperHeader(title || identity.id, authors, venue, year);
  if (citations !== undefined) lines.push(`Citations: ${citations}`);
  if (p.isOpenAccess === true) lines.push("Open access: yes");
  const source = str(p.url) ?? (str(p.paperId) ? `https://www.semanticscholar.org/paper/${str(p.paperId)}` : undefined);
  return {
    ref: label,
    citations,
    artifact: paperArtifact(
      { id: identity.id, title: title || identity.id, header: lines, abstract: str(p.abstract) ?? "" },
      {
        entities,
        boundaries: [
          ...yearBoundary(year),
          ...(p.isOpenAccess === true ? ["open-access"] : []),
          "source:semanticscholar",
        ],
        edges,
        ...(source ? { source } : {}),
      },
    ),
  };
}

/**
 * A Semantic Scholar response (search list or one paper) as an ImportPlan: one `paper` artifact per
 * paper (identity arXiv > DOI > title; CorpusId, S2 sha, DBLP key and PubMed id as aliases; authors;
 * venue; references with an arXiv id or DOI as `cites` edges; boundaries `year:`, `open-access`,
 * `source:semanticscholar`) and a `citations` annotation from `citationCount`.
 */
export function parseSemanticScholar(json: string): Result<ImportPlan> {
  const parsed = jsonObjectBody(json, "Semantic Scholar", "pass the body of /paper/search or /paper/{id}");
  if (!parsed.ok) return parsed;
  const body = parsed.value;
  let papers: unknown[];
  if (Array.isArray(body.data)) papers = body.data;
  else if (str(body.paperId) || str(body.title)) papers = [body];
  else
    return fail(
      "validation",
      `Semantic Scholar API error: ${str(body.error) ?? str(body.message) ?? "the response has neither data (a search) nor a paperId"}`,
      "query",
      "check the query: search text, or a paper id such as ARXIV:2405.14831 or CorpusId:215416146",
    );
  return ok(recordsPlan(papers, "data", "paper is not an object", paperToPlan));
}

/** The semanticscholar source: a paper search or a single paper of the Academic Graph API. */
export const semanticScholarSource = scholarlySource({
  kind: "semanticscholar",
  base: SEMANTIC_SCHOLAR_API,
  example: "`long-term memory for LLM agents` or `ARXIV:2405.14831`",
  query: (q) =>
    /^(?:CorpusId|DOI|ARXIV|MAG|ACL|PMID|PMCID|URL):\s*$/i.test(q)
      ? { message: "Semantic Scholar paper id has no value", hint: "e.g. `ARXIV:2405.14831`" }
      : null,
  rateLimit: {
    minIntervalMs: 1_000,
    note: "Semantic Scholar Academic Graph API: unauthenticated requests share one pool (5,000 per 5 minutes), an API key starts at 1 request/second; paced at 1/s; obey 429",
  },
  request: (spec, cond) => semanticScholarRequest(spec, cond),
  parse: (body) => parseSemanticScholar(body),
});
