/**
 * DBLP publication search API (https://dblp.org/faq/How+to+use+the+dblp+search+API.html): request builder
 * and parser for `GET https://dblp.org/search/publ/api?q=…&format=json&h=…`, answered
 * `{result: {query, status: {"@code", text}, hits: {"@total", "@sent", hit: [{"@score", "@id", info,
 * url}]}}}`. `info`: `authors.author` (one object or an array of `{"@pid", text}`), `title` (ending in a
 * period), `venue` (a string or an array), `year`, `type` ("Conference and Workshop Papers", "Journal
 * Articles", "Informal and Other Publications", ...), `key` (the dblp record key), `doi`, `ee` (electronic
 * editions: a string or an array of URLs), `url` (the record page).
 *
 * DBLP has no abstracts and no citation counts: a record is its header (title, authors, venue, year,
 * type). The dblp key is an alias of the paper entity (`dblp:conf/nips/GutierrezSGYS24`).
 */
import { fail, ok, type Result } from "../errors";
import { isObject, type JsonObject, parseJsonText, str } from "../formats/common";
import { paperIdentity } from "../formats/paper";
import type { ImportPlan } from "../formats/types";
import { slug } from "../ids";
import { apiBase, jsonHeaders, numeric, paperRecord, type RecordPlan, recordsPlan } from "./scholarly";
import { clampInt, type RequestBuilder, scholarlySource } from "./types";

export const DBLP_API = "https://dblp.org/search/publ/api";

/** GET request for DBLP: `query` is the search text (DBLP's own syntax: words, `author:`, `venue:`, `year:`…); `h` default 100 (max 1000). */
export const dblpRequest: RequestBuilder<{ hits?: number }> = (spec, cond = {}, opts = {}) => {
  const base = apiBase(spec, DBLP_API);
  const params = new URLSearchParams({
    q: spec.query.trim(),
    format: "json",
    h: String(clampInt(opts.hits, 100, 1, 1000)),
  });
  return { url: `${base}?${params.toString()}`, headers: jsonHeaders(cond) };
};

/** A string or the `text` of an object (DBLP's JSON writes XML text nodes so). */
function text(v: unknown): string | undefined {
  return str(v) ?? (isObject(v) ? str(v.text) : undefined);
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

/** The non-empty texts of a value given as one item or an array. */
const texts = (v: unknown): string[] => list(v).flatMap((x) => text(x) ?? []);

/** DBLP disambiguates homonyms with a 4-digit suffix ("Wei Wang 0001"): not part of the name. */
const personName = (s: string) => s.replace(/\s+\d{4}$/, "").trim();

function hitToPlan(info: JsonObject, ref: string): RecordPlan {
  const title = (text(info.title) ?? "").replace(/\.\s*$/, "").trim();
  const key = str(info.key);
  const ees = texts(info.ee);
  const arxivEe = ees.map((u) => /arxiv\.org\/(?:abs|pdf)\/([^?#\s]+?)(?:\.pdf)?$/i.exec(u)?.[1]).find(Boolean);
  const identity = paperIdentity(
    [arxivEe ? `arXiv:${arxivEe}` : undefined, str(info.doi), ...ees.filter((u) => /doi\.org\//i.test(u))],
    title,
  );
  const label = key ? `dblp:${key}` : ref;
  if (!identity) return { skip: "record has no DOI, arXiv id or title", ref: label };
  const type = str(info.type);
  return {
    ref: label,
    artifact: paperRecord({
      identity,
      title: title || identity.id,
      aliases: key ? [`dblp:${key}`] : [],
      authors: texts(isObject(info.authors) ? info.authors.author : undefined).map(personName),
      venues: texts(info.venue),
      year: numeric(info.year),
      lines: [...(type ? [`Type: ${type}`] : []), ...(key ? [`DBLP: ${key}`] : [])],
      boundaries: [...(type ? [`type:${slug(type)}`] : []), "source:dblp"],
      source: str(info.url) ?? (key ? `https://dblp.org/rec/${key}` : undefined),
    }),
  };
}

/**
 * A DBLP search response as an ImportPlan: one `paper` artifact per hit (identity arXiv (from `ee`) > DOI >
 * title; the dblp key as an alias; authors without DBLP's homonym numbers; venues; boundaries `year:`,
 * `type:`, `source:dblp`).
 */
export function parseDblp(json: string): Result<ImportPlan> {
  const parsed = parseJsonText(json, "DBLP");
  if (!parsed.ok) return parsed;
  const body = parsed.value;
  const result = isObject(body) && isObject(body.result) ? body.result : null;
  if (!result)
    return fail(
      "validation",
      "DBLP response has no `result` object",
      "body",
      "pass the body of /search/publ/api?format=json",
    );
  const status = isObject(result.status) ? result.status : {};
  const code = str(status["@code"]);
  if (code && code !== "200")
    return fail("validation", `DBLP API error ${code}: ${text(status) ?? ""}`.trim(), "query", "check the DBLP query");
  const hits = isObject(result.hits) ? list(result.hits.hit) : [];
  const infos = hits.map((h) => (isObject(h) && isObject(h.info) ? h.info : null));
  return ok(recordsPlan(infos, "hits", "hit has no info object", hitToPlan));
}

/** The dblp source: a publication search of the dblp API. */
export const dblpSource = scholarlySource({
  kind: "dblp",
  base: DBLP_API,
  example: "`retrieval augmented generation year:2024`",
  rateLimit: {
    minIntervalMs: 1_000,
    note: "dblp search API: no published number; it answers bursts with 429 and Retry-After; 1 request/second courtesy default",
  },
  request: (spec, cond) => dblpRequest(spec, cond),
  parse: (body) => parseDblp(body),
});
