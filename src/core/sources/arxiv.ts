/**
 * arXiv API (https://info.arxiv.org/help/api/user-manual.html): request builder and Atom feed parser.
 * One entry = the latest version of one e-print. Its chunk id comes from paperIdentity (arXiv id without
 * version), so a new arXiv version (vN, with a later <updated>) arrives as a new chunk version of the same
 * chunk, valid from the time arXiv announced it.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { fail, ok, type Result } from "../errors";
import { finishPlan, isObject, parseTime } from "../formats/common";
import { paperIdentity } from "../formats/paper";
import { emptyPlan, type ImportPlan } from "../formats/types";
import { arxivVersion, canonicalPaperId } from "../ids";
import { paperRecord, yearBoundary } from "./scholarly";
import {
  ARXIV_FIELDS,
  ARXIV_HTTP_HOSTS,
  arxivIdList,
  clampInt,
  conditionalHeaders,
  type RequestBuilder,
  scholarlySource,
} from "./types";

/** The documented endpoint is http://export.arxiv.org/api/query; https is served too and keeps the feed intact in transit. */
export const ARXIV_API = "https://export.arxiv.org/api/query";

/**
 * GET request for the newest matching e-prints (sorted by last update, so a scheduled run sees new
 * versions first). `query` is an arXiv search_query (`cat:cs.CL AND ti:memory`) or an id list
 * (`id:2405.14831,2312.10997` -> id_list). max_results defaults to 50 (arXiv serves at most 2,000 per call).
 */
export const arxivRequest: RequestBuilder<{ maxResults?: number }> = (spec, cond = {}, opts = {}) => {
  const base = spec.location.trim() || ARXIV_API;
  const params = new URLSearchParams();
  const ids = arxivIdList(spec.query);
  if (ids) params.set("id_list", ids.join(","));
  else params.set("search_query", spec.query.trim().replace(/^search_query=/i, ""));
  params.set("sortBy", "lastUpdatedDate");
  params.set("sortOrder", "descending");
  params.set("max_results", String(clampInt(opts.maxResults, 50, 1, 2000)));
  return {
    url: `${base}${base.includes("?") ? "&" : "?"}${params.toString()}`,
    headers: conditionalHeaders(cond, { Accept: "application/atom+xml" }),
  };
};

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  // arxiv:doi, arxiv:comment, opensearch:totalResults ... -> doi, comment, totalResults: the prefix a feed
  // binds to a namespace is not fixed, the local names are.
  removeNSPrefix: true,
  // Keep every value a string: ids like 2405.14831 and titles like "1984" must not become numbers.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => name === "entry" || name === "author" || name === "link" || name === "category",
});

/** Text of an element that may carry attributes (then fast-xml-parser puts the text under #text). */
function text(v: unknown): string {
  if (typeof v === "string") return v.replace(/\s+/g, " ").trim();
  if (typeof v === "number") return String(v);
  if (isObject(v)) return text(v["#text"]);
  return "";
}

function attr(v: unknown, name: string): string {
  return isObject(v) ? text(v[`@_${name}`]) : "";
}

const WITHDRAWN_ABSTRACT =
  /\b(?:paper|article|submission|manuscript|preprint|version|work)\s+(?:has\s+been|is|was)\s+withdrawn\b/i;

/**
 * Turn an arXiv API Atom feed into an ImportPlan: one `paper` artifact per e-print (valid from its
 * <updated> time, source = the versioned abs URL), withdrawn e-prints as deprecations, an arXiv error feed
 * (one entry titled "Error") or non-Atom input as a validation failure. `opts.source` names the feed in
 * messages (e.g. the request URL).
 */
