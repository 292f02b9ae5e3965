/**
 * ProjectGuard's pre-turn brief (seed 002 §5.1), deterministic. The rules:
 * 1. Relevance: the request (joined with the session's recent requests) is routed over designs and
 *    decisions only (the filter applies before the top-M cut), as of `as_of`; superseded versions
 *    and deprecated records are invisible to routing, so they are never briefed.
 *    Records the router scores below `min_score` (default 0.02; the router's scores are relative to
 *    its best candidate, 1) are not about the request and are left out. Measured on the eval's
 *    generated histories (871 briefed records, a third of the requests about two topics): 0.02 keeps
 *    99.7% of the relevant records (a second topic's records score down to 0.015) and lifts the share
 *    of briefed records that are relevant from 45% to 71%; 0.1 would reach 90% but drop 12% of a second
 *    topic's records. Missing a commitment costs more than an extra one, hence the low floor; 0 keeps all.
 * 2. Conservative commit: of the relevant records, only those whose `status` annotation is
 *    `committed` at `as_of` are briefed; the rest are listed as held back with their status.
 * 3. Modules: the code units that `implement` a briefed commitment (exact edges at `as_of`). A module
 *    is to **revise** when a commitment it implements has a version valid from after the module's
 *    own version (the commitment changed after the module last did); else to **preserve** when
 *    another module depends on it or tests it; else to **reuse**.
 * 4. Constraints: the exported signatures of the modules to preserve, as exact anchors into their
 *    current versions.
 * 5. Budget: the whole result is counted in cl100k_base; over the budget, the held-back list goes
 *    first, then constraints (last first), modules to reuse, to preserve, to revise, then the
 *    lowest-ranked commitments; every id left out is listed in `omitted`.
 */
import type { z } from "zod";
import type * as S from "../contract";
import { foldAnnotations } from "../core/annotations";
import type { CodeSymbol } from "../core/code/symbols";
import { fail, ok, type Result } from "../core/errors";
import { parseJson } from "../core/ports";
import { countTokens } from "../core/text/tokenizer";
import type { browseUseCases } from "./browse";
import type { AppDeps } from "./deps";
import { toEvent } from "./lib/records";
import { iso, round4 } from "./lib/wire";

type In<T extends z.ZodType> = z.infer<T>;
type Brief = In<typeof S.BriefResult>;
type Render = In<typeof S.RenderResult>;

/** Records and modules a render reads (beyond: 413 naming the prefix to narrow). */
const MAX_RENDER_RECORDS = 2000;

/** The router score below which a record is not briefed (rule 1 in the header). */
export const BRIEF_MIN_SCORE = 0.02;

/** Content blobs a render reads at once (a Worker keeps at most 6 connections open per request). */
const CONTENT_READS = 6;

/** Relevant records considered per brief (the router's selection size). */
const RELEVANT = 24;
/** Modules whose signatures are read for constraints. */
const MAX_CONSTRAINT_MODULES = 20;

