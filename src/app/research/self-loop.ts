/**
 * POST /feedback/loop: SGMC's Self-Loop Memory (seed 001 §3.3, Eqs. 11, 13, 14) on one section draft
 * through the configured model. Y^(0) is the node's current draft (Eq. 11: the agent's own output,
 * POST /drafts). For x = 0 … x_max − 1 the model reviews Y^(x) referring to r*, the record Eq. 12
 * selects within the scope (R^(x) = A_M(Y^(x), r*), Eq. 13); each review is kept as the next version
 * of `<node>#review` (kind note, boundary `sgmc:review`, part-of the node; content JSON with the
 * reviewed draft version, r* and the feedback items with their anchors in that version). A review
 * without feedback ends the loop (`no_feedback`); otherwise the model rewrites the draft following it
 * (Y^(x+1) = A_W(C, R^(x)), Eq. 14), stored as the next draft version with the evidence anchors of the
 * version it revised (they must still verify). After x_max reviews with feedback it ends (`x_max`).
 * A model failure is a 503; the iterations before it stay stored as versions.
 */

import type * as S from "../../contract";
import { fail, ok, type Result } from "../../core/errors";
import { newUsage, type ProposalUsage, propose } from "../../core/proposals/propose";
import { checkRefine, REFINE_SCHEMA, REFINE_SYSTEM, refinePrompt } from "../../core/proposals/sgmc-refine";
import { RESEARCH_REVIEW } from "../../core/query";
import type { AppDeps } from "../deps";
import { modelCall, modelFailure, modelName, usageView } from "../lib/proposals";
import { type In, iso } from "../lib/wire";
import { draftId, nodeIdCheck } from "./common";
import { checklistAt, critiqueVersion, draftEvidence } from "./critique";
import { draftUseCases } from "./drafts";

type Out = In<typeof S.FeedbackLoopResult>;

export const REVIEW = RESEARCH_REVIEW;
export const reviewId = (node: string) => `${node}#review`;

const add = (u: ProposalUsage, v: ProposalUsage) => {
  u.calls += v.calls;
  u.requests += v.requests;
  u.retries += v.retries;
  u.inputTokens += v.inputTokens;
  u.outputTokens += v.outputTokens;
  u.ms += v.ms;
};

export function selfLoopUseCases(d: AppDeps) {
  const chunks = d.stores.chunks;
  const drafts = draftUseCases(d);

  return {
    async feedbackLoop(archive: string, b: In<typeof S.FeedbackLoopBody>): Promise<Result<Out>> {
      // The loop starts now: the request has no as_of.
      const pre = await modelCall(d, archive, undefined, nodeIdCheck(b.node));
      if (!pre.ok) return pre;
      const { model, now: t0 } = pre.value;
      const did = draftId(b.node);
      let v = (await chunks.visibleAt(archive, [did], t0)).get(did);
      if (!v)
        return fail(
          "not_found",
          `node ${b.node} has no draft valid at ${iso(t0)}`,
          "node",
          "write one with POST /drafts",
        );
      const checklist = b.checklist === "selected" ? await checklistAt(d, archive, b.scope, t0) : ok(null);
      if (!checklist.ok) return checklist;
      const r = checklist.value;
      const usage = newUsage();
      const iterations: Out["iterations"] = [];
      const dropped: Out["dropped"] = [];
      let stop: Out["stop"] = "x_max";

      for (let x = 0; x < b.x_max; x++) {
        const text = await d.kernel.contentOf(v.contentKey);
        if (text === null) return fail("unavailable", `the content of ${did} v${v.version} could not be read`);
        const ev = await draftEvidence(d, archive, did, v.version);
        const review = await critiqueVersion(model, v, text, b.request, ev.snippets, r);
        add(usage, review.outcome.usage);
        if (!review.outcome.ok) return modelFailure(review.outcome);
        for (const x2 of review.outcome.dropped)
          dropped.push({ x, index: x2.index, title: x2.title, reason: `${x2.what}: ${x2.reason}` });
        const feedback = review.outcome.items.map((f) => ({
          title: f.title,
          text: f.text,
          category: f.category,
          anchors: f.anchors,
        }));
        const stored = await d.kernel.ingest(archive, [
          {
            id: reviewId(b.node),
            kind: "note" as const,
            title: `Review: ${v.title}`.slice(0, 1000),
            content: JSON.stringify({
              x,
              draft: { id: did, version: v.version },
              checklist: r ? { id: r.id, version: r.version, title: r.title } : null,
              request: b.request,
              feedback,
            }),
            boundaries: [REVIEW],
            edges: [{ type: "part-of" as const, target: b.node }],
            valid_from: d.clock.now(),
            source: `model:${modelName(model)}`,
          },
        ]);
        if (!stored.ok) return stored;
        const rv = stored.value.results[0] as { version: number };
        const item: Out["iterations"][number] = {
          x,
          draft: { id: did, version: v.version },
          review: { id: reviewId(b.node), version: rv.version },
          feedback,
          refined: null,
        };
        iterations.push(item);
        if (feedback.length === 0) {
          stop = "no_feedback";
          break;
        }
        // Eq. 14: the worker refines with the context and the feedback.
        const refined = await propose({
          model,
          name: "revision",
          description: "The whole revised section with every feedback item applied.",
          schema: REFINE_SCHEMA,
          system: REFINE_SYSTEM,
          prompt: refinePrompt(b.request, v.title, review.draft, review.outcome.items, ev.snippets),
          maxOutputTokens: 8192,
          check: checkRefine,
        });
        add(usage, refined.usage);
        if (!refined.ok) return modelFailure(refined);
        const next = refined.items[0] as string;
        const w = await drafts.draft(archive, {
          node: b.node,
          text: next,
          evidence: ev.anchors,
          at: iso(d.clock.now()),
        });
        if (!w.ok) return w;
        item.refined = w.value.draft;
        const nv = await chunks.exact(archive, did, w.value.draft.version);
        if (!nv) return fail("unavailable", `the draft ${did} v${w.value.draft.version} could not be read back`);
        v = nv;
      }
      return ok({
        node: b.node,
        model: modelName(model),
        checklist: r ? { id: r.id, version: r.version, title: r.title } : null,
        iterations,
        stop,
        final: { id: did, version: v.version },
        dropped,
        usage: usageView(usage),
      });
    },
  };
}
