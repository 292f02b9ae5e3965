/** Readable text for query results (the `--json` flag prints the server's JSON instead). */
import type { Anchor, Card, ContextResponse, RouteResponse, VerifyResult } from "../client";
import { table, wrap } from "./io";

const quote = (s: string, max = 100) => {
  const one = s.replace(/\s+/g, " ").trim();
  return `"${one.length > max ? `${one.slice(0, max - 1)}…` : one}"`;
};

export const anchorRef = (a: Anchor) => `${a.artifact_id}@v${a.version} [${a.start},${a.end})`;

type Followed = Card & {
  follow?: Array<{ type: string; direction: "in" | "out"; chunk: string; version: number | null; weight: number }>;
  /** A code card in code form (max_code_bytes, code_chunks): its code is its anchors. */
  code?: { bytes: number; source: "card" | "windows"; truncated?: boolean | undefined } | undefined;
};

/** The ranking a query applied to its pool: parameters, then the first items' scores. */
export function renderRanking(k: NonNullable<RouteResponse["ranking"]>, max = 10): string {
  const params = [`mode ${k.mode}`];
  if (k.weights)
    params.push(
      `weights ${Object.entries(k.weights)
        .map(([n, w]) => `${n}=${w}`)
        .join(",")}`,
    );
  if (k.lambda !== null) params.push(`mmr λ=${k.lambda}`);
  if (k.view) params.push(`view ${k.view}`);
  params.push(`sort ${k.sort}`, `pool ${k.pool}`, `intra-list similarity ${k.intra_list_similarity.toFixed(3)}`);
  const out = [`ranking: ${params.join(", ")}`];
  if (k.items.length)
    out.push(
      table([
        ["  #", "chunk@version", "year", "sim", "rec", "nov", "bm25", "cites", "combined"],
        ...k.items
          .slice(0, max)
          .map((x) => [
            `  ${x.rank}`,
            `${x.chunk}@v${x.version}`,
            x.year === null ? "-" : String(x.year),
            x.similarity.toFixed(3),
            x.recency.toFixed(3),
            x.novelty.toFixed(3),
            x.bm25.toFixed(3),
            x.citations === null ? "-" : String(x.citations),
            x.combined.toFixed(3),
          ]),
      ]),
    );
  return out.join("\n");
}

/** One paragraph of a trace: mentions, seeds, diffusion, pool, router steps and timings. */
export function renderTrace(t: NonNullable<RouteResponse["trace"]>): string {
  const timings = Object.entries(t.timings_ms)
    .map(([k, v]) => `${k} ${v.toFixed(1)}`)
    .join(", ");
  const seeds = t.seeds
    .slice(0, 5)
    .map((s) => `${s.chunk} (${s.reasons.slice(0, 2).join(", ")})`)
    .join(", ");
  return [
    `trace: ${t.seeds.length} seeds, diffusion touched ${t.diffusion.touched} heads in ${t.diffusion.steps} steps, pool ${t.candidate_pool}, ${t.router_steps.length} router steps, ${t.filtered_by_time} filtered by time${t.filtered_by_filter ? `, ${t.filtered_by_filter} by the filter` : ""}`,
    ...(seeds ? [wrap(`seeds: ${seeds}${t.seeds.length > 5 ? ", …" : ""}`, "  ")] : []),
    `  timings (ms): ${timings}`,
  ].join("\n");
}

export function renderCard(c: Followed, i: number): string {
  const rel = "relevance" in c && typeof c.relevance === "number" ? ` · relevance ${c.relevance.toFixed(2)}` : "";
  const out = [`[${i + 1}] ${c.title}`, `    ${c.artifact_id}@v${c.version} · ${c.kind} · ${c.tokens} tokens${rel}`];
  if (c.code)
    out.push(
      `    code: ${c.code.bytes} bytes, ${c.code.source === "windows" ? "best windows" : "anchored spans"}${c.code.truncated ? " (cut to fit --max-code-bytes)" : ""}`,
    );
  else out.push(wrap(`claim: ${c.claim_boundary}`, "    "));
  if (c.logic_sketch) out.push(wrap(`sketch: ${c.logic_sketch}`, "    "));
  if (c.assumptions.length) out.push(wrap(`assumptions: ${c.assumptions.join("; ")}`, "    "));
  if (c.anchored_spans.length) {
    out.push("    anchors:");
    for (const a of c.anchored_spans) out.push(`      ${anchorRef(a)} ${quote(a.snippet)}`);
  }
  if (c.follow?.length) {
    out.push("    follow:");
    for (const f of c.follow)
      out.push(
        `      ${f.direction === "out" ? "->" : "<-"} ${f.type} ${f.chunk}${f.version === null ? " (not valid then)" : `@v${f.version}`}`,
      );
  }
  return out.join("\n");
}

