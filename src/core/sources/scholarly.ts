/**
 * What the JSON scholarly API sources (OpenAlex, Crossref, Semantic Scholar, DBLP) share: the API base of
 * a spec, a works-list query read as URL parameters, the response body as one JSON object, and the plan of
 * a response's records, each record's citation count kept as its chunk's `citations` annotation.
 */
import { fail, ok, type Result } from "../errors";
import { finishPlan, isObject, type JsonObject, parseJsonText, type Skipped } from "../formats/common";
import { type Deprecation, emptyPlan, type ImportPlan, type PlanAnnotation } from "../formats/types";
import type { ArtifactInput } from "../ingest";
import { queryPairs, type SourceSpec } from "./types";

/** The spec's API base without trailing slashes; `fallback` when the location is empty. */
export function apiBase(spec: SourceSpec, fallback: string): string {
  return (spec.location.trim() || fallback).replace(/\/+$/, "");
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
  /** The record's citation count: the `citations` annotation of its artifact. */
  citations?: number;
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
      if (r.citations !== undefined) annotations.push({ chunk: r.artifact.id, key: "citations", value: r.citations });
    }
    if (r.deprecation) deprecations.push(r.deprecation);
    if (r.skip) skipped.push({ ref: r.ref, reason: r.skip });
  }
  return annotatedPlan(artifacts, deprecations, skipped, annotations);
}
