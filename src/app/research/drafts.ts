/**
 * Drafts: `<node>#draft` (kind section, boundary `sgmc:draft`, part-of the node) gets one version per
 * iteration; a version cites the artifacts of the anchors it rests on, which must verify when it is
 * written, and the anchors are kept as the annotation `sgmc:evidence` of that version. Convergence
 * scores consecutive versions (Eq. 10).
 */
import type * as S from "../../contract";
import { fail, ok, type Result } from "../../core/errors";
import type { AnchoredSpan } from "../../core/types";
import type { AppDeps } from "../deps";
import { toEvent } from "../lib/records";
import { versionAt } from "../lib/versions";
import { type In, iso, timeOf } from "../lib/wire";
import { DRAFT, draftId, EVIDENCE_KEY, nodeIdCheck } from "./common";
import { draftConvergence } from "./draft-convergence";

export function draftUseCases(d: AppDeps) {
  const chunks = d.stores.chunks;

  return {
    async draft(archive: string, b: In<typeof S.DraftBody>): Promise<Result<In<typeof S.DraftResult>>> {
      const at = timeOf(d, b.at);
      const node = nodeIdCheck(b.node) ?? (await versionAt(chunks, archive, b.node, at, "node"));
      if (!node.ok) return node;
      const anchors: AnchoredSpan[] = b.evidence.map((a) => ({ ...a }));
      if (anchors.length) {
        const checked = await d.kernel.verify(archive, anchors);
        const i = checked.findIndex((c) => !c.verified);
        if (i >= 0)
          return fail(
            "validation",
            `evidence.${i} does not verify: ${(checked[i] as { reason: string }).reason}`,
            `evidence.${i}`,
            "quote the exact text at [start, end) of that version (GET /chunks/{id}/content), e.g. an anchor of the hub",
          );
      }
      const cites = [...new Set(anchors.map((a) => a.artifact_id))];
      const res = await d.kernel.ingest(archive, [
        {
          id: draftId(b.node),
          kind: "section",
          title: node.value.title,
          content: b.text,
          boundaries: [DRAFT],
          edges: [{ type: "part-of", target: b.node }, ...cites.map((s) => ({ type: "cites" as const, target: s }))],
          valid_from: at,
        },
      ]);
      if (!res.ok) return res;
      const item = res.value.results[0] as { status: "created" | "updated" | "unchanged"; version: number };
      if (item.status !== "unchanged" || anchors.length)
        await d.stores.annotations.appendAnnotation({
          archiveId: archive,
          chunkId: draftId(b.node),
          version: item.version,
          key: EVIDENCE_KEY,
          op: "set",
          value: anchors,
          actor: "sgmc",
          reason: "the anchors this draft version rests on",
          at,
          recordedAt: d.clock.now(),
          eventId: null,
        });
      return ok({
        node: b.node,
        draft: { id: draftId(b.node), version: item.version, status: item.status },
        iteration: item.version - 1,
        cites,
        evidence: anchors,
      });
    },

    async readDraft(archive: string, q: In<typeof S.DraftQuery>): Promise<Result<In<typeof S.DraftView>>> {
      const t = timeOf(d, q.as_of);
      const id = draftId(q.node);
      const v = (await chunks.visibleAt(archive, [id], t)).get(id);
      if (!v) return fail("not_found", `node ${q.node} has no draft valid at ${iso(t)}`, "node");
      const text = (await d.kernel.contentOf(v.contentKey)) ?? "";
      const cites = (await chunks.edgesAt(archive, [id], "cites", "out", t)).map((e) => e.to);
      const events = (await d.stores.annotations.annotationsOf(archive, [id], EVIDENCE_KEY, t)).map(toEvent);
      const mine = events.filter((e) => e.version === v.version);
      const last = mine[mine.length - 1];
      const evidence = Array.isArray(last?.value) ? (last.value as AnchoredSpan[]) : [];
      return ok({
        node: q.node,
        draft: id,
        as_of: iso(t),
        version: v.version,
        iteration: v.version - 1,
        valid_from: iso(v.validFrom),
        text,
        cites: [...new Set(cites)].sort(),
        evidence,
      });
    },

    async convergence(
      archive: string,
      q: In<typeof S.ConvergenceQuery>,
    ): Promise<Result<In<typeof S.ConvergenceResult>>> {
      const t = timeOf(d, q.as_of);
      const r = await draftConvergence(d, archive, q.draft, t, q.epsilon, q.t_max, q.measure, q.max_versions);
      if (!r.ok) return r;
      return ok({
        draft: q.draft,
        as_of: iso(t),
        epsilon: q.epsilon,
        t_max: q.t_max,
        measure: q.measure,
        versions: r.value.versions.map(({ text: _t, ...v }) => v),
        pairs: r.value.pairs,
        stop: r.value.stop,
        truncated: r.value.truncated,
      });
    },
  };
}
