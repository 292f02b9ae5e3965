/**
 * Scheduled re-ingestion. The cron handler calls dispatchDueSources: it claims at most
 * MAX_SOURCES_PER_TICK due sources, runs them one after another with each source kind's published
 * minimum spacing between requests, and records every run in the source's status and the ingest log.
 *
 * A run makes a conditional request (ETag / Last-Modified); 304 and an identical body (same SHA-256
 * as the last ingested one) ingest nothing. A changed body is parsed and applied; the ingest layer
 * creates new versions only for records whose content changed. Failures back off exponentially
 * (interval x 2^failures, at most 24 h, never sooner than the server's Retry-After).
 */
import { fail, ok } from "../../core/errors";
import { sha256Hex } from "../../core/ingest";
import { registrationRefusal } from "../../core/net";
import { runSliced } from "../../core/pace";
import type { SourceRecord } from "../../core/ports";
import { RATE_LIMITS, SOURCES, validateSourceSpec } from "../../core/sources";
import type {
  ConditionalHeaders,
  HttpRequestSpec,
  HttpSourceFetch,
  SourceDefinition,
  SourceKind,
} from "../../core/sources/types";
import type { IntakeDeps } from "../deps";
import { applyPlan } from "./apply";
import { fetchSpec, githubRepoPlan, HttpError, httpFailure, readCapped } from "./github";
import { type ApplyCounts, zeroCounts } from "./outcome";
import { queueReadmePapers } from "./readme-queue";
import { feedPlanSliced } from "./webhooks";

/** Sources run per cron tick: 10 arXiv sources at 3 s spacing fit in 30 s of wall time. */
export const MAX_SOURCES_PER_TICK = 10;
/** A claimed source is not claimed again for 15 minutes even if its run dies mid-way. */
const LEASE_MS = 15 * 60_000;
const MAX_BACKOFF_MS = 24 * 3600_000;
/** Largest response body parsed (arXiv 50 entries ~ 150 KB; OpenAlex 50 works ~ 1 MB). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface SourceInput {
  id?: string | undefined;
  kind: SourceKind;
  location: string;
  query: string;
  interval_minutes: number;
  paused: boolean;
}

/** Public view of a source row (state is internal). */
export function sourceView(r: SourceRecord) {
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  return {
    id: r.id,
    kind: r.kind,
    location: r.location,
    query: r.query,
    interval_minutes: r.intervalMinutes,
    paused: r.paused === 1,
    status: {
      last_run: iso(r.lastRunAt),
      last_change: iso(r.lastChangeAt),
      last_status: r.lastStatus,
      last_error: r.lastError,
      next_run: r.paused === 1 ? null : iso(r.nextRunAt),
      consecutive_failures: r.failures,
      last_counts: r.lastCounts,
    },
  };
}

export async function createSource(deps: IntakeDeps, archiveId: string, input: SourceInput) {
  const spec = validateSourceSpec(
    { kind: input.kind, location: input.location, query: input.query },
    { allowHosts: deps.allowHosts },
  );
  if (!spec.ok) return spec;
  const { fetch } = SOURCES[spec.value.kind];
  // A location given is judged by its DNS answers too (a public name may point at loopback or
  // metadata); the default API bases and GitHub's are fixed public hosts, checked at each fetch.
  if (spec.value.location && fetch.via === "http") {
    const unreachable = await registrationRefusal(deps.addresses, spec.value.location, "location");
    if (unreachable) return { ok: false as const, error: unreachable };
  }
  if (fetch.via === "repository") {
    const loc = fetch.parseLocation(spec.value.location);
    if (!loc.ok) return loc;
  }
  const now = deps.apply.now();
  const id =
    input.id ??
    `${spec.value.kind}-${(await sha256Hex(`${spec.value.location}\u0000${spec.value.query}`)).slice(0, 10)}`;
  const row: SourceRecord = {
    archiveId,
    id,
    kind: spec.value.kind,
    location: spec.value.location,
    query: spec.value.query,
    intervalMinutes: input.interval_minutes,
    paused: input.paused ? 1 : 0,
    createdAt: now,
    // Due at once: the first run happens at the next cron tick (or POST .../run).
    nextRunAt: now,
    lastRunAt: null,
    lastChangeAt: null,
    lastStatus: null,
    lastError: null,
    failures: 0,
    etag: null,
    lastModified: null,
    contentHash: null,
    state: {},
    lastCounts: null,
  };
  if (!(await deps.world.createSource(row)))
    return fail(
      "conflict",
      `source ${id} already exists in archive ${archiveId}`,
      "id",
      "choose another id or PATCH it",
    );
  return ok(row);
}

function requestFor(deps: IntakeDeps, row: SourceRecord, fetch: HttpSourceFetch): HttpRequestSpec {
  const spec = { kind: row.kind as SourceKind, location: row.location, query: row.query };
  const cond: ConditionalHeaders = { etag: row.etag ?? undefined, lastModified: row.lastModified ?? undefined };
  return fetch.request(spec, cond, { mailto: deps.contactEmail ?? undefined });
}

/** The entry of a stored row's kind; a kind no entry names is fetched as a url source. */
function definitionOf(kind: string): SourceDefinition {
  return SOURCES[kind as SourceKind] ?? SOURCES.url;
}

export interface RunResult {
  status: "ok" | "not_modified" | "unchanged" | "partial" | "error";
  counts: ApplyCounts | null;
  error: string | null;
}

