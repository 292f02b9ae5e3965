/**
 * Typed failures returned by the core. One exhaustive map in src/http/errors.ts turns them into
 * HTTP statuses; the core never throws for expected bad input.
 */
export type FailureKind =
  | "validation"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "too_large"
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
