/**
 * POST /feedback/propose: SGMC's feedback records (Self-Loop Memory, seed 001 §3.3) proposed from a
 * model's critique. The drafting prompts stay the agent's; here the configured language model reads
 * one draft version (`<node>#draft` at `as_of`, or `version`), the sources its evidence anchors quote
 * and the reviewer's request, and proposes feedback items, each quoting the draft's words it is about
 * (src/core/proposals/critique.ts). SGMC's feedback records are written by ingest: a kept item becomes
 * a `note` chunk with the boundaries `feedback`, `feedback:<category>` and the request's scope, an
 * `introduced-by` edge to the draft (its context the quote), source `model:<provider>:<model>` and a
 * `proposal` annotation with the anchors. It is a proposal: /feedback/select leaves it out until a
 * user verifies or edits it (POST /review); flagged, never. Ids come from the draft version and a
 * content hash: a retry writes nothing new. The critique refers to r*, the record Eq. 12 selects
 * within the scope at `as_of` (Eq. 13), unless `checklist: none`.
 */

import type * as S from "../../contract";
import { fail, ok, type Result } from "../../core/errors";
import type { ChatModel, StoredVersion } from "../../core/ports";
import {
  type Checklist,
  CRITIQUE_SCHEMA,
  CRITIQUE_SYSTEM,
  checkCritique,
  critiquePrompt,
  type EvidenceSnippet,
  fitDraft,
  type ProposedFeedback,
} from "../../core/proposals/critique";
import { contentHash, type ProposalOutcome, propose, type SourceDoc } from "../../core/proposals/propose";
import type { AnchoredSpan } from "../../core/types";
import { actorOf } from "../auth";
import type { AppDeps } from "../deps";
import { modelFailure, newProposals } from "../lib/proposals";
import { toEvent } from "../lib/records";
import { listProposals, modelUseCase, proposalAnswer } from "../lib/use-case";
import { type In, iso } from "../lib/wire";
import { draftId, EVIDENCE_KEY, FEEDBACK, nodeIdCheck } from "./common";
import { feedbackUseCases } from "./feedback";

type Out = In<typeof S.FeedbackProposeResult>;

const MAX_ID = 512;

async function feedbackId(draft: string, version: number, f: ProposedFeedback): Promise<string> {
  const h = await contentHash([draft, String(version), f.category, f.title, f.text]);
  const id = `${draft}/feedback-${h}`;
  return id.length <= MAX_ID ? id : `feedback:${h}`;
}

/** r* of Eq. 12 within `scope` at t with its content, or null when there is no record to select. */
export async function checklistAt(
  d: AppDeps,
  archive: string,
  scope: string | undefined,
  t: number,
): Promise<Result<(Checklist & { version: number }) | null>> {
  const sel = await feedbackUseCases(d).selectFeedback(archive, { scope, as_of: iso(t), tie: "oldest" });
  if (!sel.ok) return sel;
  const r = sel.value.selected;
  if (!r) return ok(null);
  const v = (await d.stores.chunks.visibleAt(archive, [r.id], t)).get(r.id);
  const text = v ? await d.kernel.contentOf(v.contentKey) : null;
  return ok({ id: r.id, version: r.version, title: r.title, text: text ?? r.synopsis });
}

/** The evidence snippets of a draft version (its `sgmc:evidence` annotation) and the anchors. */
export async function draftEvidence(
  d: AppDeps,
  archive: string,
  id: string,
  version: number,
): Promise<{ anchors: AnchoredSpan[]; snippets: EvidenceSnippet[] }> {
  const events = (await d.stores.annotations.annotationsOf(archive, [id], EVIDENCE_KEY, Number.MAX_SAFE_INTEGER))
    .map(toEvent)
    .filter((e) => e.version === version);
  const last = events[events.length - 1];
  const anchors = Array.isArray(last?.value) ? (last.value as AnchoredSpan[]) : [];
  const snippets = anchors
    .filter((a) => typeof a?.snippet === "string" && typeof a.artifact_id === "string")
    .map((a) => ({ artifactId: a.artifact_id, snippet: a.snippet }));
  return { anchors, snippets };
}