/** Run one source now and record the outcome. Never throws for source-side failures. */
export async function runSource(deps: IntakeDeps, row: SourceRecord): Promise<RunResult> {
  const started = Date.now();
  const now = deps.apply.now();
  let result: RunResult;
  const patch: Partial<SourceRecord> = {};
  let retryAfterS: number | null = null;
  try {
    const { fetch } = definitionOf(row.kind);
    if (fetch.via === "repository") {
      const loc = fetch.parseLocation(row.location);
      if (!loc.ok) throw new HttpError(400, loc.error.message);
      const state = row.state;
      const r = await githubRepoPlan(deps, loc.value, {
        files: state.files ?? {},
        ...(state.commit ? { commit: state.commit } : {}),
      });
      if (r.notModified) result = { status: "not_modified", counts: zeroCounts(), error: null };
      else {
        const outcome = await applyPlan(deps.apply, row.archiveId, r.plan);
        await queueReadmePapers(deps, row.archiveId, r.plan, outcome);
        patch.state = r.state;
        result = {
          status: r.remaining > 0 || outcome.counts.failed > 0 ? "partial" : "ok",
          counts: outcome.counts,
          error:
            outcome.failures[0]?.message ??
            (r.remaining > 0 ? `${r.remaining} changed files left for the next run` : null),
        };
      }
    } else {
      const res = await fetchSpec(deps, requestFor(deps, row, fetch));
      if (res.status === 304) result = { status: "not_modified", counts: zeroCounts(), error: null };
      else if (!res.ok) throw await httpFailure(res, `${row.kind} ${row.location || "(default API)"}`);
      else {
        const body = await readCapped(res, MAX_BODY_BYTES);
        const hash = await sha256Hex(body);
        patch.etag = res.headers.get("etag");
        patch.lastModified = res.headers.get("last-modified");
        if (hash === row.contentHash) result = { status: "unchanged", counts: zeroCounts(), error: null };
        else {
          const plan = await fetch.parse(body, {
            source: res.url || row.location,
            // A feed of up to 16 MiB is checked in slices (src/core/pace.ts).
            feed: (json) => runSliced(feedPlanSliced(json), deps.pause),
          });
          if (!plan.ok) throw new HttpError(422, `${plan.error.field ?? "body"}: ${plan.error.message}`);
          const outcome = await applyPlan(deps.apply, row.archiveId, plan.value);
          // Remember the body only when it landed whole, so a partial failure is retried next run.
          if (outcome.counts.failed === 0) patch.contentHash = hash;
          else patch.etag = patch.lastModified = null;
          result = {
            status: outcome.counts.failed > 0 ? "partial" : "ok",
            counts: outcome.counts,
            error: outcome.failures[0]?.message ?? null,
          };
        }
      }
    }
  } catch (e) {
    retryAfterS = e instanceof HttpError ? e.retryAfterS : null;
    result = { status: "error", counts: null, error: (e instanceof Error ? e.message : String(e)).slice(0, 2000) };
  }
  const interval = row.intervalMinutes * 60_000;
  const failures = result.status === "error" ? row.failures + 1 : 0;
  let next = now + interval;
  if (failures > 0) {
    next = now + Math.min(MAX_BACKOFF_MS, interval * 2 ** (failures - 1));
    if (retryAfterS !== null) next = Math.max(next, now + retryAfterS * 1000);
  }
  const c = result.counts;
  const changed = c !== null && c.created + c.updated + c.deprecated > 0;
  await deps.world.updateSource(row.archiveId, row.id, {
    ...patch,
    lastRunAt: now,
    lastStatus: result.status,
    lastError: result.error,
    failures,
    nextRunAt: next,
    lastCounts: c ?? null,
    ...(changed ? { lastChangeAt: now } : {}),
  });
  await deps.world.appendLog({
    archiveId: row.archiveId,
    origin: "source",
    ref: row.id,
    status: result.status,
    counts: c ?? {},
    error: result.error,
    at: now,
    durationMs: Date.now() - started,
  });
  await deps.events.emit(row.archiveId, "source.run_finished", {
    source: row.id,
    kind: row.kind,
    status: result.status,
    counts: c,
    error: result.error,
    next_run: row.paused === 1 ? null : new Date(next).toISOString(),
  });
  return result;
}

/** The cron entry: claim due sources, run them with per-kind spacing. */
export async function dispatchDueSources(deps: IntakeDeps, limit = MAX_SOURCES_PER_TICK) {
  const now = deps.apply.now();
  const due = await deps.world.dueSources(now, limit);
  const lastRequest = new Map<string, number>();
  const ran: Array<{ archive: string; source: string; status: string }> = [];
  for (const row of due) {
    if (!(await deps.world.claimSource(row.archiveId, row.id, row.nextRunAt, now + LEASE_MS))) continue;
    // Spacing per kind (per host): arXiv's 3 s, Crossref's 1 s ... measured on the wall clock.
    const gap = RATE_LIMITS[row.kind as SourceKind]?.minIntervalMs ?? 1000;
    const last = lastRequest.get(row.kind);
    if (last !== undefined) {
      const wait = last + gap - Date.now();
      if (wait > 0) await deps.sleep(wait);
    }
    try {
      const r = await runSource(deps, row);
      ran.push({ archive: row.archiveId, source: row.id, status: r.status });
    } catch (e) {
      // Storage failed while recording the run: the lease brings the source back in 15 minutes;
      // the other due sources still run.
      console.error(`source ${row.archiveId}/${row.id}: ${String(e)}`);
      ran.push({ archive: row.archiveId, source: row.id, status: "error" });
    }
    lastRequest.set(row.kind, Date.now());
  }
  return ran;
}
