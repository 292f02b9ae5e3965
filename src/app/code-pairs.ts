/**
 * xKG's technique -> code retrieval: route the query over `technique` chunks only (the filter applies
 * before the top-M cut), follow `implements` edges into code exactly from D1 at `as_of`, and return
 * (technique, code) pairs whose score clears a threshold; techniques no code implements come back
 * flagged `grounded: false` (unless asked not to).
 *
 * Score: the technique's cosine similarity to the query (the vector index's when the technique is
 * among its hits, else the 256-bit sketch estimate the router uses), comparable across queries,
 * unlike the router's product-of-experts score, which is relative to the other candidates.
 *
 * Threshold 0.15, measured on the 43 released xKG graphs (`npm run eval -- --only xkg`, which prints
 * the calibration). The local embedder gives paraphrases low cosines, and the two uses of the call
 * need different points:
 * - reuse (what xKG does: a technique of a paper being replicated asks for related code in other
 *   papers): the lowest score, in steps of 0.05, whose pair precision on the labelled realistic
 *   queries (the techniques of the 6 target guides, relevant graphs labelled from titles in
 *   scripts/data/xkg-target-labels.json) reaches 0.85. That is 0.15; chosen leave-one-guide-out it
 *   keeps its precision on the guide left out (the eval reports both). This is the default;
 * - exact lookup (the query describes one technique, asking for its own code): the score that best
 *   separates that pair from the other routed ones on the 183 techniques with code, 0.55; pass
 *   `threshold: 0.55`.
 * The xKG paper uses 0.6 with MiniLM and its release 0.5 on a fused BM25 + cosine score; neither
 * transfers to another embedder, hence the measurement. -1 returns every routed technique.
 */
import type { z } from "zod";
import type * as S from "../contract";
import { ok, type Result } from "../core/errors";
import { iso, round4 } from "./browse";
import type { AppDeps } from "./deps";
import { resolveFilter } from "./operations";

type In<T extends z.ZodType> = z.infer<T>;
type Out = z.infer<typeof S.CodePairsResult>;

/** The default pair threshold (see the header for how it was chosen). */
export const CODE_PAIR_THRESHOLD = 0.15;

export function codePairUseCases(d: AppDeps) {
  return {
    async pairs(archive: string, b: In<typeof S.CodePairsBody>): Promise<Result<Out>> {
      const t = b.as_of === undefined ? d.clock.now() : Date.parse(b.as_of);
      const threshold = b.threshold ?? CODE_PAIR_THRESHOLD;
      const filter = await resolveFilter(
        d.stores.chunks,
        archive,
        { kinds: ["technique"], ...(b.within ? { within: b.within } : {}) },
        t,
      );
      const r = await d.kernel.route({ archiveId: archive, query: b.query, asOf: t, limit: b.limit, filter });
      const cosine = new Map(r.semantic.map((h) => [h.chunk, h.score]));
      const sem = new Map(r.route.candidates.map((c) => [c.chunk, c.experts.sem]));
      const techniques = r.route.selected.map((s) => ({
        id: s.chunk,
        route: s.score,
        score: cosine.get(s.chunk) ?? sem.get(s.chunk) ?? 0,
      }));
      const kept = techniques.filter((x) => x.score >= threshold);
      const ids = kept.map((x) => x.id);
      const impl = ids.length ? await d.stores.chunks.edgesAt(archive, ids, "implements", "in", t) : [];
      const codeOf = new Map<string, string[]>();
      for (const e of impl) codeOf.set(e.from, [...(codeOf.get(e.from) ?? []), e.to]);
      const all = [...new Set([...ids, ...impl.map((e) => e.to)])];
      const visible = all.length ? await d.stores.chunks.visibleAt(archive, all, t) : new Map();
      const node = (id: string) => {
        const v = visible.get(id);
        return v
          ? {
              id,
              version: v.version,
              title: v.title,
              anchor: { artifact_id: id, version: v.version, start: 0, end: v.contentChars },
            }
          : null;
      };
      const pairs: Out["pairs"] = [];
      for (const x of kept) {
        const technique = node(x.id);
        if (!technique) continue;
        const code = (codeOf.get(x.id) ?? []).map(node).filter((n) => n !== null);
        const base = { technique, score: round4(x.score), route_score: round4(x.route) };
        if (code.length) for (const c of code) pairs.push({ ...base, code: c, grounded: true });
        else if (b.include_ungrounded) pairs.push({ ...base, code: null, grounded: false });
      }
      return ok({ as_of: iso(t), threshold, pairs, below_threshold: techniques.length - kept.length });
    },
  };
}
