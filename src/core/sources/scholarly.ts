/**
 * What the scholarly API sources (arXiv, OpenAlex, Crossref, Semantic Scholar, DBLP) share: the `paper`
 * artifact of a record from the fields its parser reads (paperRecord); for the JSON APIs also the API
 * base of a spec, the JSON request headers, a works-list query read as URL parameters, the response body
 * as one JSON object, numbers given as strings, and the plan of a response's records, each record's
 * citation count kept as its chunk's `citations` annotation.
 */
import { fail, ok, type Result } from "../errors";
import {
  finishPlan,
  isObject,
  type JsonObject,
  num,
  parseJsonText,
  personEntity,
  type Skipped,
  str,
  synopsisOf,
} from "../formats/common";
import { type PaperIdentity, paperIdentity } from "../formats/paper";
import { type Deprecation, emptyPlan, type ImportPlan, type PlanAnnotation } from "../formats/types";
import { canonicalPaperId } from "../ids";
import type { ArtifactInput, EdgeInput, EntityInput } from "../ingest";
import {
  type ConditionalHeaders,
  conditionalHeaders,
  type HttpRequestSpec,
  queryPairs,
  type SourceSpec,
} from "./types";

/** The spec's API base without trailing slashes; `fallback` when the location is empty. */
export function apiBase(spec: SourceSpec, fallback: string): string {
  return (spec.location.trim() || fallback).replace(/\/+$/, "");
}

/** The `/works` endpoint of the spec's API base (the base itself when it ends in `/works`). */
function worksEndpoint(spec: SourceSpec, fallback: string): string {
  const base = apiBase(spec, fallback);
  return /\/works$/.test(base) ? base : `${base}/works`;
}

/** The headers of a JSON API request: `Accept: application/json`, `extra`, and the conditional validators. */
export function jsonHeaders(cond: ConditionalHeaders, extra: Record<string, string> = {}): Record<string, string> {
  return conditionalHeaders(cond, { Accept: "application/json", ...extra });
}

/** A number given as a JSON number or a numeric string; undefined when it is neither or not finite. */
export function numeric(v: unknown): number | undefined {
  const n = num(v) ?? (str(v) ? Number(str(v)) : undefined);
  return n !== undefined && Number.isFinite(n) ? n : undefined;
}

/**
 * The search parameters of a works-list query: its `a=b&c=d` pairs as given, else the query as `filter`
 * when `bareFilter` matches it, else the query as `textKey`.
 */
function worksListParams(query: string, bareFilter: RegExp, textKey: string): URLSearchParams {
  const params = new URLSearchParams();
  const pairs = queryPairs(query);
  if (pairs) for (const [k, v] of pairs) params.set(k, v);
  else if (bareFilter.test(query)) params.set("filter", query);
  else params.set(textKey, query);
  return params;
}

/** What a works API's request builder gives worksRequest. */
export interface WorksApi {
  /** The API base when the spec has no location. */
  base: string;
  /** Headers besides `Accept` and the conditional validators. */
  headers?: Record<string, string>;
  /** The path under `/works` of a query that names one work, else null (a works list). */
  single: (query: string) => string | null;
  /** worksListParams' bare filter and text key. */
  bareFilter: RegExp;
  textKey: string;
  /** The list parameters after the query's own (paging, sorting). */
  list: Record<string, string>;
  /** The parameters of every request, after the others; an empty or missing value is left out. */
  always: Record<string, string | undefined>;
}

/**
 * The GET request of a works API (OpenAlex, Crossref): `/works/<path>` for a query naming one work, else
 * `/works?` with the works-list parameters and `list`; `always` closes both.
 */
