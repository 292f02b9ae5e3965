/**
 * What the JSON scholarly API sources (OpenAlex, Crossref, Semantic Scholar, DBLP) share: the API base of
 * a spec, the JSON request headers, a works-list query read as URL parameters, the response body as one
 * JSON object, the fields read alike from records (numbers, authors, aliases, the year boundary), and the
 * plan of a response's records, each record's citation count kept as its chunk's `citations` annotation.
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
} from "../formats/common";
import { type Deprecation, emptyPlan, type ImportPlan, type PlanAnnotation } from "../formats/types";
import type { ArtifactInput, EntityInput } from "../ingest";
import { type ConditionalHeaders, conditionalHeaders, queryPairs, type SourceSpec } from "./types";

/** The spec's API base without trailing slashes; `fallback` when the location is empty. */
export function apiBase(spec: SourceSpec, fallback: string): string {
  return (spec.location.trim() || fallback).replace(/\/+$/, "");
}

/** The `/works` endpoint of the spec's API base (the base itself when it ends in `/works`). */
export function worksEndpoint(spec: SourceSpec, fallback: string): string {
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

/** The paper entity with `more` aliases after its own. */
export function withAliases(entity: EntityInput, more: readonly string[]): EntityInput {
  return { ...entity, aliases: [...(entity.aliases ?? []), ...more] };
}

/** One author of a record: the name joins `authors`, its person entity (ORCID as an alias) `entities`. */
export function addAuthor(authors: string[], entities: EntityInput[], name: string, orcid?: string): void {
  authors.push(name);
  const p = personEntity(name, orcid);
  if (p) entities.push(p);
}

/** The `year:<y>` boundary of a record with a year (none without). */
export function yearBoundary(year: number | undefined): string[] {
  return year !== undefined ? [`year:${year}`] : [];
}

/**
 * The search parameters of a works-list query: its `a=b&c=d` pairs as given, else the query as `filter`
 * when `bareFilter` matches it, else the query as `textKey`.
 */
export function worksListParams(query: string, bareFilter: RegExp, textKey: string): URLSearchParams {
  const params = new URLSearchParams();
  const pairs = queryPairs(query);
  if (pairs) for (const [k, v] of pairs) params.set(k, v);
  else if (bareFilter.test(query)) params.set("filter", query);
  else params.set(textKey, query);
  return params;
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