export function projectUseCases(d: AppDeps, browse: ReturnType<typeof browseUseCases>) {
  const chunks = d.stores.chunks;

  /** Every chunk of a kind visible at t, in id order (bounded). */
  async function allOf(archive: string, kind: "design" | "decision" | "code_unit", t: number, prefix?: string) {
    const out: Array<{ id: string; version: number; title: string }> = [];
    let cursor: string | undefined;
    do {
      const page = await browse.listChunks(archive, {
        kind,
        as_of: new Date(t).toISOString(),
        limit: 500,
        ...(prefix ? { prefix } : {}),
        ...(cursor ? { cursor } : {}),
      });
      if (!page.ok) return page;
      out.push(...page.value.chunks.map((c) => ({ id: c.id, version: c.version, title: c.title })));
      cursor = page.value.next_cursor ?? undefined;
      if (out.length > MAX_RENDER_RECORDS)
        return fail(
          "too_large",
          `more than ${MAX_RENDER_RECORDS} ${kind} chunks`,
          "prefix",
          "narrow the render with prefix",
        );
    } while (cursor);
    return ok(out);
  }

  return {
    /**
     * The whole current state for a fresh session: committed designs and decisions with their text,
     * then the code units with what they implement, what they depend on and their exported
     * signatures. Cut to the budget from the end: module signatures, modules, decisions, designs.
     */
    async render(archive: string, b: In<typeof S.RenderBody>): Promise<Result<Render>> {
      const t = b.as_of === undefined ? d.clock.now() : Date.parse(b.as_of);
      const designs = await allOf(archive, "design", t);
      const decisions = await allOf(archive, "decision", t);
      const code = await allOf(archive, "code_unit", t, b.prefix);
      for (const r of [designs, decisions, code]) if (!r.ok) return r;
      if (!designs.ok || !decisions.ok || !code.ok) return fail("unavailable", "listing failed");
      const records = [...designs.value, ...decisions.value];
      const events = await d.stores.annotations.annotationsOf(
        archive,
        records.map((r) => r.id),
        "status",
        t,
      );
      // Each record's events, grouped in one pass (not one scan of all events per record).
      const eventsOf = new Map<string, typeof events>();
      for (const e of events) {
        const list = eventsOf.get(e.chunkId);
        if (list) list.push(e);
        else eventsOf.set(e.chunkId, [e]);
      }
      const committedIds = new Set(
        records
          .filter(
            (r) => foldAnnotations((eventsOf.get(r.id) ?? []).map(toEvent), t).get("status")?.value === "committed",
          )
          .map((r) => r.id),
      );
      // The committed records' texts: their versions at t in one read, then the blobs, CONTENT_READS at a time.
      const heads = await chunks.visibleAt(archive, [...committedIds], t);
      const texts = new Map<string, string>();
      const keys = [...heads].map(([id, v]) => [id, v.contentKey] as const);
      for (let i = 0; i < keys.length; i += CONTENT_READS)
        await Promise.all(
          keys
            .slice(i, i + CONTENT_READS)
            .map(async ([id, key]) => texts.set(id, (await d.kernel.contentOf(key)) ?? "")),
        );
      const text = (id: string) => texts.get(id) ?? "";
      const partOf = new Map<string, string[]>();
      for (const e of await chunks.edgesAt(
        archive,
        decisions.value.map((x) => x.id),
        "part-of",
        "out",
        t,
      ))
        partOf.set(e.from, [...(partOf.get(e.from) ?? []), e.to]);
      const out: Render = {
        as_of: iso(t),
        designs: [],
        decisions: [],
        modules: [],
        tokens: 0,
        state_chars: 0,
        omitted: [],
      };
      for (const r of designs.value)
        if (committedIds.has(r.id))
          out.designs.push({ id: r.id, version: r.version, title: r.title, content: text(r.id) });
      for (const r of decisions.value)
        if (committedIds.has(r.id))
          out.decisions.push({
            id: r.id,
            version: r.version,
            title: r.title,
            content: text(r.id),
            part_of: partOf.get(r.id) ?? [],
          });
      const ids = code.value.map((c) => c.id);
      const impl = new Map<string, string[]>();
      for (const e of await chunks.edgesAt(archive, ids, "implements", "out", t))
        impl.set(e.from, [...(impl.get(e.from) ?? []), e.to]);
      const deps = new Map<string, string[]>();
      for (const e of await chunks.edgesAt(archive, ids, "depends-on", "out", t))
        deps.set(e.from, [...(deps.get(e.from) ?? []), e.to]);
      // Every listed module's symbols in one read (the versions visible at t, as listed), not one
      // history read per module: 1,000 modules took 1,000 D1 round trips (4-10 s locally).
      const mods = await chunks.codeModules(archive, b.prefix ?? "", t, MAX_RENDER_RECORDS + 1);
      const symbolsOf = new Map(
        mods.map((m) => [`${m.chunkId}@${m.version}`, parseJson<CodeSymbol[]>(m.symbols, [])] as const),
      );
      for (const c of code.value) {
        const syms = symbolsOf.get(`${c.id}@${c.version}`) ?? [];
        out.modules.push({
          id: c.id,
          version: c.version,
          implements: impl.get(c.id) ?? [],
          depends_on: deps.get(c.id) ?? [],
          signatures: syms
            .filter((s) => s.exported)
            .map((s) => ({ symbol: s.name, signature: s.signature, start: s.start, end: s.end })),
        });
      }
      out.state_chars = JSON.stringify(out).length;
      const size = () => countTokens(JSON.stringify(out));
      // The result holds its own token count: while cutting it is counted at the budget's digits, an
      // upper bound for any final count within the budget ("1200" is 2 cl100k tokens, "0" is 1).
      out.tokens = b.budget_tokens;
      let tokens = size();
      // Each cut returns what it removed and that item's own tokens: items are dropped until their
      // tokens cover the excess, then the whole is counted again (linear, not one recount per item).
      const cost = (x: unknown) => countTokens(JSON.stringify(x));
      const cuts: Array<() => { id: string; tokens: number } | null> = [
        () => {
          for (let i = out.modules.length - 1; i >= 0; i--) {
            const m = out.modules[i];
            const s = m?.signatures.pop();
            if (m && s) return { id: `${m.id}#${s.symbol}`, tokens: cost(s) };
          }
          return null;
        },
        () => {
          const m = out.modules.pop();
          return m ? { id: m.id, tokens: cost(m) } : null;
        },
        () => {
          const x = out.decisions.pop();
          return x ? { id: x.id, tokens: cost(x) } : null;
        },
        () => {
          const x = out.designs.pop();
          return x ? { id: x.id, tokens: cost(x) } : null;
        },
      ];
      for (const cut of cuts)
        while (tokens > b.budget_tokens) {
          let saved = 0;
          while (saved < tokens - b.budget_tokens) {
            const gone = cut();
            if (gone === null) break;
            out.omitted.push(gone.id);
            saved += gone.tokens;
          }
          if (saved === 0) break;
          tokens = size();
        }
      if (tokens > b.budget_tokens)
        return fail(
          "validation",
          `budget_tokens ${b.budget_tokens} cannot hold the render: with every record and module cut, the list of ${out.omitted.length} omitted ids alone makes it ${tokens} tokens`,
          "budget_tokens",
          `raise budget_tokens to at least ${tokens}, or narrow the modules with prefix`,
        );
      // Settle the count on its own digits (at most the budget's, so still within it).
      out.tokens = tokens;
      out.tokens = size();
      out.tokens = size();
      return ok(out);
    },

    async brief(archive: string, b: In<typeof S.BriefBody>): Promise<Result<Brief>> {
      const t = b.as_of === undefined ? d.clock.now() : Date.parse(b.as_of);
      const query = [...(b.recent_requests ?? []), b.request].join("\n");
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
      const heads = await chunks.visibleAt(archive, [...committedIds], t);
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
      const heldBack = ids
        .filter((id) => status.get(id) !== "committed")
        .map((id) => ({ id, status: status.get(id) ?? "none" }));

      // Modules implementing the commitments, with their current versions.
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

      // Constraints: exported signatures of the modules to preserve, as exact anchors.
      const constraints: Brief["constraints"] = [];
      for (const p of preserve.slice(0, MAX_CONSTRAINT_MODULES)) {
        const v = (await chunks.exact(archive, p.id, p.version)) ?? null;
        const rec = await chunks.chunkHistory(archive, p.id);
        const row = rec?.versions.find((x) => x.version === p.version);
        if (!v || !row) continue;
        const content = (await d.kernel.contentOf(v.contentKey)) ?? "";
        for (const s of parseJson<CodeSymbol[]>(row.symbols ?? null, []))
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

      // Budget: drop from the least needed end until the whole result fits.
      const out: Brief = {
        as_of: iso(t),
        commitments,
        held_back: heldBack,
        preserve,
        revise,
        reuse,
        constraints,
        tokens: 0,
        omitted: [],
      };
      const size = () => countTokens(JSON.stringify(out));
      // Counted at the budget's digits while cutting, as in render.
      out.tokens = b.budget_tokens;
      const lists: Array<() => string | null> = [
        () => out.held_back.pop()?.id ?? null,
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
        while (tokens > b.budget_tokens) {
          const gone = drop();
          if (gone === null) break;
          out.omitted.push(gone);
          tokens = size();
        }
      if (tokens > b.budget_tokens)
        return fail(
          "validation",
          `budget_tokens ${b.budget_tokens} cannot hold the brief: with everything cut it is ${tokens} tokens (${out.omitted.length} omitted ids listed)`,
          "budget_tokens",
          `raise budget_tokens to at least ${tokens}`,
        );
      // The count includes its own digits (at most the budget's): settle it (two passes suffice).
      out.tokens = tokens;
      out.tokens = size();
      out.tokens = size();
      return ok(out);
    },
  };
}
