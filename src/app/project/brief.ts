/**
 * ProjectGuard's pre-turn brief (seed 002 §5.1), deterministic. The rules:
 * 1. Relevance: the request (joined with the session's recent requests: `recent_requests`, or else the
 *    last SESSION_REQUESTS `user` events of `session_id` at `as_of` among its last SESSION_SCAN events,
 *    other than the request itself) is routed over designs and
 *    decisions only (the filter applies before the top-M cut), as of `as_of`; superseded versions
 *    and deprecated records are invisible to routing, so they are never briefed.
 *    Records the router scores below `min_score` (default 0.1; a head's score is its lexical share,
 *    1 for the request's best lexical match, plus bounded shares of the other experts) are not about
 *    the request and are left out. Measured on the eval's generated histories (a third of the
 *    requests about two topics), commitment recall / precision: 0.1 -> 99.2% / 60.3%, 0.15 -> 98.2% /
 *    68.7%, 0.2 -> 96.9% / 74.0%, 0.3 -> 94.4% / 83.7%. Missing a commitment costs more than an extra
 *    one, hence the low floor; 0 keeps all.
 * 2. Conservative commit: of the relevant records, only those whose `status` annotation is
 *    `committed` at `as_of` are briefed; the rest are listed as held back with their status.
 * 3. Modules: the code units that `implement` a briefed commitment (exact edges at `as_of`). A module
 *    is to **revise** when a commitment it implements has a version valid from after the module's
 *    own version (the commitment changed after the module last did); else to **preserve** when
 *    another module depends on it or tests it; else to **reuse**.
 * 4. Constraints: the exported signatures of the modules to preserve, as exact anchors into their
 *    current versions.
 * 5. Resources: the chunks that `motivate` a briefed commitment (edges at `as_of`; any kind: a paper,
 *    a note, an observation), their heads only, unless their own `status` is set and not `committed`.
 * 6. Budget: the whole result is counted in cl100k_base; over the budget, the held-back list goes
 *    first, then resources (last first), constraints (last first), modules to reuse, to preserve, to
 *    revise, then the lowest-ranked commitments; every id left out is listed in `omitted`.
 */
import type * as S from "../../contract";
import { foldAnnotations } from "../../core/annotations";
import { fail, ok, type Result } from "../../core/errors";
import { countTokens } from "../../core/text/tokenizer";
import type { AppDeps } from "../deps";
import { toEvent } from "../lib/records";
import { type In, iso, round4, timeOf } from "../lib/wire";
import { specsAt } from "./spec";

type Brief = In<typeof S.BriefResult>;
type Resources = NonNullable<Brief["resources"]>;
type Restart = NonNullable<Brief["restart"]>;
type RenderFn = (archive: string, b: In<typeof S.RenderBody>) => Promise<Result<In<typeof S.RenderResult>>>;

/** Modules whose contents are counted for the restart estimate (the rest scaled by their mean). */
const MAX_COUNTED_MODULES = 20;
/** The render budget cap (RenderBody's maximum). */
const MAX_RENDER_BUDGET = 200_000;

/**
 * The restart signal (seed 002 B.2) from its numbers: the next turns need brief + code + turns; a
 * fresh session needs render + code + turns (the render replaces the brief and the old context).
 */
