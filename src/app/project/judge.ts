/**
 * POST …/projectguard/judge: the bounded rubric judge (seed 002 §3.4, Prompt E) through the model
 * port. Per component (a record id whose `spec` annotation is set, or an inline spec), the reads are
 * the code units under `prefix` that the router ranks highest for the component's description and
 * formula, at most `tool_calls` (8) of them, each a file's head: the context 8 repository-inspection
 * tool calls would give. The model answers score 0-4, evidence and deviation (src/core/projectguard/
 * judge.ts checks them). Nothing is written: store the scores as a run with POST …/projectguard/runs.
 */

import type * as S from "../../contract";
import { ok, type Result } from "../../core/errors";
import {
  checkVerdict,
  JUDGE_SCHEMA,
  JUDGE_SYSTEM,
  type JudgeRead,
  type JudgeSpec,
  judgePrompt,
  MAX_READ_CHARS,
} from "../../core/projectguard/judge";
import { newUsage, propose } from "../../core/proposals/propose";
import { actorOf } from "../auth";
import type { AppDeps } from "../deps";
import { addUsage, modelFailure, usageView } from "../lib/proposals";
import { modelUseCase } from "../lib/use-case";
import { type In, iso } from "../lib/wire";
import { tooManyCodeUnits } from "../metrics";
import { specsAt } from "./spec";

type Out = In<typeof S.PgJudgeResult>;

/** Code units under the prefix the reads are chosen from (beyond: 413 naming the prefix). */
const MAX_CODE_UNITS = 2000;

export function judgeUseCases(d: AppDeps) {
  const chunks = d.stores.chunks;
  return {
    judge: modelUseCase(d, actorOf, {
      async run({ archive, t, model, name }, b: In<typeof S.PgJudgeBody>): Promise<Result<Out>> {
        const code: string[] = [];
        let after: string | null = null;
        for (;;) {
          const page = await chunks.listChunks(archive, { asOf: t, kind: "code_unit", prefix: b.prefix }, after, 500);
          code.push(...page.map((r) => r.chunkId));
          if (code.length > MAX_CODE_UNITS)
            return tooManyCodeUnits(MAX_CODE_UNITS, b.prefix, "narrow the prefix to one repository");
          if (page.length < 500) break;
          after = page[page.length - 1]?.chunkId ?? null;
        }
        const named = b.components.filter((c): c is string => typeof c === "string");
        const specs = await specsAt(d, archive, named, t);
        const dropped: Out["dropped"] = [];
        const todo: JudgeSpec[] = [];
        for (const [i, c] of b.components.entries()) {
          if (typeof c !== "string") {
            todo.push(c);
            continue;
          }
          const s = specs.get(c);
          if (s) todo.push({ id: c, ...s });
          else
            dropped.push({
              component: c,
              reason: `components.${i}: ${c} has no spec at ${iso(t)} (POST …/projectguard/spec)`,
            });
        }
        let usage = newUsage();
        const scores: Out["scores"] = [];
        for (const spec of todo) {
          const reads: JudgeRead[] = [];
          if (code.length) {
            const routed = await d.kernel.route({
              archiveId: archive,
              query: [spec.description, spec.formula, ...spec.connections].filter(Boolean).join("\n").slice(0, 8000),
              asOf: t,
              limit: b.tool_calls,
              filter: { kinds: ["code_unit"], only: code },
            });
            const ids = routed.route.selected.map((r) => r.chunk).slice(0, b.tool_calls);
            const heads = await chunks.visibleAt(archive, ids, t);
            for (const id of ids) {
              const h = heads.get(id);
              if (!h) continue;
              reads.push({ id, version: h.version, text: (await d.kernel.contentOf(h.contentKey)) ?? "" });
            }
          }
          const outcome = await propose({
            model,
            name: "component_score",
            description: "The rubric score of one component against the repository files shown, with evidence.",
            schema: JUDGE_SCHEMA,
            system: JUDGE_SYSTEM,
            prompt: judgePrompt(spec, reads, b.tool_calls),
            maxOutputTokens: 512,
            check: (v) => {
              const r = checkVerdict(v, reads);
              return typeof r === "string" ? r : { items: [r], dropped: [] };
            },
          });
          if (!outcome.ok) return modelFailure(outcome);
          usage = addUsage(usage, outcome.usage);
          const v = outcome.items[0];
          if (!v) {
            dropped.push({ component: spec.id, reason: "the model's answer held no verdict" });
            continue;
          }
          scores.push({
            component: spec.id,
            score: v.score,
            evidence: v.evidence,
            deviation: v.deviation,
            read: reads.map((r) => ({ id: r.id, version: r.version, chars: Math.min(r.text.length, MAX_READ_CHARS) })),
          });
        }
        return ok({ as_of: iso(t), model: name, scores, dropped, usage: usageView(usage) });
      },
    }),
  };
}
