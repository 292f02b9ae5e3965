/**
 * Review-score metrics (Paper Circle, seed 004 §4): predicted against human review scores, from pairs
 * given inline and/or read from stored annotations (two keys on each chunk, as of a time).
 */

import type * as S from "../../contract";
import { foldAnnotations } from "../../core/annotations";
import { fail, ok, type Result } from "../../core/errors";
import { type ScorePair, scoreMetrics, scoreOf } from "../../core/review-scores";
import type { AppDeps } from "../deps";
import { missingArchive } from "../lib/archives";
import { toEvent } from "../lib/records";
import { type In, iso, round4, timeOf } from "../lib/wire";

const r4 = (x: number | null) => (x === null ? null : round4(x));

export function reviewScoreUseCases(d: AppDeps) {
  return {
    /** POST /metrics/review-scores. */
    async reviewScores(
      archive: string,
      b: In<typeof S.ReviewScoreMetricsBody>,
    ): Promise<Result<In<typeof S.ReviewScoreMetrics>>> {
      const absent = await missingArchive(d.stores.archives, archive);
      if (absent) return absent;
      if (b.pairs === undefined && b.annotations === undefined)
        return fail(
          "validation",
          "give score pairs or the annotation keys to read them from",
          "pairs",
          'pass "pairs": [{"predicted": 6, "human": 5}, …] or "annotations": {"chunks": […], "predicted_key": …, "human_key": …}',
        );
      const t = timeOf(d, b.as_of);
      const pairs: ScorePair[] = (b.pairs ?? []).map((p) => ({ predicted: p.predicted, human: p.human }));
      const skipped: Array<{ chunk: string; missing: string[] }> = [];
      const a = b.annotations;
      if (a) {
        if (a.predicted_key === a.human_key)
          return fail(
            "validation",
            "predicted_key and human_key are the same key",
            "annotations.human_key",
            "name the key holding the human scores",
          );
        const chunks = [...new Set(a.chunks)];
        const byChunk = new Map<string, ReturnType<typeof toEvent>[]>();
        for (let i = 0; i < chunks.length; i += 100) {
          const slice = chunks.slice(i, i + 100);
          for (const key of [a.predicted_key, a.human_key])
            for (const r of await d.stores.annotations.annotationsOf(archive, slice, key, t))
              byChunk.set(r.chunkId, [...(byChunk.get(r.chunkId) ?? []), toEvent(r)]);
        }
        for (const c of chunks) {
          const folded = foldAnnotations(byChunk.get(c) ?? [], t);
          const predicted = scoreOf(folded.get(a.predicted_key)?.value);
          const human = scoreOf(folded.get(a.human_key)?.value);
          if (predicted === null || human === null)
            skipped.push({
              chunk: c,
              missing: [...(predicted === null ? [a.predicted_key] : []), ...(human === null ? [a.human_key] : [])],
            });
          else pairs.push({ predicted, human });
        }
      }
      const m = scoreMetrics(pairs);
      return ok({
        n: m.n,
        mse: round4(m.mse),
        mae: round4(m.mae),
        rmse: round4(m.rmse),
        pearson: r4(m.pearson),
        spearman: r4(m.spearman),
        accuracy_within: Object.fromEntries(Object.entries(m.accuracy_within).map(([k, v]) => [k, round4(v)])),
        skipped,
        as_of: iso(t),
      });
    },
  };
}
