/**
 * Literature-review memory (SGMC, seed 001 §3) on the kernel; nothing here is stored apart from
 * chunks, versions, edges and annotations.
 *
 * - Outline (Tree-Guided Memory): outline nodes are chunks carrying the boundary `outline`, linked
 *   `part-of` their parent; a node's references are its `cites` edges. The tree under a root is read
 *   exactly from D1 at `as_of` (the part-of subtree, then the edges among its nodes), never from the
 *   bounded neighbour tables. A node with several part-of parents in the tree hangs under the deepest
 *   one. Children are ordered by an `order:<n>` boundary (ascending; nodes without one after those
 *   with one), then by id. Word count (Eq. 3's complexity, "the number of words"): heads only, as the
 *   seed builds the outline from titles and abstracts: the node's title and synopsis plus the titles
 *   and synopses of its references (`words=own|references` count one part). A word is a run of
 *   non-space characters holding a letter or digit.
 * - Hubs (Hub-Guided Memory): each gather routes over the node's references only (an exact `only`
 *   filter before the top-M cut) and stores the cards' anchors as the next version of `<node>#hub`
 *   (kind note, boundary `sgmc:hub`, part-of the node, cites every source it quotes); its content is
 *   JSON Lines: a header `{"query"}` and one anchor per line, so every iteration stays readable as of
 *   its time and each anchor re-verifies with POST /verify.
 * - Drafts: `<node>#draft` (kind section, boundary `sgmc:draft`, part-of the node) gets one version per
 *   iteration; a version cites the artifacts of the anchors it rests on, which must verify when it is
 *   written, and the anchors are kept as the annotation `sgmc:evidence` of that version.
 * - Feedback (Self-Loop Memory): chunks with the boundary `feedback`, counters as the annotations
 *   `revisions` and `uses` (add events), selected by Eq. 12 (src/core/research/feedback.ts).
 */
import type { z } from "zod";
import type * as S from "../contract";
import { SGMC_DEFAULTS } from "../contract/research";
import { fail, ok, type Result } from "../core/errors";
import { type AnnotationRecord, parseJson, type StoredVersion } from "../core/ports";
import { selectFeedback } from "../core/research/feedback";
import { convergence, type RougeMeasure, rougeTokens } from "../core/research/rouge";
import { countTokens } from "../core/text/tokenizer";
import type { AnchoredSpan } from "../core/types";
import type { AppDeps } from "./deps";
import { toEvent } from "./lib/records";
import { iso, round4 } from "./lib/wire";

type In<T extends z.ZodType> = z.infer<T>;

export const OUTLINE = "outline";
export const HUB = "sgmc:hub";
export const DRAFT = "sgmc:draft";
export const FEEDBACK = "feedback";
export const EVIDENCE_KEY = "sgmc:evidence";
export const hubId = (node: string) => `${node}#hub`;
export const draftId = (node: string) => `${node}#draft`;

/** Chunk ids are at most 512 characters; the hub and draft ids add 6. */
const MAX_NODE_ID = 506;
/** Contents read at once (R2's simultaneous connections per request). */
const READS = 6;
/** Characters of draft versions one convergence or assembly call reads. */
const MAX_READ_CHARS = 16 * 1024 * 1024;
/** Feedback records one selection reads. */
const MAX_FEEDBACK = 5000;
/** Characters of the previous draft a default gather query takes (Eq. 8). */
const DRAFT_QUERY_CHARS = 2000;

/** Words: runs of non-space characters with a letter or digit. Linear. */
export function wordCount(text: string): number {
  let n = 0;
  for (const w of text.split(/\s+/)) if (/[\p{L}\p{N}]/u.test(w)) n++;
  return n;
}

const orderOf = (boundaries: readonly string[]): number => {
  for (const b of boundaries) {
    const m = /^order:(-?\d{1,9})$/.exec(b);
    if (m) return Number(m[1]);
  }
  return Number.POSITIVE_INFINITY;
};

