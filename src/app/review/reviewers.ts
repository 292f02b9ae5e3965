/**
 * POST /reviewers: reviewer reports for a paper (Paper Circle, seed 004 C33) from the configured
 * language model, off by default (409 naming the setting without one). The model reads the paper
 * chunk and the sections and elements `part-of` it (exact versions valid at `as_of`); each kept claim
 * is an exact span of one of those versions (src/core/review-agents.ts), the rest are dropped and
 * counted. A report is written as a `note` chunk `<paper>/review-<hash>` (boundaries `review-report`
 * and `reviewer:<angle>`, an `introduced-by` edge to the paper, source `model:<provider>:<model>`)
 * with a `proposal` annotation holding its anchors; it is auto-generated until a user reviews it
 * (POST /review). Ids come from the paper version and a content hash: a retry writes nothing new.
 */

import type * as S from "../../contract";
import { fail, ok, type Result } from "../../core/errors";
import type { StoredVersion } from "../../core/ports";
import { contentHash, fitDocs, propose, type SourceDoc } from "../../core/proposals/propose";
import {
  checkReviews,
  MAX_PROMPT_SOURCE_CHARS,
  MAX_SOURCE_CHARS,
  type ReviewReport,
  reviewPrompt,
  reviewSchema,
  reviewSystem,
} from "../../core/review-agents";
import { actorOf } from "../auth";
import type { AppDeps } from "../deps";
import { modelFailure, newProposals, usageView } from "../lib/proposals";
import { answerHead, listProposals, modelUseCase } from "../lib/use-case";
import { type In, iso } from "../lib/wire";

/** Sections and elements of a paper read per review (the first ones, in id order). */
const MAX_PARTS = 60;
const MAX_ID = 512;

async function reportId(paper: string, version: number, r: ReviewReport): Promise<string> {
  const h = await contentHash([paper, String(version), r.reviewer, r.summary, ...r.claims.map((c) => c.text)]);
  const id = `${paper}/review-${h}`;
  return id.length <= MAX_ID ? id : `review:${h}`;
}

function reportText(r: ReviewReport): string {
  const lines = [
    `Reviewer: ${r.reviewer}`,
    `Score: ${r.score} / 10 (confidence ${r.confidence} / 5)`,
    "",
    r.summary,
    "",
  ];
  for (const c of r.claims) lines.push(`- ${c.kind}: ${c.text} [${c.anchor.artifact_id}@v${c.anchor.version}]`);
  return lines.join("\n");
}

/** The reviewer's angle as a boundary: lower case, runs of other characters one dash, at most 60. */
const reviewerSlug = (reviewer: string) =>
  reviewer
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 60);

/** The paper and the sections and elements part-of it (the first MAX_PARTS, in id order) at t, fitted to the prompt. */
async function paperDocs(d: AppDeps, archive: string, head: StoredVersion, t: number): Promise<SourceDoc[]> {
  const chunks = d.stores.chunks;
  const partIds = (await chunks.subtree(archive, head.chunkId, t, MAX_PARTS + 1))
    .filter((x) => x !== head.chunkId)
    .sort();
  const parts = [...(await chunks.visibleAt(archive, partIds.slice(0, MAX_PARTS), t)).values()].filter(
    (v) => v.kind === "section" || v.kind === "element",
  );
  const versions = [head, ...parts.sort((a, z) => (a.chunkId < z.chunkId ? -1 : 1))];
  const texts = await Promise.all(versions.map((v) => d.kernel.contentOf(v.contentKey)));
  return fitDocs(
    versions.flatMap((v, i) => {
      const text = texts[i];
      return text ? [{ id: v.chunkId, version: v.version, text }] : [];
    }),
    MAX_SOURCE_CHARS,
    MAX_PROMPT_SOURCE_CHARS,
  );
}

export function reviewerUseCases(d: AppDeps) {
  const chunks = d.stores.chunks;
  return {
    proposeReviews: modelUseCase(d, actorOf, {
      async run(c, b: In<typeof S.ReviewersBody>): Promise<Result<In<typeof S.ReviewersResult>>> {
        const { archive, t } = c;
        const head = (await chunks.visibleAt(archive, [b.paper], t)).get(b.paper);
        if (head?.kind !== "paper")
          return fail(
            "not_found",
            head ? `${b.paper} is a ${head.kind}, not a paper` : `no paper ${b.paper} valid at ${iso(t)}`,
            "paper",
            "give the id of a paper chunk (GET /chunks?kind=paper lists them)",
          );
        const docs = await paperDocs(d, archive, head, t);
        if (!docs.length) return fail("unavailable", `the content of ${b.paper} v${head.version} could not be read`);
        const outcome = await propose({
          model: c.model,
          name: "reviews",
          description: "Reviewer reports on the paper, every claim quoting the text of the id it cites.",
          schema: reviewSchema(
            docs.map((x) => x.id),
            b.reviewers,
          ),
          system: reviewSystem(b.reviewers, b.focus),
          prompt: reviewPrompt(docs),
          maxOutputTokens: 3000,
          check: (value) => checkReviews(value, docs, b.reviewers),
        });
        if (!outcome.ok) return modelFailure(outcome);
        const ids = await Promise.all(outcome.items.map((r) => reportId(b.paper, head.version, r)));
        const { writes, written } = await newProposals(chunks, archive, outcome.items, ids, b.dry_run);
        if (!b.dry_run && writes.length) {
          const kept = await c.keep(
            writes.map(({ item: r, id }) => ({
              id,
              kind: "note" as const,
              title: `Review of ${head.title} (${r.reviewer})`.slice(0, 1000),
              content: reportText(r),
              boundaries: ["review-report", `reviewer:${reviewerSlug(r.reviewer)}`],
              edges: [{ type: "introduced-by" as const, target: b.paper, context: r.claims[0]?.anchor.snippet }],
              valid_from: c.now,
              source: `model:${c.name}`,
            })),
            writes.map(({ item: r, id }) => ({
              id,
              provenance: {
                model: c.name,
                read: docs.map((x) => x.id),
                sources: [...new Set(r.claims.map((x) => x.anchor.artifact_id))],
                anchors: r.claims.map((x) => x.anchor),
              },
            })),
          );
          if (!kept.ok) return kept;
        }
        return ok({
          paper: b.paper,
          ...answerHead(c, b.dry_run),
          read: docs.map((x) => ({ id: x.id, version: x.version })),
          reports: listProposals(
            outcome.items,
            ids,
            (r) => ({
              reviewer: r.reviewer,
              summary: r.summary,
              score: r.score,
              confidence: r.confidence,
              claims: r.claims,
              status: "auto-generated" as const,
            }),
            written,
          ),
          dropped: outcome.dropped,
          dropped_claims: outcome.dropped.filter((x) => x.what === "evidence").length,
          usage: usageView(outcome.usage),
        });
      },
    }),
  };
}
