/**
 * Crossref REST API (https://api.crossref.org/swagger-ui/index.html): request builder and parser for
 * `/works` (`{status, "message-type": "work-list", message: {items: [...]}}`) and `/works/{doi}`
 * (`"message-type": "work"`).
 *
 * Field names used (Crossref work JSON): `DOI`, `title` (array), `author` [{given, family, name, ORCID}],
 * `container-title` (array), `issued` {"date-parts": [[y, m, d]]}, `abstract` (JATS XML), `type`, `URL`,
 * `reference` [{key, DOI?, unstructured?}], `relation` {"<relation-type>": [{"id-type", id, "asserted-by"}]},
 * and the Crossmark update metadata: `update-to` on a notice and `updated-by` on the original record, both
 * [{DOI, type, source, updated: {"date-parts", "date-time", timestamp}}] (type: retraction, withdrawal,
 * removal, correction, erratum, corrigendum, expression_of_concern, partial_retraction, addendum, ...;
 * source: "publisher" or "retraction-watch"). See crossref.gitlab.io/tutorials/get-rw-metadata and
 * www.crossref.org/documentation/crossmark/crossmark-registering-updates.
 *
 * No valid_from: Crossref's `indexed`/`deposited` times are bookkeeping, `issued` may predate versions other
 * sources already hold for the same chunk; ingest time is monotone (see openalex.ts).
 */
import { fail, ok, type Result } from "../errors";
import { arr, isObject, type JsonObject, LIMITS, num, parseTime, str } from "../formats/common";
import { type PaperIdentity, paperIdentity } from "../formats/paper";
import type { Deprecation, ImportPlan, PlanAnnotation } from "../formats/types";
import { canonicalPaperId } from "../ids";
import type { ArtifactInput } from "../ingest";
import {
  annotatedPlan,
  jsonObjectBody,
  type PaperAuthor,
  paperRecord,
  paperTarget,
  worksRequest,
  yearBoundary,
} from "./scholarly";
import { checkPairs, clampInt, doiPath, queryPairs, type RequestBuilder, scholarlySource } from "./types";

export const CROSSREF_API = "https://api.crossref.org";

const BARE_FILTER_RE = /^[a-z][a-z.-]*:[^\s,][^,]*(?:,[a-z][a-z.-]*:[^\s,][^,]*)*$/i;

/**
 * GET request for Crossref works. Accepted `query` forms: `query=<text>`, `query.<field>=<text>`
 * (e.g. `query.bibliographic`), `filter=<filters>` joined by `&`; a bare filter
 * (`from-update-date:2024-01-01,type:journal-article`); a single DOI (`10.1145/3397271.3401075`,
 * `doi:…`, `https://doi.org/…`) -> `/works/{doi}`; anything else is `query` text. Lists: `rows` (default 50,
 * Crossref's maximum 1000), `sort=updated&order=desc`. `mailto` joins the polite pool (also sent in the
 * User-Agent, as Crossref's etiquette asks).
 */
export const crossrefRequest: RequestBuilder<{ mailto?: string; rows?: number }> = (spec, cond = {}, opts = {}) => {
  return worksRequest(spec, cond, {
    base: CROSSREF_API,
    headers: opts.mailto ? { "User-Agent": `PaperGuru/1.0 (mailto:${opts.mailto})` } : {},
    single: (q) => {
      const doi = queryPairs(q) || /\s/.test(q) ? null : canonicalPaperId(q);
      return doi?.startsWith("doi:") ? doiPath(doi.slice(4)) : null;
    },
    bareFilter: BARE_FILTER_RE,
    textKey: "query",
    list: { rows: String(clampInt(opts.rows, 50, 1, 1000)), sort: "updated", order: "desc" },
    always: { mailto: opts.mailto },
  });
};

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

/** Crossref abstracts are JATS XML (`<jats:p>…</jats:p>`); keep the words, drop the markup. */
export function jatsToText(jats: string): string {
  return decodeEntities(jats.replace(/<[^>]*>/g, " "))
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^abstract\s*[:.]?\s+/i, "");
}

function firstString(v: unknown): string | undefined {
  for (const x of arr(v)) {
    const s = str(x);
    if (s) return s;
  }
  return str(v);
}

function dateParts(v: unknown): number[] {
  if (!isObject(v)) return [];
  const parts = arr(arr(v["date-parts"])[0]).filter((n): n is number => typeof n === "number" && Number.isInteger(n));
  return parts.slice(0, 3);
}

/** Epoch ms of a Crossref date object: `timestamp`, else `date-time`, else `date-parts` (UTC midnight). */
function crossrefTime(v: unknown): number | undefined {
  if (!isObject(v)) return undefined;
  const ts = num(v.timestamp);
  if (ts !== undefined) return ts;
  const dt = parseTime(str(v["date-time"]));
  if (dt !== undefined) return dt;
  const [y, m, d] = dateParts(v);
  return y !== undefined ? Date.UTC(y, (m ?? 1) - 1, d ?? 1) : undefined;
}