export interface TreeNodeOut {
  id: string;
  version: number;
  kind: string;
  title: string;
  depth: number;
  parent: string | null;
  children: string[];
  references: Array<{ id: string; version: number; title: string }>;
  words: { own: number; references: number; counted: number };
  split: boolean;
  leaf: boolean;
  draft: { id: string; version: number; title: string } | null;
  hub: { id: string; version: number; title: string } | null;
}

interface TreeOpts {
  theta: number;
  dMax: number;
  words: "all" | "own" | "references";
  maxNodes: number;
}

async function readContents(d: AppDeps, keys: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const uniq = [...new Set(keys)];
  for (let i = 0; i < uniq.length; i += READS)
    await Promise.all(
      uniq.slice(i, i + READS).map(async (k) => {
        const c = await d.kernel.contentOf(k);
        if (c !== null) out.set(k, c);
      }),
    );
  return out;
}

/** The outline tree under `root` at t, exactly from D1, in pre-order. */
export async function readTree(
  d: AppDeps,
  archive: string,
  root: string,
  t: number,
  o: TreeOpts,
): Promise<Result<{ nodes: TreeNodeOut[]; done: boolean; pending: string[] }>> {
  const chunks = d.stores.chunks;
  const ids = await chunks.subtree(archive, root, t, o.maxNodes + 1);
  if (ids.length > o.maxNodes)
    return fail(
      "too_large",
      `the part-of subtree under ${root} has more than ${o.maxNodes} chunks at that time`,
      "max_nodes",
      `raise max_nodes (at most ${SGMC_DEFAULTS.maxNodesCap}) or read a deeper root`,
    );
  const visible = await chunks.visibleAt(archive, ids, t);
  const rootV = visible.get(root);
  if (!rootV) return fail("not_found", `chunk ${root} has no version valid at ${iso(t)}`, "root");
  const outline = new Map<string, StoredVersion>();
  for (const [id, v] of visible) if (id === root || v.boundaries.includes(OUTLINE)) outline.set(id, v);
  const outlineIds = [...outline.keys()];

  // Parents among outline nodes; depth = the longest part-of path from the root (≤ 64 steps, so a
  // cycle ends), parent = the deepest parent.
  const parentsOf = new Map<string, string[]>();
  for (const e of await chunks.edgesAt(archive, outlineIds, "part-of", "out", t))
    if (e.from !== root && outline.has(e.to) && e.from !== e.to)
      parentsOf.set(e.from, [...(parentsOf.get(e.from) ?? []), e.to]);
  const depth = new Map<string, number>([[root, 0]]);
  for (let round = 0; round < 64; round++) {
    let changed = false;
    for (const [child, parents] of parentsOf)
      for (const p of parents) {
        const dp = depth.get(p);
        if (dp === undefined || dp >= 64) continue;
        if ((depth.get(child) ?? -1) < dp + 1) {
          depth.set(child, dp + 1);
          changed = true;
        }
      }
    if (!changed) break;
  }
  const parent = new Map<string, string>();
  for (const [child, parents] of parentsOf) {
    const dc = depth.get(child);
    if (dc === undefined) continue;
    const best = parents.filter((p) => depth.get(p) === dc - 1).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[0];
    if (best !== undefined) parent.set(child, best);
  }
  const children = new Map<string, string[]>();
  for (const [c, p] of parent) children.set(p, [...(children.get(p) ?? []), c]);
  const cmp = (a: string, b: string) => {
    const oa = orderOf(outline.get(a)?.boundaries ?? []);
    const ob = orderOf(outline.get(b)?.boundaries ?? []);
    if (oa !== ob) return oa < ob ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  };
  for (const l of children.values()) l.sort(cmp);

  // Pre-order; a node is visited once.
  const order: string[] = [];
  const seen = new Set<string>();
  const stack = [root];
  while (stack.length) {
    const id = stack.pop() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    order.push(id);
    const cs = children.get(id) ?? [];
    for (let i = cs.length - 1; i >= 0; i--) stack.push(cs[i] as string);
  }

  const refsOf = new Map<string, string[]>();
  for (const e of await chunks.edgesAt(archive, order, "cites", "out", t))
    refsOf.set(e.from, [...(refsOf.get(e.from) ?? []), e.to]);
  const refIds = [...new Set([...refsOf.values()].flat())];
  const refs = refIds.length ? await chunks.visibleAt(archive, refIds, t) : new Map<string, StoredVersion>();

  const ref = (v: StoredVersion | undefined) => (v ? { id: v.chunkId, version: v.version, title: v.title } : null);
  const nodes: TreeNodeOut[] = [];
  const pending: string[] = [];
  let done = true;
  for (const id of order) {
    const v = outline.get(id) as StoredVersion;
    const dep = depth.get(id) ?? 0;
    const references = (refsOf.get(id) ?? []).map((r) => refs.get(r)).filter((r) => r !== undefined);
    const own = wordCount(`${v.title} ${v.synopsis}`);
    const refWords = references.reduce((n, r) => n + wordCount(`${r.title} ${r.synopsis}`), 0);
    const counted = o.words === "own" ? own : o.words === "references" ? refWords : own + refWords;
    const split = counted > o.theta;
    const kids = children.get(id) ?? [];
    const leaf = kids.length === 0;
    if (leaf && split && dep < o.dMax) {
      done = false;
      pending.push(id);
    }
    nodes.push({
      id,
      version: v.version,
      kind: v.kind,
      title: v.title,
      depth: dep,
      parent: parent.get(id) ?? null,
      children: kids,
      references: references.map((r) => ({ id: r.chunkId, version: r.version, title: r.title })),
      words: { own, references: refWords, counted },
      split,
      leaf,
      draft: ref(visible.get(draftId(id))),
      hub: ref(visible.get(hubId(id))),
    });
  }
  return ok({ nodes, done, pending });
}

