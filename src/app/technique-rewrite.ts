/**
 * POST /techniques/rewrite: xKG's code rewriting (seed 003 §2.3.2 Step 2, App. C.3) by the
 * configured language model. The model reads the abstract of the technique's paper, the technique's
 * definition, for a composite technique its sub-techniques (the techniques part-of it) with the code
 * that implements each now, and the code units that implement the technique (or those given), at most
 * `max_code_bytes` of code; it answers one code node (implementation, test, documentation, the units
 * it took code from with a quoted line of each) or None. Checks (src/core/proposals/rewrite.ts): (a)
 * every quote is an exact span of its unit, (b) at least CORE_MIN of the implementation's core lines
 * are verbatim in the code shown, then (c) the verifier prompt answers true.
 *
 * A rewrite that passes is ingested as a `code_unit` chunk `<technique>#code:<content hash>` that
 * `implements` the technique (part-of its paper, `depends-on` the sub-techniques' code it cites),
 * with a `tests` unit `<id>#test` when `test` is not empty, source `model:<provider>:<model>` and a
 * `proposal` annotation (what was read, the sources, their anchors, the checks). Nothing is marked
 * reviewed: it stays `auto-generated` until POST /review verifies or flags it. One that fails a check
 * is returned with the reasons and stored nowhere, as the propose steps return what they drop.
 */

import type * as S from "../contract";
import { fail, ok, type Result } from "../core/errors";
import { paperAbstract } from "../core/export/xkg-model";
import { XKG_DOC_MARK } from "../core/formats/xkg";
import type { ArtifactInput } from "../core/ingest";
import type { ChatModel, StoredVersion } from "../core/ports";
import { contentHash, type ProposalUsage, propose } from "../core/proposals/propose";
import {
  type CodeDoc,
  checkRewrite,
  checkVerdict,
  coreCheck,
  fitCodeBytes,
  quotesCheck,
  REWRITE_SCHEMA,
  REWRITE_SYSTEM,
  type Rewrite,
  rewritePrompt,
  type SubTechnique,
  VERIFY_SCHEMA,
  VERIFY_SYSTEM,
  verifyPrompt,
} from "../core/proposals/rewrite";
import { actorOf } from "./auth";
import type { AppDeps } from "./deps";
import { addUsage, modelFailure, usageView } from "./lib/proposals";
import { answerHead, modelUseCase } from "./lib/use-case";
import { type In, iso } from "./lib/wire";
import { readContents } from "./research/common";

type Out = In<typeof S.RewriteResult>;

const MAX_ID = 512;
const MAX_SUBS = 12;
const MAX_UNITS = 30;

/** `<technique>#code:<hash>` (`code:<hash>` when that is too long) and its test's id. */
async function rewriteIds(technique: string, r: Rewrite): Promise<{ id: string; testId: string | null }> {
  const h = await contentHash([technique, r.implementation, r.test, r.documentation]);
  const long = `${technique}#code:${h}`;
  const id = long.length + 5 <= MAX_ID ? long : `code:${h}`;
  return { id, testId: r.test.trim() ? `${id}#test` : null };
}

/** Rules (a) and (b), then, when both pass, the verifier call (c); the reasons a check failed. */
async function checkAll(
  model: ChatModel,
  r: Rewrite,
  shown: readonly CodeDoc[],
  paperTitle: string,
  definition: string,
  spent: ProposalUsage,
) {
  const quotes = quotesCheck(r);
  const core = coreCheck(
    r.implementation,
    shown.map((x) => x.text),
  );
  const reasons = [...quotes.failures];
  if (!core.ok)
    reasons.push(
      `${core.found} of ${core.lines} core lines are verbatim in the code shown (${core.fraction}), below ${core.threshold}`,
    );
  let verifier: { verdict: boolean | null; reason: string } = {
    verdict: null,
    reason: "not asked: a rule check failed",
  };
  let usage = spent;
  if (reasons.length === 0) {
    const v = await propose({
      model,
      name: "verify_rewrite",
      description: "Whether the code block strictly follows the technique and the code files.",
      schema: VERIFY_SCHEMA,
      system: VERIFY_SYSTEM,
      prompt: verifyPrompt(paperTitle, definition, shown, r.implementation),
      maxOutputTokens: 1024,
      check: checkVerdict,
    });
    usage = addUsage(usage, v.usage);
    if (!v.ok) return modelFailure({ ...v, usage });
    verifier = v.items[0] ?? { verdict: false, reason: "no verdict" };
    if (verifier.verdict !== true) reasons.push(`the verifier answered false: ${verifier.reason}`);
  }
  return ok({ quotes, core, verifier, reasons, usage });
}