/** Eq. 13: the model's critique R of one draft version, referring to the checklist r*. */
export async function critiqueVersion(
  model: ChatModel,
  v: Pick<StoredVersion, "chunkId" | "version" | "title">,
  text: string,
  request: string,
  evidence: readonly EvidenceSnippet[],
  checklist: Checklist | null,
): Promise<{ draft: SourceDoc; outcome: ProposalOutcome<ProposedFeedback> }> {
  const draft = fitDraft({ id: v.chunkId, version: v.version, text });
  const outcome = await propose({
    model,
    name: "feedback",
    description: "Feedback items on the draft for the request, each quoting the draft's words it is about.",
    schema: CRITIQUE_SCHEMA,
    system: CRITIQUE_SYSTEM,
    prompt: critiquePrompt(request, v.title, draft, evidence, checklist),
    maxOutputTokens: 2048,
    check: (value) => checkCritique(value, draft),
  });
  return { draft, outcome };
}

export function critiqueUseCases(d: AppDeps) {
  const chunks = d.stores.chunks;

  return {
    proposeFeedback: modelUseCase(d, actorOf, {
      check: (b: In<typeof S.FeedbackProposeBody>) => nodeIdCheck(b.node),
      async run(c, b): Promise<Result<Out>> {
        const { archive, t } = c;
        const id = draftId(b.node);
        const v =
          b.version === undefined
            ? (await chunks.visibleAt(archive, [id], t)).get(id)
            : await chunks.exact(archive, id, b.version);
        if (!v)
          return fail(
            "not_found",
            b.version === undefined
              ? `node ${b.node} has no draft valid at ${iso(t)}`
              : `node ${b.node} has no draft version ${b.version}`,
            b.version === undefined ? "node" : "version",
            "write one with POST /drafts",
          );
        const text = await d.kernel.contentOf(v.contentKey);
        if (text === null) return fail("unavailable", `the content of ${id} v${v.version} could not be read`);
        const evidence = (await draftEvidence(d, archive, id, v.version)).snippets;
        const checklist = b.checklist === "selected" ? await checklistAt(d, archive, b.scope, t) : ok(null);
        if (!checklist.ok) return checklist;
        const { outcome } = await critiqueVersion(c.model, v, text, b.request, evidence, checklist.value);
        if (!outcome.ok) return modelFailure(outcome);

        const ids = await Promise.all(outcome.items.map((f) => feedbackId(id, v.version, f)));
        const { writes, written } = await newProposals(chunks, archive, outcome.items, ids, b.dry_run);
        const read = [...new Set(evidence.map((e) => e.artifactId))];
        if (!b.dry_run && writes.length) {
          const kept = await c.keep(
            writes.map(({ item: f, id: fid }) => ({
              id: fid,
              kind: "note" as const,
              title: f.title,
              content: `${f.title}\n\n${f.text}`,
              boundaries: [FEEDBACK, `feedback:${f.category}`, ...(b.scope ? [b.scope] : [])],
              edges: [{ type: "introduced-by" as const, target: id, context: f.anchors[0]?.snippet }],
              valid_from: c.now,
              source: `model:${c.name}`,
            })),
            writes.map(({ item: f, id: fid }) => ({
              id: fid,
              provenance: { model: c.name, read: [id, ...read], sources: [id], anchors: f.anchors },
            })),
          );
          if (!kept.ok) return kept;
        }
        const listed = checklist.value;
        return ok(
          proposalAnswer(
            c,
            b.dry_run,
            {
              read: { draft: id, version: v.version, evidence: read },
              checklist: listed ? { id: listed.id, version: listed.version, title: listed.title } : null,
            },
            listProposals(
              outcome.items,
              ids,
              (f) => ({
                title: f.title,
                text: f.text,
                category: f.category,
                anchors: f.anchors,
                status: "auto-generated" as const,
              }),
              written,
            ),
            outcome,
          ),
        );
      },
    }),
  };
}