/** Eq. 10 over a chunk's versions valid from t or earlier (oldest first, at most `max`). */
async function draftConvergence(
  d: AppDeps,
  archive: string,
  chunk: string,
  t: number,
  epsilon: number,
  tMax: number,
  measure: RougeMeasure,
  max: number,
) {
  const h = await d.stores.chunks.chunkHistory(archive, chunk);
  if (!h) return fail("not_found", `chunk ${chunk} is not in archive ${archive}`, "draft");
  const all = h.versions.filter((v) => v.validFrom <= t).sort((a, b) => a.version - b.version);
  const versions = all.slice(0, max);
  const chars = versions.reduce((n, v) => n + v.contentChars, 0);
  if (chars > MAX_READ_CHARS)
    return fail(
      "too_large",
      `the first ${versions.length} versions of ${chunk} hold ${chars} characters (at most ${MAX_READ_CHARS} per call)`,
      "max_versions",
      "read fewer versions",
    );
  const contents = await readContents(
    d,
    versions.map((v) => v.contentKey),
  );
  const texts = versions.map((v) => contents.get(v.contentKey) ?? "");
  // The seed counts iterations from t = 0 (the first draft) to t_max: t_max + 1 drafts.
  const c = convergence(texts, epsilon, tMax + 1, measure);
  return ok({
    versions: versions.map((v, i) => ({
      iteration: i,
      version: v.version,
      valid_from: iso(v.validFrom),
      words: rougeTokens(texts[i] as string).length,
      text: texts[i] as string,
    })),
    pairs: c.scores.map((s, i) => ({
      from: (versions[i] as { version: number }).version,
      to: (versions[i + 1] as { version: number }).version,
      precision: round4(s.precision),
      recall: round4(s.recall),
      f1: round4(s.f1),
    })),
    stop:
      c.stop === null || c.reason === null
        ? null
        : { iteration: c.stop - 1, version: (versions[c.stop - 1] as { version: number }).version, reason: c.reason },
    truncated: all.length > versions.length,
  });
}