/** The rewrite as chunks: its code unit and, when it has a test, the test unit. */
function rewriteArtifacts(
  technique: string,
  techName: string,
  r: Rewrite,
  ids: { id: string; testId: string | null },
  paper: string | undefined,
  dependsOn: readonly string[],
  now: number,
  source: string,
): ArtifactInput[] {
  const partOf = paper ? [{ type: "part-of" as const, target: paper }] : [];
  const out: ArtifactInput[] = [
    {
      id: ids.id,
      kind: "code_unit",
      title: `${techName} (rewritten code)`,
      content: r.documentation ? `${r.implementation}${XKG_DOC_MARK}${r.documentation}` : r.implementation,
      boundaries: ["rewritten-code"],
      edges: [
        { type: "implements", target: technique },
        ...partOf,
        ...dependsOn.map((target) => ({ type: "depends-on" as const, target })),
      ],
      valid_from: now,
      source,
    },
  ];
  if (ids.testId)
    out.push({
      id: ids.testId,
      kind: "code_unit",
      title: `${techName} (test of rewritten code)`,
      content: r.test,
      boundaries: ["rewritten-test"],
      edges: [{ type: "tests", target: ids.id }, ...partOf],
      valid_from: now,
      source,
    });
  return out;
}

const usable = (v: StoredVersion) => v.kind === "code_unit" && !v.boundaries.includes("xkg:test");

/** What the model reads for the technique at t, or why the request names something unusable. */
async function gather(d: AppDeps, archive: string, b: In<typeof S.RewriteBody>, t: number) {
  const chunks = d.stores.chunks;
  const tech = (await chunks.visibleAt(archive, [b.technique], t)).get(b.technique);
  if (!tech) return fail("not_found", `chunk ${b.technique} has no version valid at ${iso(t)}`, "technique");
  if (tech.kind !== "technique")
    return fail("validation", `technique: ${b.technique} is a ${tech.kind} chunk, not a technique`, "technique");
  const parents = (await chunks.edgesAt(archive, [b.technique], "part-of", "out", t)).map((e) => e.to);
  const parentVs = await chunks.visibleAt(archive, parents, t);
  const paper =
    parents.map((p) => parentVs.get(p)).find((v) => v?.kind === "paper") ??
    parents.map((p) => parentVs.get(p)).find((v) => v !== undefined && v.kind !== "technique");
  const subIds = (await chunks.edgesAt(archive, [b.technique], "part-of", "in", t)).map((e) => e.to);
  const subVs = [...(await chunks.visibleAt(archive, subIds, t)).values()]
    .filter((v) => v.kind === "technique")
    .sort((x, y) => (x.chunkId < y.chunkId ? -1 : 1))
    .slice(0, MAX_SUBS);

  let own: StoredVersion[];
  if (b.code_units) {
    const got = await chunks.visibleAt(archive, b.code_units, t);
    const missing = b.code_units.find((id) => !got.has(id));
    if (missing !== undefined)
      return fail("not_found", `code_units: ${missing} has no version valid at ${iso(t)}`, "code_units");
    const wrong = [...got.values()].find((v) => v.kind !== "code_unit");
    if (wrong) return fail("validation", `code_units: ${wrong.chunkId} is a ${wrong.kind} chunk`, "code_units");
    own = b.code_units.map((id) => got.get(id) as StoredVersion);
  } else {
    const earlier = `${b.technique}#code:`;
    const ids = (await chunks.edgesAt(archive, [b.technique], "implements", "in", t))
      .map((e) => e.to)
      .filter((id) => !id.startsWith(earlier));
    const got = await chunks.visibleAt(archive, ids, t);
    own = ids.flatMap((id) => {
      const v = got.get(id);
      return v && usable(v) ? [v] : [];
    });
  }
  own = own.slice(0, MAX_UNITS);
  const subEdges = await chunks.edgesAt(
    archive,
    subVs.map((v) => v.chunkId),
    "implements",
    "in",
    t,
  );
  const subCodeVs = await chunks.visibleAt(
    archive,
    subEdges.map((e) => e.to),
    t,
  );
  const ownIds = new Set(own.map((v) => v.chunkId));
  const subCode = subEdges.flatMap((e) => {
    const v = subCodeVs.get(e.to);
    return v && usable(v) && !ownIds.has(e.to) ? [{ sub: e.from, v }] : [];
  });
  if (own.length === 0 && subCode.length === 0)
    return fail(
      "validation",
      `code_units: no code unit implements ${b.technique} (or its sub-techniques) at ${iso(t)}`,
      "code_units",
      "give code_units, or link code first (POST /techniques/propose, or POST /review add_edge implements)",
    );
  return ok({ tech, paper, subVs, own, subCode });
}

type Gathered = Extract<Awaited<ReturnType<typeof gather>>, { ok: true }>["value"];