export function restartAdvice(
  ctx: { window_tokens: number; used_tokens: number; next_turns: number },
  parts: { brief: number; code: number; turnTokens: number },
  renderTokens: number | null,
): Restart {
  const remaining = Math.max(0, ctx.window_tokens - ctx.used_tokens);
  const turns = ctx.next_turns * parts.turnTokens;
  const needed = parts.brief + parts.code + turns;
  const fresh = renderTokens === null ? null : renderTokens + parts.code + turns;
  let advice: Restart["advice"];
  let reason: string;
  if (needed <= remaining) {
    advice = "continue";
    reason = `the next ${ctx.next_turns} turns need about ${needed} tokens and ${remaining} remain`;
  } else if (fresh !== null && fresh <= ctx.window_tokens) {
    advice = "restart";
    reason = `the next ${ctx.next_turns} turns need about ${needed} tokens but only ${remaining} remain; a fresh session with the rendered state (${renderTokens} tokens) needs ${fresh} of ${ctx.window_tokens}`;
  } else {
    advice = "narrow";
    reason = `the next ${ctx.next_turns} turns need about ${needed} tokens but only ${remaining} remain, and a fresh session would need ${fresh ?? "more than the window for the render"}${fresh === null ? "" : ` of ${ctx.window_tokens}`}: split the request`;
  }
  return {
    window_tokens: ctx.window_tokens,
    used_tokens: ctx.used_tokens,
    remaining_tokens: remaining,
    next_turns: ctx.next_turns,
    turn_tokens: parts.turnTokens,
    parts: { brief: parts.brief, code: parts.code, turns },
    needed_tokens: needed,
    render_tokens: renderTokens,
    fresh_needed_tokens: fresh,
    advice,
    reason,
  };
}

/** The router score below which a record is not briefed (rule 1 in the header). */
export const BRIEF_MIN_SCORE = 0.1;

/** Relevant records considered per brief (the router's selection size). */
const RELEVANT = 24;
/** Modules whose signatures are read for constraints. */
const MAX_CONSTRAINT_MODULES = 20;
/** Resources (motivating chunks) read per brief, heaviest edges first. */
const MAX_RESOURCES = 24;
/** The session's `user` events read as its recent requests when the caller passes none (as `recent_requests`' max). */
export const SESSION_REQUESTS = 5;
/** Session events scanned for them (most recent first). */
const SESSION_SCAN = 50;

/**
 * Drop from the least needed end until the whole brief fits the budget: held back, resources,
 * constraints (last first), modules to reuse, to preserve, to revise, then the lowest-ranked commitments.
 */
function fitBrief(out: Brief, budget: number): Result<Brief> {
  const size = () => countTokens(JSON.stringify(out));
  // Counted at the budget's digits while cutting, as in render.
  out.tokens = budget;
  const lists: Array<() => string | null> = [
    () => out.held_back.pop()?.id ?? null,
    () => out.resources?.pop()?.id ?? null,
    () => {
      const c = out.constraints.pop();
      return c ? `${c.module}#${c.symbol}` : null;
    },
    () => out.reuse.pop()?.id ?? null,
    () => out.preserve.pop()?.id ?? null,
    () => out.revise.pop()?.id ?? null,
    () => out.commitments.pop()?.id ?? null,
  ];
  let tokens = size();
  for (const drop of lists)
    while (tokens > budget) {
      const gone = drop();
      if (gone === null) break;
      out.omitted.push(gone);
      tokens = size();
    }
  if (tokens > budget)
    return fail(
      "validation",
      `budget_tokens ${budget} cannot hold the brief: with everything cut it is ${tokens} tokens (${out.omitted.length} omitted ids listed)`,
      "budget_tokens",
      `raise budget_tokens to at least ${tokens}`,
    );
  // The count includes its own digits (at most the budget's): settle it (two passes suffice).
  out.tokens = tokens;
  out.tokens = size();
  out.tokens = size();
  return ok(out);
}

/**
 * The chunks that `motivate` these records at t (heaviest edges first, at most MAX_RESOURCES), with
 * their heads and the records each motivates; a chunk whose own `status` is set and is not
 * `committed` (a proposed or rejected observation) is left out.
 */