const nodeIdCheck = (node: string) =>
  node.length > MAX_NODE_ID
    ? fail("validation", `node ids are at most ${MAX_NODE_ID} characters here`, "node", "use a shorter node id")
    : null;

interface EvidenceLine {
  artifact_id: string;
  version: number;
  start: number;
  end: number;
  snippet: string;
  title: string;
}

function parseHub(content: string): { query: string; evidence: EvidenceLine[] } {
  const lines = content.split("\n").filter((l) => l.length > 0);
  const head = parseJson<{ query?: unknown }>(lines[0] ?? "{}", {});
  const evidence: EvidenceLine[] = [];
  for (const l of lines.slice(1)) {
    const e = parseJson<Partial<EvidenceLine>>(l, {});
    if (typeof e.artifact_id === "string" && typeof e.snippet === "string")
      evidence.push({
        artifact_id: e.artifact_id,
        version: Number(e.version),
        start: Number(e.start),
        end: Number(e.end),
        snippet: e.snippet,
        title: typeof e.title === "string" ? e.title : "",
      });
  }
  return { query: typeof head.query === "string" ? head.query : "", evidence };
}

function numberOf(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

export function researchUseCases(d: AppDeps) {
  const chunks = d.stores.chunks;
  const timeOf = (s: string | undefined) => (s === undefined ? d.clock.now() : Date.parse(s));

  return {
    async tree(archive: string, q: In<typeof S.TreeQuery>): Promise<Result<In<typeof S.TreeResult>>> {
      const t = timeOf(q.as_of);
      const r = await readTree(d, archive, q.root, t, {
        theta: q.theta,
        dMax: q.d_max,
        words: q.words,
        maxNodes: q.max_nodes,
      });
      if (!r.ok) return r;
      return ok({ root: q.root, as_of: iso(t), theta: q.theta, d_max: q.d_max, words: q.words, ...r.value });
    },

    async gather(archive: string, b: In<typeof S.GatherBody>): Promise<Result<In<typeof S.GatherResult>>> {
      const bad = nodeIdCheck(b.node);
      if (bad) return bad;
      const t = timeOf(b.as_of);
      const at = b.at === undefined ? d.clock.now() : Date.parse(b.at);
      const node = (await chunks.visibleAt(archive, [b.node], t)).get(b.node);
      if (!node) return fail("not_found", `chunk ${b.node} has no version valid at ${iso(t)}`, "node");
      const cited = [...new Set((await chunks.edgesAt(archive, [b.node], "cites", "out", t)).map((e) => e.to))];
      const refs = cited.length ? await chunks.visibleAt(archive, cited, t) : new Map<string, StoredVersion>();
      if (refs.size === 0)
        return fail(
          "validation",
          `node ${b.node} cites nothing visible at ${iso(t)}: a hub gathers from the node's references`,
          "node",
          "give the node cites edges to its references (POST /revise with edges)",
        );
      let query = b.query;
      if (query === undefined) {
        const draft = (await chunks.visibleAt(archive, [draftId(b.node)], t)).get(draftId(b.node));
        const text = draft ? await d.kernel.contentOf(draft.contentKey) : null;
        query =
          text !== null
            ? `${node.title}. ${text.slice(0, DRAFT_QUERY_CHARS)}`
            : `${node.title}. ${node.synopsis}`.slice(0, 8000);
      }
      const r = await d.kernel.context({
        archiveId: archive,
        query,
        asOf: t,
        budgetTokens: b.budget_tokens,
        maxCards: b.max_cards,
        filter: { only: [...refs.keys()] },
      });
      const titles = new Map(r.cards.map((c) => [c.artifact_id, c.title]));
      const evidence: EvidenceLine[] = r.cards.flatMap((c) =>
        c.anchored_spans.map((a) => ({
          artifact_id: a.artifact_id,
          version: a.version,
          start: a.start,
          end: a.end,
          snippet: a.snippet,
          title: titles.get(a.artifact_id) ?? "",
        })),
      );
      const content = [JSON.stringify({ query }), ...evidence.map((e) => JSON.stringify(e))].join("\n");
      const sources = [...new Set(evidence.map((e) => e.artifact_id))];
      const res = await d.kernel.ingest(archive, [
        {
          id: hubId(b.node),
          kind: "note",
          title: `Hub: ${node.title}`.slice(0, 1000),
          content,
          boundaries: [HUB],
          edges: [{ type: "part-of", target: b.node }, ...sources.map((s) => ({ type: "cites" as const, target: s }))],
          valid_from: at,
        },
      ]);
      if (!res.ok) return res;
      const item = res.value.results[0] as { status: "created" | "updated" | "unchanged"; version: number };
      return ok({
        node: b.node,
        as_of: iso(t),
        hub: { id: hubId(b.node), version: item.version, status: item.status },
        iteration: item.version - 1,
        query,
        references: refs.size,
        cards: r.cards.map((c) => ({
          artifact_id: c.artifact_id,
          version: c.version,
          kind: c.kind,
          title: c.title,
          claim_boundary: c.claim_boundary,
          logic_sketch: c.logic_sketch,
          assumptions: c.assumptions,
          anchored_spans: c.anchored_spans,
          tokens: c.tokens,
          distiller: c.distiller,
        })),
        evidence,
      });
    },

    async hub(archive: string, q: In<typeof S.HubQuery>): Promise<Result<In<typeof S.HubResult>>> {
      const t = timeOf(q.as_of);
      const h = await chunks.chunkHistory(archive, hubId(q.node));
      if (!h) return fail("not_found", `node ${q.node} has no hub (${hubId(q.node)})`, "node");
      const versions = h.versions.filter((v) => v.validFrom <= t).sort((a, b) => a.version - b.version);
      const contents = await readContents(
        d,
        versions.map((v) => v.contentKey),
      );
      return ok({
        node: q.node,
        hub: hubId(q.node),
        as_of: iso(t),
        iterations: versions.map((v) => {
          const p = parseHub(contents.get(v.contentKey) ?? "");
          return {
            iteration: v.version - 1,
            version: v.version,
            valid_from: iso(v.validFrom),
            query: p.query,
            evidence: p.evidence,
          };
        }),
      });
    },

    async draft(archive: string, b: In<typeof S.DraftBody>): Promise<Result<In<typeof S.DraftResult>>> {
      const bad = nodeIdCheck(b.node);
      if (bad) return bad;
      const at = b.at === undefined ? d.clock.now() : Date.parse(b.at);
      const node = (await chunks.visibleAt(archive, [b.node], at)).get(b.node);
      if (!node) return fail("not_found", `chunk ${b.node} has no version valid at ${iso(at)}`, "node");
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
          title: node.title,
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
          value: JSON.stringify(anchors),
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
      const t = timeOf(q.as_of);
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
      const t = timeOf(q.as_of);
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

    async assemble(archive: string, b: In<typeof S.AssembleBody>): Promise<Result<In<typeof S.AssembleResult>>> {
      const t = timeOf(b.as_of);
      const tree = await readTree(d, archive, b.root, t, {
        theta: SGMC_DEFAULTS.theta,
        dMax: SGMC_DEFAULTS.dMax,
        words: "all",
        maxNodes: b.max_nodes,
      });
      if (!tree.ok) return tree;
      const sections: In<typeof S.AssembleResult>["sections"] = [];
      const leftOut: In<typeof S.AssembleResult>["left_out"] = [];
      const parts: string[] = [];
      let used = 0;
      for (const n of tree.value.nodes) {
        if (!n.draft) {
          leftOut.push({ node: n.id, reason: "no_draft", tokens: null });
          continue;
        }
        const c = await draftConvergence(d, archive, n.draft.id, t, b.epsilon, b.t_max, "f1", b.t_max + 1);
        if (!c.ok) return c;
        if (b.require_converged && c.value.stop === null) {
          leftOut.push({ node: n.id, reason: "not_converged", tokens: null });
          continue;
        }
        const v = (await chunks.visibleAt(archive, [n.draft.id], t)).get(n.draft.id);
        const text = v ? ((await d.kernel.contentOf(v.contentKey)) ?? "") : "";
        const block = `${"#".repeat(Math.min(n.depth + 1, 6))} ${n.title}\n\n${text.trim()}\n\n`;
        const tokens = countTokens(block);
        if (used + tokens > b.budget_tokens) {
          leftOut.push({ node: n.id, reason: "budget", tokens });
          continue;
        }
        used += tokens;
        parts.push(block);
        sections.push({
          node: n.id,
          depth: n.depth,
          draft: n.draft.id,
          version: v?.version ?? n.draft.version,
          tokens,
        });
      }
      const text = parts.join("");
      return ok({
        root: b.root,
        as_of: iso(t),
        text,
        tokens: text.length ? countTokens(text) : 0,
        budget_tokens: b.budget_tokens,
        sections,
        left_out: leftOut,
      });
    },

    async selectFeedback(
      archive: string,
      b: In<typeof S.FeedbackSelectBody>,
    ): Promise<Result<In<typeof S.FeedbackSelectResult>>> {
      const t = timeOf(b.as_of);
      const rows: Awaited<ReturnType<typeof chunks.listChunks>> = [];
      let after: string | null = null;
      for (;;) {
        const page = await chunks.listChunks(archive, { asOf: t, boundary: FEEDBACK }, after, 501);
        rows.push(...page.slice(0, 500));
        if (rows.length > MAX_FEEDBACK)
          return fail(
            "too_large",
            `more than ${MAX_FEEDBACK} feedback records at that time`,
            "scope",
            "narrow them with a scope boundary",
          );
        if (page.length <= 500) break;
        after = (page[499] as { chunkId: string }).chunkId;
      }
      const records = b.scope
        ? rows.filter((r) => parseJson<string[]>(r.boundaries, []).includes(b.scope as string))
        : rows;
      const events: AnnotationRecord[] = records.length
        ? await d.stores.annotations.annotationsOf(
            archive,
            records.map((r) => r.chunkId),
            undefined,
            t,
          )
        : [];
      const counters = new Map<string, { revisions: number; uses: number }>();
      const sorted = events.map(toEvent).sort((a, b2) => a.at - b2.at || a.id - b2.id);
      for (const e of sorted) {
        if (e.key !== "revisions" && e.key !== "uses") continue;
        const c = counters.get(e.chunkId) ?? { revisions: 0, uses: 0 };
        const v = numberOf(e.value);
        c[e.key] = e.op === "add" ? c[e.key] + v : v;
        counters.set(e.chunkId, c);
      }
      const candidates = records.map((r) => ({
        id: r.chunkId,
        version: r.version,
        title: r.title,
        synopsis: r.synopsis,
        revisions: counters.get(r.chunkId)?.revisions ?? 0,
        uses: counters.get(r.chunkId)?.uses ?? 0,
        createdAt: r.firstValidFrom,
      }));
      const chosen = selectFeedback(candidates, b.tie);
      const view = (c: (typeof candidates)[number]) => ({
        id: c.id,
        version: c.version,
        title: c.title,
        synopsis: c.synopsis,
        revisions: c.revisions,
        uses: c.uses,
        created_at: iso(c.createdAt),
      });
      const rMin = chosen ? chosen.revisions : null;
      const rMinSet = candidates
        .filter((c) => c.revisions === rMin)
        .sort((a, b2) => b2.uses - a.uses || a.createdAt - b2.createdAt || (a.id < b2.id ? -1 : 1));
      return ok({
        as_of: iso(t),
        tie: b.tie,
        records: candidates.length,
        r_min: rMin,
        r_min_size: rMinSet.length,
        selected: chosen ? view(chosen) : null,
        candidates: rMinSet.slice(0, 20).map(view),
      });
    },
  };
}