/** The contents read, the code shown within maxCodeBytes (own first), and the sub-techniques with their code. */
async function readShown(d: AppDeps, g: Gathered, maxCodeBytes: number) {
  const { tech, paper, subVs, own, subCode } = g;
  const contents = await readContents(d, [
    tech.contentKey,
    ...(paper ? [paper.contentKey] : []),
    ...subVs.map((v) => v.contentKey),
    ...own.map((v) => v.contentKey),
    ...subCode.map((x) => x.v.contentKey),
  ]);
  const doc = (v: StoredVersion): CodeDoc => ({
    id: v.chunkId,
    version: v.version,
    title: v.title,
    text: contents.get(v.contentKey) ?? "",
  });
  // The technique's own code first, then its sub-techniques', within max_code_bytes.
  const shown = fitCodeBytes(
    [
      ...own.map((v) => ({ ...doc(v), sub: null as string | null })),
      ...subCode.map((x) => ({ ...doc(x.v), sub: x.sub })),
    ],
    maxCodeBytes,
  );
  const shownOwn = shown.filter((x) => x.sub === null);
  const subTechniques: SubTechnique[] = subVs.map((v) => ({
    id: v.chunkId,
    definition: (contents.get(v.contentKey) ?? v.title).replace(/\s+/gu, " ").trim(),
    code: shown.filter((x) => x.sub === v.chunkId),
  }));
  return { contents, shown, shownOwn, subTechniques };
}

export function techniqueRewriteUseCases(d: AppDeps) {
  const chunks = d.stores.chunks;

  return {
    rewriteTechnique: modelUseCase(d, actorOf, {
      async run(c, b: In<typeof S.RewriteBody>): Promise<Result<Out>> {
        const { archive, model, name, now, t } = c;
        const g = await gather(d, archive, b, t);
        if (!g.ok) return g;
        const { tech, paper, subVs, subCode } = g.value;

        const { contents, shown, shownOwn, subTechniques } = await readShown(d, g.value, b.max_code_bytes);
        const definition = contents.get(tech.contentKey) ?? tech.title;
        const paperTitle = paper?.title ?? "(unknown paper)";
        const abstract = paper ? paperAbstract(paper.title, contents.get(paper.contentKey) ?? "") : "";

        const outcome = await propose({
          model,
          name: "rewrite",
          description: "One self-contained code node for the technique, or none.",
          schema: REWRITE_SCHEMA,
          system: REWRITE_SYSTEM,
          prompt: rewritePrompt({ paperTitle, abstract, technique: definition, subTechniques, code: shownOwn }),
          maxOutputTokens: 8192,
          check: (v) => checkRewrite(v, shown),
        });
        if (!outcome.ok) return modelFailure(outcome);
        let usage = outcome.usage;
        const base = {
          ...answerHead(c, b.dry_run),
          technique: b.technique,
          paper: paper?.chunkId ?? null,
          read: {
            code_units: shownOwn.map((x) => x.id),
            sub_techniques: subVs.map((v) => v.chunkId),
            sub_code_units: shown.filter((x) => x.sub !== null).map((x) => x.id),
            code_bytes: shown.reduce((n, x) => n + new TextEncoder().encode(x.text).length, 0),
          },
        };
        const r = outcome.items[0];
        if (!r)
          return ok({
            ...base,
            outcome: "none" as const,
            id: null,
            test_id: null,
            rewrite: null,
            checks: null,
            reasons: ["the model answered None: the technique has no standalone implementation in the code given"],
            usage: usageView(usage),
          });

        const checked = await checkAll(model, r, shown, paperTitle, definition, usage);
        if (!checked.ok) return checked;
        const { quotes, core, verifier, reasons } = checked.value;
        usage = checked.value.usage;
        const checks = { quotes, core, verifier };
        const ids = await rewriteIds(b.technique, r);
        const result = {
          ...base,
          id: ids.id,
          test_id: ids.testId,
          rewrite: r,
          checks,
          reasons,
          usage: usageView(usage),
        };
        if (reasons.length) return ok({ ...result, outcome: "proposal" as const });
        if (await chunks.chunkRow(archive, ids.id)) return ok({ ...result, outcome: "existing" as const });
        if (b.dry_run) return ok({ ...result, outcome: "dry_run" as const });

        const cited = new Set(r.sources.filter((s) => s.anchor).map((s) => s.id));
        const techName = definition.split("\n")[0]?.trim().slice(0, 200) || tech.title;
        const deps = subCode.filter((x) => cited.has(x.v.chunkId)).map((x) => x.v.chunkId);
        const artifacts = rewriteArtifacts(b.technique, techName, r, ids, paper?.chunkId, deps, now, `model:${name}`);
        const kept = await c.keep(artifacts, [
          {
            id: ids.id,
            provenance: {
              model: name,
              read: [
                b.technique,
                ...(paper ? [paper.chunkId] : []),
                ...subVs.map((v) => v.chunkId),
                ...shown.map((x) => x.id),
              ],
              sources: [...cited],
              anchors: r.sources.flatMap((s) => (s.anchor ? [s.anchor] : [])),
              checks: { core_fraction: core.fraction, core_threshold: core.threshold, verifier: verifier.reason },
            },
          },
        ]);
        if (!kept.ok) return kept;
        return ok({ ...result, outcome: "stored" as const });
      },
    }),
  };
}