export async function motivating(
  d: AppDeps,
  archive: string,
  recordIds: string[],
  t: number,
  max = MAX_RESOURCES,
): Promise<Resources> {
  if (!recordIds.length) return [];
  const motivates = new Map<string, string[]>();
  for (const e of await d.stores.chunks.edgesAt(archive, recordIds, "motivates", "in", t)) {
    const list = motivates.get(e.to);
    if (list) list.push(e.from);
    else if (motivates.size < max) motivates.set(e.to, [e.from]);
  }
  const ids = [...motivates.keys()];
  if (!ids.length) return [];
  const heads = await d.stores.chunks.visibleAt(archive, ids, t);
  const events = await d.stores.annotations.annotationsOf(archive, ids, "status", t);
  const statusOf = new Map<string, typeof events>();
  for (const e of events) {
    const list = statusOf.get(e.chunkId);
    if (list) list.push(e);
    else statusOf.set(e.chunkId, [e]);
  }
  const out: Resources = [];
  for (const id of ids) {
    const h = heads.get(id);
    if (!h) continue;
    const st = foldAnnotations((statusOf.get(id) ?? []).map(toEvent), t).get("status")?.value;
    if (st !== undefined && st !== "committed") continue;
    out.push({
      id,
      kind: h.kind,
      version: h.version,
      title: h.title,
      synopsis: h.synopsis,
      motivates: motivates.get(id) ?? [],
    });
  }
  return out;
}

type Body = In<typeof S.BriefBody>;

/** Tokens of the current contents of these modules (the first MAX_COUNTED_MODULES read, the rest at their mean). */
async function codeTokens(d: AppDeps, archive: string, ids: string[], t: number): Promise<number> {
  if (!ids.length) return 0;
  const counted = ids.slice(0, MAX_COUNTED_MODULES);
  const heads = await d.stores.chunks.visibleAt(archive, counted, t);
  let sum = 0;
  let n = 0;
  for (const id of counted) {
    const h = heads.get(id);
    if (!h) continue;
    sum += countTokens((await d.kernel.contentOf(h.contentKey)) ?? "");
    n++;
  }
  return n ? Math.round((sum / n) * ids.length) : 0;
}

/** The restart estimate for a fitted brief (its `tokens` final). */
async function estimate(
  d: AppDeps,
  archive: string,
  b: Body,
  out: Brief,
  t: number,
  renderTokens: number | null,
): Promise<Restart | null> {
  const ctx = b.context;
  if (!ctx) return null;
  let turnTokens = ctx.turn_tokens;
  if (turnTokens === undefined) {
    let assistant = 0;
    if (b.session_id) {
      const events = (await d.stores.sessions.recent(archive, b.session_id, t, SESSION_SCAN)).filter(
        (e) => e.role === "assistant",
      );
      if (events.length) assistant = Math.round(events.reduce((s, e) => s + countTokens(e.text), 0) / events.length);
    }
    turnTokens = countTokens(b.request) + assistant;
  }
  const code = await codeTokens(
    d,
    archive,
    [...out.revise, ...out.preserve, ...out.reuse].map((m) => m.id),
    t,
  );
  return restartAdvice(ctx, { brief: out.tokens, code, turnTokens: Math.max(1, turnTokens) }, renderTokens);
}

/** The session's own recent requests when the caller passes none: its last `user` events at t. */
async function recentRequests(
  d: AppDeps,
  archive: string,
  b: Body,
  t: number,
): Promise<{ recent: string[]; sessionTurns: number }> {
  let recent = b.recent_requests ?? [];
  let sessionTurns = 0;
  if (!b.recent_requests && b.session_id) {
    const events = await d.stores.sessions.recent(archive, b.session_id, t, SESSION_SCAN);
    // The request itself, when the agent stored it as a turn already, is not read twice.
    recent = events
      .filter((e) => e.role === "user" && e.text !== b.request)
      .slice(0, SESSION_REQUESTS)
      .map((e) => e.text.slice(0, 8000))
      .reverse();
    sessionTurns = recent.length;
  }
  return { recent, sessionTurns };
}