export function worksRequest(spec: SourceSpec, cond: ConditionalHeaders, api: WorksApi): HttpRequestSpec {
  const works = worksEndpoint(spec, api.base);
  const headers = jsonHeaders(cond, api.headers);
  const q = spec.query.trim();
  const always = new URLSearchParams();
  for (const [k, v] of Object.entries(api.always)) if (v) always.set(k, v);
  const path = api.single(q);
  if (path !== null) {
    const qs = always.toString();
    return { url: `${works}/${path}${qs ? `?${qs}` : ""}`, headers };
  }
  const params = worksListParams(q, api.bareFilter, api.textKey);
  for (const [k, v] of [...Object.entries(api.list), ...always]) params.set(k, v);
  return { url: `${works}?${params.toString()}`, headers };
}

/** A response body that must be one JSON object; `hint` says which response to pass. */
export function jsonObjectBody(json: string, source: string, hint: string): Result<JsonObject> {
  const parsed = parseJsonText(json, source);
  if (!parsed.ok) return parsed;
  if (!isObject(parsed.value)) return fail("validation", `${source} response is not a JSON object`, "body", hint);
  return ok(parsed.value);
}

/** finishPlan's plan, carrying the annotations when there are any. */
export function annotatedPlan(
  artifacts: ArtifactInput[],
  deprecations: Deprecation[],
  skipped: Skipped,
  annotations: PlanAnnotation[],
): ImportPlan {
  const plan = finishPlan(artifacts, deprecations, skipped);
  return annotations.length ? { ...plan, annotations } : plan;
}

/** What one record of a response adds to the plan; `ref` names the record when it is skipped. */
export interface RecordPlan {
  ref: string;
  artifact?: ArtifactInput;
  /** The record's citation count: the `citations` annotation of its artifact when it is not negative. */
  citations?: number | undefined;
  deprecation?: Deprecation;
  skip?: string;
}

/**
 * The plan of a response's records: one that is not an object is skipped as `<at>.<i>` for `notObject`;
 * each other one goes through `toPlan` with that ref.
 */
export function recordsPlan(
  records: unknown[],
  at: string,
  notObject: string,
  toPlan: (record: JsonObject, ref: string) => RecordPlan,
): ImportPlan {
  const { artifacts, deprecations, skipped } = emptyPlan();
  const annotations: PlanAnnotation[] = [];
  for (const [i, record] of records.entries()) {
    const ref = `${at}.${i}`;
    if (!isObject(record)) {
      skipped.push({ ref, reason: notObject });
      continue;
    }
    const r = toPlan(record, ref);
    if (r.artifact) {
      artifacts.push(r.artifact);
      if (r.citations !== undefined && r.citations >= 0)
        annotations.push({ chunk: r.artifact.id, key: "citations", value: r.citations });
    }
    if (r.deprecation) deprecations.push(r.deprecation);
    if (r.skip) skipped.push({ ref: r.ref, reason: r.skip });
  }
  return annotatedPlan(artifacts, deprecations, skipped, annotations);
}

/** The `year:<y>` boundary of a record with a year (none without). */
export function yearBoundary(year: number | undefined): string[] {
  return year !== undefined ? [`year:${year}`] : [];
}

/** One author of a record: the name, with the ORCID when the API gives one. */
export type PaperAuthor = string | { name: string; orcid: string | undefined };

/** What a parser reads from one record of its API; paperRecord makes the record's `paper` artifact of it. */
export interface PaperFields {
  identity: PaperIdentity;
  /** The artifact title, never empty: the record's title, else what stands for it. */
  title: string;
  /** The header's first line, when it is not `title`. */
  heading?: string;
  /** More names of the paper entity, after its own aliases (the API's other ids for the work). */
  aliases?: readonly string[];
  /** The authors in order: the header's "Authors:" line, and one person entity each (ORCID as an alias). */
  authors: readonly PaperAuthor[];
  /** One venue entity each, and the header's "Venue:" line (joined by ", "). */
  venues?: readonly string[];
  /** Entities after the venues and before the authors (concepts). */
  entities?: readonly EntityInput[];
  /** The header's "Year:" line and the first boundary, `year:<y>`. */
  year?: number | undefined;
  /** Header lines after the title, authors, venue and year lines. */
  lines?: readonly string[];
  abstract?: string;
  /** Boundaries after the year's. */
  boundaries?: readonly string[];
  /**
   * The works the record cites, each given by its candidate ids, best first: a `cites` edge to the first
   * that names a paper, unless that is the record itself. Without `cites` the artifact has no `edges`.
   */
  cites?: ReadonlyArray<ReadonlyArray<string | undefined>>;
  valid_from?: number | undefined;
  source?: string | undefined;
}