/** Relations that say two records are the same work (a preprint and its version of record). */
const SAME_WORK = ["is-identical-to", "has-preprint", "is-preprint-of", "has-version", "is-version-of"];

/**
 * arXiv ids this record is the same work as. Only arXiv ids join the identity: arXiv outranks DOIs in
 * paperIdentity, whereas two DOIs would be ordered alphabetically, which could let a preprint server's DOI
 * take over a journal article's chunk.
 */
function sameWorkArxiv(relation: unknown): string[] {
  if (!isObject(relation)) return [];
  const out: string[] = [];
  for (const key of SAME_WORK) {
    for (const r of arr(relation[key])) {
      if (!isObject(r)) continue;
      const id = str(r.id);
      const kind = str(r["id-type"])?.toLowerCase();
      if (!id) continue;
      const c =
        kind === "arxiv"
          ? canonicalPaperId(`arXiv:${id.replace(/^arxiv:/i, "")}`)
          : kind === "doi"
            ? canonicalPaperId(`doi:${id}`)
            : null;
      if (c?.startsWith("arxiv:") || c?.startsWith("doi:10.48550/arxiv.")) out.push(c);
    }
  }
  return out;
}

interface Update {
  doi: string;
  type: string;
  at: number | undefined;
}

function updates(v: unknown): Update[] {
  const out: Update[] = [];
  for (const u of arr(v)) {
    if (!isObject(u)) continue;
    const doi = canonicalPaperId(`doi:${str(u.DOI) ?? ""}`);
    if (!doi) continue;
    out.push({ doi, type: str(u.type) ?? str(u.label) ?? "update", at: crossrefTime(u.updated) });
  }
  return out;
}

function authorName(a: JsonObject): string | undefined {
  const given = str(a.given);
  const family = str(a.family);
  if (given || family) return [given, family].filter(Boolean).join(" ");
  return str(a.name);
}

/** The works an item cites, as paperRecord's candidate ids: its references' DOIs and its DOI relations of type references/cites. */
function citedDois(item: JsonObject): string[][] {
  const dois = arr(item.reference).map((r) => (isObject(r) ? str(r.DOI) : undefined));
  // Relations of type references/cites stated by the depositor; other relation types (reviews, comments,
  // supplements, datasets) have no matching edge type and are left out.
  const relation = isObject(item.relation) ? item.relation : {};
  for (const key of ["references", "cites"]) {
    for (const r of arr(relation[key])) {
      if (isObject(r) && str(r["id-type"])?.toLowerCase() === "doi") dois.push(str(r.id));
    }
  }
  return dois.map((doi) => (doi ? [`doi:${doi}`] : []));
}

/**
 * Turn a Crossref `/works` response into an ImportPlan: one `paper` artifact per item (DOI identity, or its
 * arXiv id when the record says it is the same work as an arXiv preprint), references with a DOI as `cites`
 * edges. Update notices (`update-to`) are artifacts of their own and deprecate their targets
 * ({id: target chunk, by: notice chunk, at: update date, reason: "<type> (Crossref update-to)"}); an
 * original record carrying `updated-by` yields the same deprecation of itself (and, being deprecated, no
 * artifact). A target that is in the same response is deprecated under that record's chunk id, otherwise
 * under `doi:<target>`.
 */