/** Rules 1 and 2: the records routed for the query at or above the floor, committed ones briefed (with their spec), the rest held back. */
async function relevantRecords(d: AppDeps, archive: string, b: Body, query: string, t: number) {
  const routed = await d.kernel.route({
    archiveId: archive,
    query,
    asOf: t,
    limit: RELEVANT,
    filter: { kinds: ["design", "decision"] },
  });
  const floor = b.min_score ?? BRIEF_MIN_SCORE;
  const relevant = routed.route.selected.filter((r) => r.score >= floor);
  const ids = relevant.map((r) => r.chunk);
  const status = new Map<string, string>();
  const events = await d.stores.annotations.annotationsOf(archive, ids, "status", t);
  for (const id of ids) {
    const v = foldAnnotations(events.filter((e) => e.chunkId === id).map(toEvent), t).get("status");
    status.set(id, typeof v?.value === "string" ? v.value : "none");
  }
  const committedIds = ids.filter((id) => status.get(id) === "committed");
  const heads = await d.stores.chunks.visibleAt(archive, [...committedIds], t);
  const commitments = relevant
    .filter((r) => status.get(r.chunk) === "committed" && heads.has(r.chunk))
    .map((r) => {
      const h = heads.get(r.chunk);
      return {
        id: r.chunk,
        kind: h?.kind ?? "decision",
        version: h?.version ?? r.version,
        title: h?.title ?? "",
        synopsis: h?.synopsis ?? "",
        valid_from: iso(h?.validFrom ?? 0),
        score: round4(r.score),
      };
    });
  // Spec components (A.2) of the briefed records at t, shown with each record that has one.
  const specs = await specsAt(
    d,
    archive,
    commitments.map((c) => c.id),
    t,
  );
  for (const c of commitments) {
    const s = specs.get(c.id);
    if (s) Object.assign(c, { spec: s });
  }
  const heldBack = ids
    .filter((id) => status.get(id) !== "committed")
    .map((id) => ({ id, status: status.get(id) ?? "none" }));
  return { commitments, heldBack };
}

/** Rule 3: the modules implementing the commitments, with their current versions, to revise, preserve or reuse. */
async function moduleRoles(
  d: AppDeps,
  archive: string,
  b: Body,
  commitments: ReadonlyArray<{ id: string; valid_from: string }>,
  t: number,
): Promise<Pick<Brief, "preserve" | "revise" | "reuse">> {
  const chunks = d.stores.chunks;
  const impl = await chunks.edgesAt(
    archive,
    commitments.map((c) => c.id),
    "implements",
    "in",
    t,
  );
  const implementsOf = new Map<string, string[]>();
  for (const e of impl) {
    if (b.prefix && !e.to.startsWith(b.prefix)) continue;
    implementsOf.set(e.to, [...(implementsOf.get(e.to) ?? []), e.from]);
  }
  const moduleIds = [...implementsOf.keys()];
  const modules = moduleIds.length ? await chunks.visibleAt(archive, moduleIds, t) : new Map();
  const dependents = new Map<string, number>();
  const testers = new Map<string, number>();
  for (const e of await chunks.edgesAt(archive, moduleIds, "depends-on", "in", t))
    dependents.set(e.from, (dependents.get(e.from) ?? 0) + 1);
  for (const e of await chunks.edgesAt(archive, moduleIds, "tests", "in", t))
    testers.set(e.from, (testers.get(e.from) ?? 0) + 1);
  const commitmentFrom = new Map(commitments.map((c) => [c.id, Date.parse(c.valid_from)]));
  const preserve: Brief["preserve"] = [];
  const revise: Brief["revise"] = [];
  const reuse: Brief["reuse"] = [];
  for (const id of moduleIds.sort()) {
    const m = modules.get(id);
    if (m?.kind !== "code_unit") continue;
    const targets = implementsOf.get(id) ?? [];
    const changed = targets.filter((c) => (commitmentFrom.get(c) ?? 0) > m.validFrom);
    const ref = { id, version: m.version, implements: targets, reason: "" };
    if (changed.length) revise.push({ ...ref, reason: `${changed.join(", ")} changed after this version` });
    else if ((dependents.get(id) ?? 0) + (testers.get(id) ?? 0) > 0)
      preserve.push({
        ...ref,
        reason: `depended on by ${dependents.get(id) ?? 0}, tested by ${testers.get(id) ?? 0}`,
      });
    else reuse.push({ ...ref, reason: "implements a commitment; nothing depends on it" });
  }
  return { preserve, revise, reuse };
}

