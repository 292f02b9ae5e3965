/**
 * xKG's technique -> code retrieval: route the query over `technique` chunks only (the filter applies
 * before the top-M cut), follow `implements` edges into code exactly from D1 at `as_of`, and return
 * (technique, code) pairs whose score clears a threshold; techniques no code implements come back
 * flagged `grounded: false` (unless asked not to). Pairs keep the router's order.
 *
 * Score: the technique's cosine similarity to the query (the vector index's when the technique is
 * among its top 100 hits, else the 256-bit sketch estimate the router uses), comparable across
 * queries, unlike the router's head score and its lexical expert, which are relative to
 * the other candidates (both are returned as the score's parts, not thresholded).
 *
 * Threshold, measured on the 43 released xKG graphs with the local embedder (pg-hashed-tf-v1) by
 * `npx tsx scripts/eval.ts --data ../shared/testdata --only xkg` (it prints these numbers):
 * - exact lookup (the query is a technique's own name + description; 183 techniques with code): per
 *   query the right technique's score against the best wrong one's, in steps of 0.01. F1 is highest
 *   at 0.55 (precision 0.877, recall 0.978); precision reaches 0.9 at 0.59 (0.917, recall 0.907).
 *   But no pair of a realistic query scores that high: at 0.55 the 34 target-guide queries of the
 *   next point get no pair at all;
 * - reuse (what xKG does: a technique of a paper being replicated asks for related code in other
 *   papers; the techniques of 5 target guides, relevant graphs labelled from titles in
 *   scripts/data/xkg-target-labels.json, their top-10 pairs): the lowest score, in steps of 0.05,
 *   whose pair precision reaches 0.85 is 0.15 (precision 0.860, recall 0.761); chosen
 *   leave-one-guide-out it keeps precision 0.846 (recall 0.680) on the guide left out.
 * The default is the reuse point, 0.15; on exact lookups it keeps every right pair (recall 1.0) with
 * precision 0.501 against the best wrong one. Pass `threshold: 0.55` (or 0.59) for exact lookups,
 * -1 for every routed technique. The xKG paper's 0.6 (MiniLM cosine) and its release's 0.5 (fused
 * BM25 + cosine) are for other scores. With another embedder (Workers AI's bge-small-en-v1.5 in
 * production) cosines run higher and these values are not measured: run the eval against that
 * deployment (PAPERGURU_URL) to calibrate it.
 */
import type * as S from "../contract";
import { codeChunksOf } from "../contract/code";
import { ok, type Result } from "../core/errors";
import { XKG_DOC_MARK } from "../core/formats/xkg";
import { capPairCode, pairWindows } from "./code-pair-windows";
import { verifyPairs } from "./code-pairs-verify";
import type { AppDeps } from "./deps";
import { resolveFilter } from "./lib/filter";
import { noModel } from "./lib/proposals";
import { type In, iso, round4, timeOf } from "./lib/wire";

type Out = In<typeof S.CodePairsResult>;

/** The default pair threshold (see the header for how it was chosen). */
export const CODE_PAIR_THRESHOLD = 0.15;

/** Code contents are read 6 at a time (R2's simultaneous connections per request). */
const READS = 6;

/**
 * The code span of a code version's content: an imported xKG code node stores its documentation
 * after the implementation behind XKG_DOC_MARK (only versions tagged `xkg:code`); other code is whole.
 */
export function codeSpan(content: string, boundaries: readonly string[]): { end: number; bytes: number } {
  const at = boundaries.includes("xkg:code") ? content.indexOf(XKG_DOC_MARK) : -1;
  const end = at < 0 ? content.length : at;
  return { end, bytes: new TextEncoder().encode(content.slice(0, end)).length };
}