export function renderContext(query: string, r: ContextResponse): string {
  const b = r.budget;
  const head = [
    `context for ${quote(query, 200)} as of ${r.as_of}`,
    `${r.cards.length} card${r.cards.length === 1 ? "" : "s"}; budget ${b.total} tokens (${b.tokenizer}): cards ${b.cards}, short-term ${b.short_term}, left ${b.remaining}`,
  ];
  // The trace comes only when asked for (--trace); older servers always send it.
  const mentions = (r.trace?.mentions ?? []).map((m) => `${m.text} -> ${m.entity}`);
  if (mentions.length) head.push(`mentions: ${mentions.join(", ")}`);
  const parts = [head.join("\n")];
  if (r.short_term.length) {
    parts.push(["short-term:", ...r.short_term.map((e) => `  ${e.role}: ${quote(e.text, 200)}`)].join("\n"));
  }
  if (r.ranking) parts.push(renderRanking(r.ranking));
  if (!r.cards.length)
    parts.push(
      r.evidence && !r.evidence.found
        ? `no evidence: nothing reached the relevance floor ${r.evidence.floor} (best ${r.evidence.best_relevance}); --min-relevance <0-1> lowers it`
        : "no cards (none fits the budget, or nothing matched; try a larger --budget, fewer filters or a later --as-of)",
    );
  parts.push(...r.cards.map(renderCard));
  if (r.code_bytes !== undefined)
    parts.push(
      `code: ${r.code_bytes} bytes${r.code_left_out?.length ? `; left out (--max-code-bytes spent): ${r.code_left_out.join(", ")}` : ""}`,
    );
  if (r.skipped.length) {
    const shown = r.skipped.slice(0, 5).map((s) => `${s.chunk} (${s.reason})`);
    const more = r.skipped.length > 5 ? `, … ${r.skipped.length - 5} more` : "";
    parts.push(`skipped: ${shown.join(", ")}${more}`);
  }
  return `${parts.join("\n\n")}\n`;
}

export function renderRoute(query: string, r: RouteResponse, maxCandidates = 10): string {
  const out = [`route for ${quote(query, 200)} as of ${r.as_of}`];
  if (!r.selected.length) out.push("nothing selected");
  else {
    out.push("selected:");
    out.push(
      table([
        ["  #", "chunk@version", "score", "relevance", "depth", "via"],
        ...r.selected.map((s, i) => [
          `  ${i + 1}`,
          `${s.chunk}@v${s.version}`,
          s.score.toFixed(4),
          s.relevance === undefined ? "-" : s.relevance.toFixed(2),
          String(s.depth),
          s.via ?? "-",
        ]),
      ]),
    );
  }
  if (r.candidates.length) {
    out.push("candidates (per-expert scores):");
    out.push(
      table([
        ["  #", "chunk@version", "kind", "score", "sem", "lex", "sym", "graph", "rec", "thread"],
        ...r.candidates
          .slice(0, maxCandidates)
          .map((c, i) => [
            `  ${i + 1}`,
            `${c.chunk}@v${c.version}`,
            c.kind,
            c.score.toFixed(4),
            c.experts.sem.toFixed(3),
            c.experts.lex.toFixed(3),
            c.experts.sym.toFixed(3),
            c.experts.graph.toFixed(3),
            c.experts.rec.toFixed(3),
            c.experts.thread.toFixed(3),
          ]),
      ]),
    );
    if (r.candidates.length > maxCandidates)
      out.push(`  … ${r.candidates.length - maxCandidates} more candidates (--json prints all)`);
  }
  if (r.ranking) out.push(renderRanking(r.ranking, maxCandidates));
  return `${out.join("\n")}\n`;
}

export function renderVerify(r: VerifyResult): string {
  const ref = anchorRef(r.anchor);
  if (r.verified) return `ok        ${ref} ${quote(r.anchor.snippet, 80)}`;
  const actual = r.actual !== undefined ? `; the text there is ${quote(r.actual, 80)}` : "";
  return `MISMATCH  ${ref} ${r.reason}: expected ${quote(r.anchor.snippet, 80)}${actual}`;
}

/**
 * Anchors from what `verify` is given: a list of anchors, {anchors: [...]}, or a context / expand
 * response ({cards: [{anchored_spans: [...]}]}, as `paperguru context --json` prints). Null when the
 * shape is none of these.
 */
export function extractAnchors(json: unknown): Anchor[] | null {
  const isAnchor = (a: unknown): a is Anchor =>
    !!a &&
    typeof a === "object" &&
    typeof (a as Anchor).artifact_id === "string" &&
    typeof (a as Anchor).version === "number" &&
    typeof (a as Anchor).start === "number" &&
    typeof (a as Anchor).end === "number" &&
    typeof (a as Anchor).snippet === "string";
  const list = (x: unknown): Anchor[] | null => (Array.isArray(x) && x.every(isAnchor) ? x : null);
  if (Array.isArray(json)) return list(json);
  if (!json || typeof json !== "object") return null;
  const o = json as { anchors?: unknown; cards?: unknown };
  if (o.anchors !== undefined) return list(o.anchors);
  if (Array.isArray(o.cards)) {
    const out: Anchor[] = [];
    for (const c of o.cards) {
      const spans = list((c as { anchored_spans?: unknown } | null)?.anchored_spans);
      if (!spans) return null;
      out.push(...spans);
    }
    return out;
  }
  return null;
}