/** Rule 4: exported signatures of the modules to preserve, as exact anchors. */
async function constraintsOf(d: AppDeps, archive: string, preserve: Brief["preserve"]): Promise<Brief["constraints"]> {
  const constraints: Brief["constraints"] = [];
  for (const p of preserve.slice(0, MAX_CONSTRAINT_MODULES)) {
    const v = (await d.stores.chunks.exact(archive, p.id, p.version)) ?? null;
    const rec = await d.stores.chunks.chunkHistory(archive, p.id);
    const row = rec?.versions.find((x) => x.version === p.version);
    if (!v || !row) continue;
    const content = (await d.kernel.contentOf(v.contentKey)) ?? "";
    for (const s of row.symbols ?? [])
      if (s.exported && s.end <= content.length)
        constraints.push({
          module: p.id,
          symbol: s.name,
          signature: s.signature,
          anchor: {
            artifact_id: p.id,
            version: p.version,
            start: s.start,
            end: s.end,
            snippet: content.slice(s.start, s.end),
          },
        });
  }
  return constraints;
}

/** Rule 6 with the restart signal (B.2): the brief fitted to the budget with `restart` filled in. */
async function fitWithRestart(
  d: AppDeps,
  render: RenderFn | undefined,
  archive: string,
  b: Body,
  context: NonNullable<Body["context"]>,
  out: Brief,
  t: number,
): Promise<Result<Brief>> {
  // The rendered state a fresh session would start with, within its window (B.2).
  let renderTokens: number | null = null;
  if (render) {
    const r = await render(archive, {
      as_of: iso(t),
      budget_tokens: Math.min(MAX_RENDER_BUDGET, context.window_tokens),
      ...(b.prefix ? { prefix: b.prefix } : {}),
    });
    renderTokens = r.ok && r.value.omitted.length === 0 ? r.value.tokens : null;
  }
  // Fitted with the signal in it at the budget's digits (an upper bound of its final numbers), then
  // the numbers filled in and the whole fitted again (a cut then only lowers the brief's tokens).
  const bound = b.budget_tokens + context.window_tokens;
  out.restart = restartAdvice(
    { ...context, used_tokens: 0, window_tokens: bound },
    { brief: bound, code: bound, turnTokens: bound },
    bound,
  );
  let fitted = fitBrief(out, b.budget_tokens);
  for (let i = 0; i < 3 && fitted.ok; i++) {
    const r = await estimate(d, archive, b, fitted.value, t, renderTokens);
    if (!r) break;
    fitted.value.restart = r;
    const before = fitted.value.tokens;
    fitted = fitBrief(fitted.value, b.budget_tokens);
    if (fitted.ok && fitted.value.tokens === before && fitted.value.restart?.parts.brief === before) break;
  }
  return fitted;
}

/** The pre-turn brief at `as_of` (rules 1 to 6 in the header). */
async function brief(d: AppDeps, render: RenderFn | undefined, archive: string, b: Body): Promise<Result<Brief>> {
  const t = timeOf(d, b.as_of);
  const { recent, sessionTurns } = await recentRequests(d, archive, b, t);
  const query = [...recent, b.request].join("\n");
  const { commitments, heldBack } = await relevantRecords(d, archive, b, query, t);
  const { preserve, revise, reuse } = await moduleRoles(d, archive, b, commitments, t);
  const constraints = await constraintsOf(d, archive, preserve);
  const resources = await motivating(
    d,
    archive,
    commitments.map((c) => c.id),
    t,
  );

  // Budget: drop from the least needed end until the whole result fits.
  const out: Brief = {
    as_of: iso(t),
    // Only with a session_id, and resources only when some chunk motivates a commitment: an
    // empty brief stays as small as before (a 100-token budget holds it).
    ...(b.session_id ? { session_turns: sessionTurns } : {}),
    commitments,
    held_back: heldBack,
    ...(resources.length ? { resources } : {}),
    preserve,
    revise,
    reuse,
    constraints,
    tokens: 0,
    omitted: [],
  };
  if (!b.context) return fitBrief(out, b.budget_tokens);
  return fitWithRestart(d, render, archive, b, b.context, out, t);
}

export function briefUseCases(d: AppDeps, render?: RenderFn) {
  return {
    brief: (archive: string, b: Body) => brief(d, render, archive, b),
  };
}