export function parseCrossrefWorks(json: string): Result<ImportPlan> {
  const parsed = jsonObjectBody(json, "Crossref", "pass the body of GET /works or /works/{doi}");
  if (!parsed.ok) return parsed;
  const body = parsed.value;
  const type = str(body["message-type"]);
  if (str(body.status) !== "ok") {
    const messages = arr(body.message)
      .map((m) => (isObject(m) ? str(m.message) : str(m)))
      .filter(Boolean);
    return fail(
      "validation",
      `Crossref API error (${str(body.status) ?? "no status"}${type ? `, ${type}` : ""})${messages.length ? `: ${messages.join("; ")}` : ""}`,
      "query",
      "fix the Crossref query/filter (see https://api.crossref.org/swagger-ui/index.html)",
    );
  }
  let items: unknown[];
  if (type === "work-list" && isObject(body.message) && Array.isArray(body.message.items)) items = body.message.items;
  else if (type === "work" && isObject(body.message)) items = [body.message];
  else
    return fail(
      "validation",
      `Crossref response has message-type ${JSON.stringify(type ?? null)}; expected "work-list" with message.items or "work"`,
      "body",
      "pass the body of GET https://api.crossref.org/works?... or /works/{doi}",
    );

  // `is-referenced-by-count` (Crossref's citation count) becomes the chunk's `citations` annotation.
  const annotations: PlanAnnotation[] = [];
  // First pass: identities, so a notice whose target is in the same response deprecates the right chunk.
  const rows: Array<{ item: JsonObject; doi: string; title: string; identity: PaperIdentity }> = [];
  const chunkOfDoi = new Map<string, string>();
  const skipped: ImportPlan["skipped"] = [];
  for (const [i, item] of items.entries()) {
    const ref = `message.items.${i}`;
    if (!isObject(item)) {
      skipped.push({ ref, reason: "item is not an object" });
      continue;
    }
    const doi = canonicalPaperId(`doi:${str(item.DOI) ?? ""}`);
    if (!doi) {
      skipped.push({ ref, reason: "item has no valid DOI" });
      continue;
    }
    if (doi.length > LIMITS.artifactId) {
      skipped.push({ ref: doi.slice(0, 200), reason: `DOI longer than ${LIMITS.artifactId} characters` });
      continue;
    }
    const title = firstString(item.title) ?? "";
    const identity = paperIdentity([doi, ...sameWorkArxiv(item.relation)], title);
    if (!identity) {
      skipped.push({ ref: doi, reason: "item has no usable identity" });
      continue;
    }
    chunkOfDoi.set(doi, identity.id);
    rows.push({ item, doi, title, identity });
  }

  const chunkOf = (doi: string) => chunkOfDoi.get(doi) ?? paperTarget(doi) ?? doi;
  const artifacts: ArtifactInput[] = [];
  const deprecations: Deprecation[] = [];
  for (const { item, doi, title, identity } of rows) {
    const id = identity.id;
    const updateTo = updates(item["update-to"]);
    for (const u of updateTo)
      deprecations.push({
        id: chunkOf(u.doi),
        by: id,
        ...(u.at !== undefined ? { at: u.at } : {}),
        reason: `${u.type} (Crossref update-to)`,
      });
    for (const u of updates(item["updated-by"]))
      deprecations.push({
        id,
        by: chunkOf(u.doi),
        ...(u.at !== undefined ? { at: u.at } : {}),
        reason: `${u.type} (Crossref updated-by)`,
      });

    const venue = firstString(item["container-title"]);
    const authors: PaperAuthor[] = [];
    for (const a of arr(item.author)) {
      if (!isObject(a)) continue;
      const name = authorName(a);
      if (name) authors.push({ name, orcid: str(a.ORCID) });
    }
    const [y, m, d] = dateParts(item.issued);
    const workType = str(item.type);
    const lines: string[] = [];
    if (y !== undefined)
      lines.push(
        `Issued: ${[y, m, d]
          .filter((x) => x !== undefined)
          .map((x, k) => (k ? String(x).padStart(2, "0") : String(x)))
          .join("-")}`,
      );
    if (workType) lines.push(`Type: ${workType}`);
    // Name the updated works in the notice's text: findIdentifiers grounds the notice to them.
    for (const u of updateTo) lines.push(`${u.type.replace(/_/g, " ")} of ${u.doi.slice(4)}`);
    const notice = updateTo[0] ? `${updateTo[0].type.replace(/_/g, " ")} of ${updateTo[0].doi.slice(4)}` : "";
    artifacts.push(
      paperRecord({
        identity,
        title: title || notice || doi.slice(4),
        heading: title || doi.slice(4),
        authors,
        venues: venue ? [venue] : [],
        lines,
        abstract: typeof item.abstract === "string" ? jatsToText(item.abstract) : "",
        // The year is in the Issued line, not a Year line.
        boundaries: [
          ...yearBoundary(y),
          ...(workType ? [`type:${workType}`] : []),
          ...updateTo.map((u) => `crossref-update:${u.type}`),
        ],
        cites: citedDois(item),
        source: str(item.URL) ?? `https://doi.org/${doi.slice(4)}`,
      }),
    );
    const cited = num(item["is-referenced-by-count"]);
    if (cited !== undefined && cited >= 0) annotations.push({ chunk: id, key: "citations", value: cited });
  }
  return ok(annotatedPlan(artifacts, deprecations, skipped, annotations));
}

function checkCrossrefQuery(query: string): { message: string; hint: string } | null {
  return checkPairs(
    query,
    "Crossref",
    (k) => k === "query" || k === "filter" || /^query\.[a-z-]+$/.test(k),
    "use `query=...`, `query.<field>=...` (e.g. query.bibliographic) and `filter=...` joined by `&` (rows, sort and mailto are set by PaperGuru)",
  );
}

/** The crossref source: a works query or a single DOI of the Crossref REST API. */
export const crossrefSource = scholarlySource({
  kind: "crossref",
  base: CROSSREF_API,
  example: "`query=retrieval augmented generation&filter=from-update-date:2024-01-01`",
  query: checkCrossrefQuery,
  rateLimit: {
    minIntervalMs: 1_000,
    note: "Crossref REST API since 1 Dec 2025: 5 req/s public, 10 req/s polite (mailto), low concurrency; list queries paced at 1/s; obey x-rate-limit-* headers",
  },
  request: (spec, cond, { mailto }) => crossrefRequest(spec, cond, { mailto }),
  parse: (body) => parseCrossrefWorks(body),
});
