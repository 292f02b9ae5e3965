/**
 * A use case that reads one archive at the request's time, declared as one descriptor: what it
 * checks of the request (`check`) and what it does (`run`). The descriptor owns the header every
 * such use case has: the request's checks, the archive's existence, the clock and the request's
 * time; for a model role (modelUseCase) also the configured model, its name and the caller, and
 * keeping what the model proposes. The answer of a model role starts with answerHead; a role that
 * proposes items answers proposalAnswer.
 */
import type { Failure, Result } from "../../core/errors";
import type { ArtifactInput } from "../../core/ingest";
import type { ChatModel } from "../../core/ports";
import type { Dropped, ProposalUsage } from "../../core/proposals/propose";
import { archiveAt } from "./archives";
import { type Ingested, type KeptProposal, keepProposals, modelCall, modelName, usageView } from "./proposals";
import { iso } from "./wire";

/** A failure of the request itself, found before anything is read. */
type Refusal = { ok: false; error: Failure };

/** What the descriptors read of the application's dependencies (AppDeps has it all). */
type ArchiveDeps = Parameters<typeof archiveAt>[0];
type ModelDeps = Parameters<typeof modelCall>[0] & Parameters<typeof keepProposals>[0];

/** What a use case reading an archive is handed: the archive, the clock's time (`now`) and the request's (`t`). */
export interface ArchiveContext {
  archive: string;
  now: number;
  t: number;
}

/** What a model role is handed besides ArchiveContext: the model, its name and the caller. */
export interface ModelContext extends ArchiveContext {
  model: ChatModel;
  /** `provider:model` (modelName). */
  name: string;
  /** The caller's actor (the `actorOf` given, of the request's authorization). */
  actor: () => Promise<string>;
  /** keepProposals in this archive, by this caller, at `now`. */
  keep(
    artifacts: ArtifactInput[],
    kept: ReadonlyArray<KeptProposal> | ((written: Ingested) => ReadonlyArray<KeptProposal>),
  ): Promise<Result<Ingested>>;
}

interface Descriptor<C, B, O> {
  /** A failure of the request itself, or null. */
  check?: (b: B) => Refusal | null;
  run: (c: C, b: B) => Promise<Result<O>>;
}

/** A use case reading an archive at `b.as_of`: `check`, then the archive exists (else not_found), then `run`. */
export function archiveUseCase<B extends { as_of?: string | undefined }, O>(
  d: ArchiveDeps,
  u: Descriptor<ArchiveContext, B, O>,
): (archive: string, b: B) => Promise<Result<O>> {
  return async (archive, b) => {
    const bad = u.check?.(b) ?? null;
    if (bad) return bad;
    const at = await archiveAt(d, archive, b.as_of);
    return at.ok ? u.run({ archive, ...at.value }, b) : at;
  };
}

/**
 * A model role reading an archive at `b.as_of`: the checks of modelCall (with `check`), then `run`.
 * `actorOf` names the caller of an authorization (src/app/auth.ts, which app/lib does not import).
 */
export function modelUseCase<D extends ModelDeps, B extends { as_of?: string | undefined }, O>(
  d: D,
  actorOf: (d: D, authorization: string | undefined) => Promise<string>,
  u: Descriptor<ModelContext, B, O>,
): (archive: string, b: B, authorization?: string | undefined) => Promise<Result<O>> {
  return async (archive, b, authorization) => {
    const pre = await modelCall(d, archive, b.as_of, u.check?.(b) ?? null);
    if (!pre.ok) return pre;
    const { model, now, t } = pre.value;
    const actor = () => actorOf(d, authorization);
    return u.run(
      {
        archive,
        now,
        t,
        model,
        name: modelName(model),
        actor,
        keep: (artifacts, kept) => keepProposals(d, archive, artifacts, kept, actor, now),
      },
      b,
    );
  };
}

/** The head of a model role's answer: the request's time, the model's name, whether it was a dry run. */
export const answerHead = (c: ModelContext, dryRun: boolean) => ({ as_of: iso(c.t), model: c.name, dry_run: dryRun });

/** Each proposed item as an answer lists it: its id (`ids[i]` for `items[i]`), `view` of it, then what was written of it. */
export function listProposals<T, V extends object, W>(
  items: readonly T[],
  ids: readonly string[],
  view: (item: T, id: string) => V,
  written: (id: string, item: T) => W,
): Array<{ id: string } & V & { written: W }> {
  return items.map((item, i) => {
    // ids holds one id per item, so ids[i] is set.
    const id = ids[i] as string;
    return { id, ...view(item, id), written: written(id, item) };
  });
}

/**
 * The answer of a model role that proposes items: answerHead, then what it read (`read`: the
 * fields before the proposals), the proposals, what was dropped and what the model calls spent.
 */
export function proposalAnswer<R extends object, P>(
  c: ModelContext,
  dryRun: boolean,
  read: R,
  proposals: P[],
  outcome: { dropped: Dropped[]; usage: ProposalUsage },
) {
  return {
    ...answerHead(c, dryRun),
    ...read,
    proposals,
    dropped: outcome.dropped,
    usage: usageView(outcome.usage),
  };
}