/**
 * The `paper` artifact of one record. Entities: the paper entity with `aliases`, the venues, `entities`,
 * the authors' person entities. Content: the header lines (title, authors, venue, year, `lines`), a blank
 * line and the abstract; synopsis: the abstract's first sentences (ingest's rule). Boundaries: the year's
 * and `boundaries`. Then the `cites` edges, `valid_from` and `source` when given.
 */
export function paperRecord(f: PaperFields): ArtifactInput {
  const venues = f.venues ?? [];
  const entities: EntityInput[] = [
    { ...f.identity.entity, aliases: [...(f.identity.entity.aliases ?? []), ...(f.aliases ?? [])] },
    ...venues.map((name): EntityInput => ({ type: "venue", name })),
    ...(f.entities ?? []),
  ];
  const authors: string[] = [];
  for (const a of f.authors) {
    const name = typeof a === "string" ? a : a.name;
    authors.push(name);
    const p = personEntity(name, typeof a === "string" ? undefined : a.orcid);
    if (p) entities.push(p);
  }
  const header = [...paperHeader(f.heading ?? f.title, authors, venues.join(", "), f.year), ...(f.lines ?? [])];
  const abstract = f.abstract ?? "";
  const synopsis = synopsisOf(f.title, abstract);
  return {
    id: f.identity.id,
    kind: "paper",
    title: f.title,
    ...(synopsis ? { synopsis } : {}),
    content: abstract ? `${header.join("\n")}\n\n${abstract}` : header.join("\n"),
    entities,
    boundaries: [...yearBoundary(f.year), ...(f.boundaries ?? [])],
    ...(f.cites ? { edges: citesEdges(f.cites, new Set(f.identity.ids)) } : {}),
    ...(f.valid_from !== undefined ? { valid_from: f.valid_from } : {}),
    ...(f.source ? { source: f.source } : {}),
  };
}

/** The `cites` edges of a record's cited works (see PaperFields.cites); `own` holds the record's ids. */
function citesEdges(cites: ReadonlyArray<ReadonlyArray<string | undefined>>, own: Set<string>): EdgeInput[] {
  const edges: EdgeInput[] = [];
  for (const ids of cites) {
    let target: string | null = null;
    for (const raw of ids) if (!target && raw) target = paperTarget(raw);
    if (target && !own.has(target)) edges.push({ type: "cites", target });
  }
  return edges;
}

/**
 * Canonical chunk id of a cited paper, as paperIdentity would give it (so `10.48550/arXiv.X` targets
 * `arxiv:X`, the chunk the arXiv source writes), or null when the string is not a paper identifier.
 */
export function paperTarget(raw: string): string | null {
  return canonicalPaperId(raw) ? (paperIdentity([raw], "")?.id ?? null) : null;
}

/**
 * The first header lines of a paper record's content: the title, then "Authors: A, B, C" (at most 500
 * names, "... and N more"), "Venue: …" and "Year: …", each when the record has it.
 */
function paperHeader(title: string, authors: string[], venue?: string, year?: number): string[] {
  const lines = [title];
  if (authors.length) {
    const more = authors.length > 500 ? ` and ${authors.length - 500} more` : "";
    lines.push(`Authors: ${authors.slice(0, 500).join(", ")}${more}`);
  }
  if (venue) lines.push(`Venue: ${venue}`);
  if (year !== undefined) lines.push(`Year: ${year}`);
  return lines;
}
