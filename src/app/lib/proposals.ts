/**
 * What the seed systems' model roles share in the application layer (ProjectGuard commitments, xKG
 * techniques, SGMC feedback): the answer when no model is configured, the model's failures as typed
 * failures, the usage view, and the `proposal` annotation that keeps a model-made chunk's provenance.
 */
import { type Failure, fail, ok, type Result } from "../../core/errors";
import type { ArtifactInput } from "../../core/ingest";
import type { AnnotationStore, ArchiveStore, ChatModel, Clock } from "../../core/ports";
import type { ProposalOutcome, ProposalUsage } from "../../core/proposals/propose";
import type { AnchoredSpan } from "../../core/types";
import { archiveAt } from "./archives";

/** The annotation key holding a model-made chunk's provenance: model, sources, anchors. */
export const PROPOSAL_KEY = "proposal";

/** Off by default: without DISTILLER or EXTRACTOR naming a provider there is no model to ask. */
export function noModel(): { ok: false; error: Failure } {
  return fail(
    "conflict",
    "no model configured: set DISTILLER or EXTRACTOR and LLM_* (docs/models.md)",
    "model",
    "the seed systems' model roles are off unless a language model is configured; nothing was written",
  );
}

/**
 * What a model role checks before it reads, in this order: a model is configured (else noModel()),
 * then `check` (a failure of the request itself, when there is one), then the archive exists. The
 * model, the clock's time (`now`) and the request's time (`t`: its `asOf`, or `now` when absent).
 */
export async function modelCall(
  d: {
    models: { llm: ChatModel | null };
    stores: { archives: Pick<ArchiveStore, "getArchive"> };
    clock: Clock;
  },
  archive: string,
  asOf: string | undefined,
  check: { ok: false; error: Failure } | null = null,
): Promise<Result<{ model: ChatModel; now: number; t: number }>> {
  const model = d.models.llm;
  if (!model) return noModel();
  if (check) return check;
  const at = await archiveAt(d, archive, asOf);
  return at.ok ? ok({ model, ...at.value }) : at;
}

/** `provider:model`, the name proposals carry as their source and in their provenance. */
export const modelName = (m: ChatModel) => `${m.provider}:${m.model}`;

/** The model's failure as the request's: nothing was written. */
export function modelFailure(o: Extract<ProposalOutcome<unknown>, { ok: false }>): { ok: false; error: Failure } {
  const spent = `${o.usage.calls} call(s), ${o.usage.inputTokens + o.usage.outputTokens} tokens`;
  if (o.code === "over_budget")
    return fail(
      "too_large",
      `the prompt is over the model's per-request token budget (${o.message}); nothing was written`,
      undefined,
      "give the model less to read (fewer turns, sections or code units), or raise the budget (docs/models.md)",
    );
  const what =
    o.code === "unusable"
      ? `the model's answer was unusable after one retry: ${o.message}`
      : `the model failed (${o.code}): ${o.message}`;
  return fail(
    "unavailable",
    `${what}; ${spent}; nothing was written`,
    undefined,
    o.code === "rejected"
      ? "check LLM_MODEL, LLM_API_KEY and LLM_BASE_URL (docs/models.md)"
      : "retry later; the same request proposes the same ids",
  );
}

/** What two model calls (or runs of calls) spent together. */
export const addUsage = (a: ProposalUsage, b: ProposalUsage): ProposalUsage => ({
  calls: a.calls + b.calls,
  requests: a.requests + b.requests,
  retries: a.retries + b.retries,
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  ms: a.ms + b.ms,
});

export const usageView = (u: ProposalUsage) => ({
  calls: u.calls,
  requests: u.requests,
  retries: u.retries,
  input_tokens: u.inputTokens,
  output_tokens: u.outputTokens,
  ms: u.ms,
});

export interface ProposalProvenance {
  model: string;
  /** What the model read, by chunk id. */
  read: string[];
  /** What this item cites, and the verified spans it rests on (each verifies with POST /verify). */
  sources: string[];
  anchors: AnchoredSpan[];
  /** xKG: a proposed technique's type (Methodology or Technique), which the xKG export shows. */
  type?: string | undefined;
  /** What a role checked beyond the anchors (xKG rewrites: the core-line fraction, the verifier's reason). */
  checks?: Record<string, string | number | boolean | null> | undefined;
}

