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
import { apiBase, jsonHeaders, jsonObjectBody, numeric, paperRecord, type RecordPlan, recordsPlan } from "./scholarly";
import { clampInt, type RequestBuilder, scholarlySource } from "./types";

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
export const semanticScholarRequest: RequestBuilder<{ limit?: number; apiKey?: string }> = (
  spec,
  cond = {},
  opts = {},
) => {
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
};

/** A reference's candidate ids for paperRecord: its arXiv id, then its DOI. */
function refIds(r: unknown): Array<string | undefined> {
  const x = isObject(r) && isObject(r.externalIds) ? r.externalIds : {};
  return [str(x.ArXiv) ? `arXiv:${str(x.ArXiv)}` : undefined, str(x.DOI)];
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
  const citations = num(p.citationCount);
  const lines: string[] = [];
  if (citations !== undefined) lines.push(`Citations: ${citations}`);
  if (p.isOpenAccess === true) lines.push("Open access: yes");
  const venue = str(p.venue);
  return {
    ref: label,
    citations,
    artifact: paperRecord({
      identity,
      title: title || identity.id,
      aliases,
      authors: arr(p.authors)
        .map((a) => (isObject(a) ? str(a.name) : undefined))
        .filter((name): name is string => !!name),
      venues: venue ? [venue] : [],
      year: num(p.year),
      lines,
      abstract: str(p.abstract) ?? "",
      boundaries: [...(p.isOpenAccess === true ? ["open-access"] : []), "source:semanticscholar"],
      cites: arr(p.references).map(refIds),
      source: str(p.url) ?? (str(p.paperId) ? `https://www.semanticscholar.org/paper/${str(p.paperId)}` : undefined),
    }),
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