export function codePairUseCases(d: AppDeps) {
  return {
    async pairs(archive: string, b: In<typeof S.CodePairsBody>): Promise<Result<Out>> {
      const llm = d.models.llm;
      if (b.verify && !llm) return noModel();
      const t = timeOf(d, b.as_of);
      const threshold = b.threshold ?? CODE_PAIR_THRESHOLD;
      const filter = await resolveFilter(
        d.stores.chunks,
        archive,
        {
          kinds: ["technique"],
          ...(b.within ? { within: b.within } : {}),
          ...(b.boundaries_any ? { boundaries_any: b.boundaries_any } : {}),
          ...(b.boundaries_all ? { boundaries_all: b.boundaries_all } : {}),
        },
        t,
      );
      const r = await d.kernel.route({ archiveId: archive, query: b.query, asOf: t, limit: b.limit, filter });
      const cosine = new Map(r.semantic.map((h) => [h.chunk, h.score]));
      const experts = new Map(r.route.candidates.map((c) => [c.chunk, c.experts]));
      const techniques = r.route.selected.map((s) => {
        const fromIndex = cosine.get(s.chunk);
        const e = experts.get(s.chunk);
        const semantic = fromIndex ?? e?.sem ?? 0;
        return {
          id: s.chunk,
          score: semantic,
          parts: {
            semantic: round4(semantic),
            semantic_from: fromIndex === undefined ? ("sketch" as const) : ("index" as const),
            lexical: round4(e?.lex ?? 0),
            route: round4(s.score),
          },
        };
      });
      const kept = techniques.filter((x) => x.score >= threshold);
      const ids = kept.map((x) => x.id);
      const impl = ids.length ? await d.stores.chunks.edgesAt(archive, ids, "implements", "in", t) : [];
      const codeOf = new Map<string, string[]>();
      for (const e of impl) codeOf.set(e.from, [...(codeOf.get(e.from) ?? []), e.to]);
      const all = [...new Set([...ids, ...impl.map((e) => e.to)])];
      const visible = all.length ? await d.stores.chunks.visibleAt(archive, all, t) : new Map();
      // The code versions' contents give their code span and its size.
      const codeIds = [...new Set(impl.map((e) => e.to))].filter((id) => visible.has(id));
      const spans = new Map<string, { end: number; bytes: number }>();
      for (let i = 0; i < codeIds.length; i += READS)
        await Promise.all(
          codeIds.slice(i, i + READS).map(async (id) => {
            const v = visible.get(id);
            const content = v ? await d.kernel.contentOf(v.contentKey) : null;
            if (v && content !== null) spans.set(id, codeSpan(content, v.boundaries));
          }),
        );
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
      const code = (id: string) => {
        const n = node(id);
        const span = spans.get(id);
        return n && span ? { ...n, anchor: { ...n.anchor, end: span.end }, bytes: span.bytes } : null;
      };
      const pairs: Out["pairs"] = [];
      for (const x of kept) {
        const technique = node(x.id);
        if (!technique) continue;
        const codes = (codeOf.get(x.id) ?? []).map(code).filter((n) => n !== null);
        const base = { technique, score: round4(x.score), parts: x.parts };
        if (codes.length) for (const c of codes) pairs.push({ ...base, code: c, grounded: true });
        else if (b.include_ungrounded) pairs.push({ ...base, code: null, grounded: false });
      }
      const read = async (id: string) => {
        const v = visible.get(id);
        return v ? d.kernel.contentOf(v.contentKey) : null;
      };
      // xKG's verifier (code-pairs-verify.ts) filters and reorders the pairs before the code cap.
      const verified = b.verify && llm ? await verifyPairs(llm, b.query, pairs, read) : null;
      if (verified && !verified.ok) return verified;
      const windows = codeChunksOf(b.code_chunks);
      if (windows) await pairWindows(pairs, windows, read);
      const capped = await capCode(pairs, b.max_code_bytes, read);
      return ok({
        as_of: iso(t),
        threshold,
        pairs,
        below_threshold: techniques.length - kept.length,
        ...capped,
        ...(verified ? { verifier: verified.value } : {}),
      });
    },
  };
}

/**
 * Holds the pairs' code to `max` UTF-8 bytes together, in pair order (code-pair-windows.ts, on the
 * pure cap of src/core/code/cap.ts shared with /context). In place.
 */
export function capCode(
  pairs: Out["pairs"],
  max: number | undefined,
  contentOf: (id: string) => Promise<string | null>,
): Promise<{ code_bytes: number; code_left_out: number }> {
  return capPairCode(pairs, max, contentOf);
}
