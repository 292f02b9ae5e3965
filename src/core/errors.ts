/**
 * Typed failures returned by the core. One exhaustive map (STATUS in src/http/common.ts) turns them
 * into HTTP statuses; the core never throws for expected bad input.
 */
export type FailureKind =
  | "validation"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  /** The path exists, with other methods (HTTP only: the answer lists them in `Allow`). */
  | "method_not_allowed"
  | "conflict"
  | "too_large"
  | "unprocessable"
  | "unavailable";

export interface Failure {
  kind: FailureKind;
  message: string;
  /** JSON path of the offending field, e.g. "artifacts.3.valid_from". */
  field?: string;
  /** How to fix it. */
  hint?: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: Failure };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = (
  kind: FailureKind,
  message: string,
  field?: string,
  hint?: string,
): { ok: false; error: Failure } => ({
  ok: false,
  error: { kind, message, ...(field ? { field } : {}), ...(hint ? { hint } : {}) },
});

/** Thrown only across layers that cannot return a Result (e.g. inside a D1 batch callback). */
export class FailureError extends Error {
  constructor(readonly failure: Failure) {
    super(failure.message);
  }
}

/** The parts of a zod issue a failure is built from (zod's own type, without importing zod here). */
export interface SchemaIssue {
  path: readonly PropertyKey[];
  message: string;
  code?: string;
  keys?: readonly string[];
}

/**
 * A schema validation failure from the first issue: `field` is the JSON path of the value at fault
 * (an unknown key's own name for a strict object), the message starts with it. The one place zod
 * issues become failures, for REST, MCP, feeds and archive imports alike.
 */
export function schemaFailure(
  issues: readonly SchemaIssue[],
  opts: { subject: string; hint: string; prefix?: string; fieldFallback?: boolean },
): Failure {
  const issue = issues[0];
  if (!issue) return { kind: "validation", message: `${opts.prefix ?? ""}invalid ${opts.subject}`, hint: opts.hint };
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys" && issue.keys?.[0]) path.push(issue.keys[0]);
  const field = path.join(".");
  return {
    kind: "validation",
    message: `${opts.prefix ?? ""}${field || opts.subject}: ${issue.message}`,
    field: field || (opts.fieldFallback ? opts.subject : ""),
    hint: opts.hint,
  };
}