export function parseArxivFeed(xml: string, opts: { source?: string } = {}): Result<ImportPlan> {
  const from = opts.source ? ` (${opts.source})` : "";
  if (typeof xml !== "string" || !xml.trim())
    return fail(
      "validation",
      `arXiv response${from} is empty`,
      "body",
      "pass the Atom XML body of the arXiv API response",
    );
  // arXiv feeds never declare a DTD; refusing one rules out entity-expansion tricks on fetched input.
  if (/<!DOCTYPE|<!ENTITY/i.test(xml))
    return fail(
      "validation",
      `arXiv response${from} declares a DTD`,
      "body",
      "arXiv API feeds have no DOCTYPE; check the URL fetched",
    );
  let doc: unknown;
  try {
    const valid = XMLValidator.validate(xml);
    if (valid !== true)
      return fail(
        "validation",
        `arXiv response${from} is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`,
        "body",
        "pass the raw Atom body (HTTP 200) of export.arxiv.org/api/query",
      );
    doc = parser.parse(xml);
  } catch (e) {
    return fail(
      "validation",
      `arXiv response${from} could not be parsed: ${String(e)}`,
      "body",
      "pass the raw Atom body",
    );
  }
  const feed = isObject(doc) ? doc.feed : undefined;
  if (!isObject(feed))
    return fail(
      "validation",
      `arXiv response${from} is not an Atom <feed>`,
      "body",
      "pass the Atom body of export.arxiv.org/api/query",
    );
  const entries = Array.isArray(feed.entry) ? feed.entry : [];

  // The API reports bad queries as a feed with a single entry titled "Error" whose summary is the message.
  for (const e of entries) {
    if (isObject(e) && text(e.title) === "Error" && /\/api\/errors/.test(text(e.id)))
      return fail(
        "validation",
        `arXiv API error${from}: ${text(e.summary) || text(e.id)}`,
        "query",
        "fix the arXiv query: search_query like `cat:cs.CL AND ti:memory`, or id_list of valid arXiv ids",
      );
  }

  const { artifacts, deprecations, skipped } = emptyPlan();
  for (const [i, e] of entries.entries()) {
    const ref = `entry ${i}`;
    if (!isObject(e)) {
      skipped.push({ ref, reason: "entry is not an element" });
      continue;
    }
    const idUrl = text(e.id);
    const arxivId = canonicalPaperId(idUrl);
    if (!arxivId?.startsWith("arxiv:")) {
      skipped.push({ ref: idUrl || ref, reason: "entry <id> is not an arXiv abs URL" });
      continue;
    }
    const version = arxivVersion(idUrl);
    const vTag = version ? `v${version}` : "";
    const title = text(e.title);
    const abstract = text(e.summary);
    const comment = text(e.comment);
    const journalRef = text(e.journal_ref);
    const doi = text(e.doi);
    const updated = parseTime(text(e.updated));
    const published = parseTime(text(e.published));

    const identity = paperIdentity([idUrl, doi ? `doi:${doi}` : null], title);
    if (!identity) {
      skipped.push({ ref: idUrl, reason: "entry has neither a usable id nor a title" });
      continue;
    }

    if (/\bwithdrawn\b/i.test(comment) || WITHDRAWN_ABSTRACT.test(abstract)) {
      deprecations.push({
        id: identity.id,
        ...(updated !== undefined ? { at: updated } : {}),
        reason: `withdrawn on arXiv${vTag ? ` (${vTag})` : ""}: ${comment || abstract}`,
      });
      continue;
    }

    const authors = (Array.isArray(e.author) ? e.author : [])
      .map((a) => (isObject(a) ? text(a.name) : text(a)))
      .filter(Boolean);
    const primary = attr(e.primary_category, "term");
    const categories = [
      ...new Set(
        [primary, ...(Array.isArray(e.category) ? e.category : []).map((c) => attr(c, "term"))].filter(Boolean),
      ),
    ];

    const lines: string[] = [];
    if (categories.length) lines.push(`Categories: ${categories.join(", ")}`);
    if (vTag) lines.push(`arXiv version: ${vTag}`);
    if (comment) lines.push(`Comment: ${comment}`);
    if (journalRef) lines.push(`Journal reference: ${journalRef}`);
    const year = published !== undefined ? new Date(published).getUTCFullYear() : undefined;
    artifacts.push(
      paperRecord({
        identity,
        title: title || identity.id,
        authors,
        // "arXiv cs.CL" -> concept:arxiv-cs-cl; the bare code and the arxiv-cat: form resolve to it.
        entities: primary
          ? [{ type: "concept", name: `arXiv ${primary}`, aliases: [primary, `arxiv-cat:${primary}`] }]
          : [],
        lines,
        abstract,
        // The year boundary comes last here, after the version and the categories.
        boundaries: [
          ...(vTag ? [`arxiv-version:${vTag}`] : []),
          ...categories.map((c) => `category:${c.toLowerCase()}`),
          ...yearBoundary(year),
        ],
        valid_from: updated,
        source: idUrl,
      }),
    );
  }
  return ok(finishPlan(artifacts, deprecations, skipped));
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

/** The arxiv source: an arXiv API search_query or id list over the Atom feed. */
export const arxivSource = scholarlySource({
  kind: "arxiv",
  base: ARXIV_API,
  example: "`cat:cs.CL AND ti:memory` or `id:2405.14831`",
  allowHttpHosts: ARXIV_HTTP_HOSTS,
  query: checkArxivQuery,
  rateLimit: {
    minIntervalMs: 3_000,
    note: "arXiv API Terms of Use: at most 1 request every 3 seconds, single connection at a time",
  },
  request: (spec, cond) => arxivRequest(spec, cond),
  parse: (body, { source }) => parseArxivFeed(body, { source }),
});