/**
 * The `proposal` annotation of a chunk a model proposed (once: the event id makes a retry a no-op).
 * `version`: the version the model wrote.
 */
async function recordProvenance(
  d: { stores: { annotations: Pick<AnnotationStore, "appendAnnotation"> }; clock: Clock },
  archive: string,
  chunk: string,
  version: number,
  value: ProposalProvenance,
  actor: string,
  at: number,
): Promise<void> {
  await d.stores.annotations.appendAnnotation({
    archiveId: archive,
    chunkId: chunk,
    version,
    key: PROPOSAL_KEY,
    op: "set",
    value,
    actor,
    reason: `proposed by ${value.model} from ${value.sources.length} source(s)`,
    at,
    recordedAt: d.clock.now(),
    eventId: `${PROPOSAL_KEY}:${chunk}`,
  });
}

/**
 * The proposals `items` (with their ids, `ids[i]` for `items[i]`) not kept before (a proposal kept
 * before is not written again), and what the answer says was written of each id: existing (kept
 * before), dry_run, or created.
 */
export async function newProposals<T>(
  chunks: { chunkRow(archive: string, id: string): Promise<unknown> },
  archive: string,
  items: readonly T[],
  ids: readonly string[],
  dryRun: boolean,
) {
  const existing = new Set<string>();
  for (const id of ids) if (await chunks.chunkRow(archive, id)) existing.add(id);
  const writes = items.flatMap((item, i) => (existing.has(ids[i] as string) ? [] : [{ item, id: ids[i] as string }]));
  const written = (id: string) =>
    existing.has(id) ? ("existing" as const) : dryRun ? ("dry_run" as const) : ("created" as const);
  return { writes, written };
}

/** What an ingest wrote: each artifact's version, and whether it was created, updated or unchanged. */
export interface Ingested {
  versions: Map<string, number>;
  statusOf: Map<string, "created" | "updated" | "unchanged">;
}

/** A proposal to keep: its chunk, its provenance, and an annotation set on the same version just before the provenance. */
export interface KeptProposal {
  id: string;
  provenance: ProposalProvenance;
  /** ProjectGuard: the record's `status` (proposed). */
  also?: { key: string; value: string; reason: string; eventId: string } | undefined;
}

/**
 * Ingest the artifacts of new proposals, then record each proposal's provenance on the version
 * written (`actor` is asked once, after the ingest succeeded). `kept` may be read off what the
 * ingest wrote (the versions its anchors cite, the ones it left unchanged). The ingest's failure,
 * or what it wrote.
 */
export async function keepProposals(
  d: {
    kernel: {
      ingest(
        archive: string,
        artifacts: ArtifactInput[],
      ): Promise<
        Result<{ results: ReadonlyArray<{ id: string; version: number; status: "created" | "updated" | "unchanged" }> }>
      >;
    };
    stores: { annotations: Pick<AnnotationStore, "appendAnnotation"> };
    clock: Clock;
  },
  archive: string,
  artifacts: ArtifactInput[],
  kept: ReadonlyArray<KeptProposal> | ((written: Ingested) => ReadonlyArray<KeptProposal>),
  actor: () => Promise<string>,
  now: number,
): Promise<Result<Ingested>> {
  const res = await d.kernel.ingest(archive, artifacts);
  if (!res.ok) return res;
  const written: Ingested = { versions: new Map(), statusOf: new Map() };
  for (const r of res.value.results) {
    written.versions.set(r.id, r.version);
    written.statusOf.set(r.id, r.status);
  }
  const who = await actor();
  for (const { id, provenance, also } of typeof kept === "function" ? kept(written) : kept) {
    const version = written.versions.get(id) ?? 1;
    if (also)
      await d.stores.annotations.appendAnnotation({
        archiveId: archive,
        chunkId: id,
        version,
        key: also.key,
        op: "set",
        value: also.value,
        actor: who,
        reason: also.reason,
        at: now,
        recordedAt: d.clock.now(),
        eventId: also.eventId,
      });
    await recordProvenance(d, archive, id, version, provenance, who, now);
  }
  return ok(written);
}
