/**
 * The whole current state of a project for a fresh session: committed designs and decisions with
 * their text, the resources that motivate them (heads), then the code units with what they implement, what they depend on and their exported
 * signatures, cut to a token budget.
 */
import type * as S from "../../contract";
import { foldAnnotations } from "../../core/annotations";
import { fail, ok, type Result } from "../../core/errors";
import { pacer } from "../../core/pace";
import { countTokens } from "../../core/text/tokenizer";
import type { browseUseCases } from "../browse";
import type { AppDeps } from "../deps";
import { toEvent } from "../lib/records";
import { type In, iso, timeOf } from "../lib/wire";
import { motivating } from "./brief";
import { specsAt } from "./spec";

type Render = In<typeof S.RenderResult>;

/** Records and modules a render reads (beyond: 413 naming the prefix to narrow). */
const MAX_RENDER_RECORDS = 2000;

/** Resources (chunks that `motivate` a committed record) a render lists, heaviest edges first. */
const MAX_RENDER_RESOURCES = 200;

/** Content blobs a render reads at once (a Worker keeps at most 6 connections open per request). */
const CONTENT_READS = 6;

/** Every chunk of a kind visible at t, in id order (bounded). */
async function allOf(
  browse: ReturnType<typeof browseUseCases>,
  archive: string,
  kind: "design" | "decision" | "code_unit",
  t: number,
  prefix: string | undefined,
  pause: AppDeps["pause"],
) {
  const out: Array<{ id: string; version: number; title: string }> = [];
  let cursor: string | undefined;
  do {
    // Locally the reads answer in-process: a pause per page lets other requests in (src/core/pace.ts).
    await pause?.();
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

/**
 * Cut a render to the budget from the end: resources, module signatures, modules, decisions, designs; every id
 * cut is listed in `omitted`. A validation failure when even the list of omitted ids is over it.
 */
async function fitRender(out: Render, budget: number, pause: AppDeps["pause"]): Promise<Result<Render>> {
  // Each count reads the whole render (~250 ms for 2,000 modules): the thread is given back before
  // each one, so the counts of one render never run back to back (src/core/pace.ts).
  const size = async () => {
    await pause?.();
    return countTokens(JSON.stringify(out));
  };
  // The result holds its own token count: while cutting it is counted at the budget's digits, an
  // upper bound for any final count within the budget ("1200" is 2 cl100k tokens, "0" is 1).
  out.tokens = budget;
  let tokens = await size();
  // Each cut returns what it removed and that item's own tokens: items are dropped until their
  // tokens cover the excess, then the whole is counted again (linear, not one recount per item).
  const cost = (x: unknown) => countTokens(JSON.stringify(x));
  const cuts: Array<() => { id: string; tokens: number } | null> = [
    () => {
      const x = out.resources.pop();
      return x ? { id: x.id, tokens: cost(x) } : null;
    },
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
    while (tokens > budget) {
      let saved = 0;
      while (saved < tokens - budget) {
        const gone = cut();
        if (gone === null) break;
        out.omitted.push(gone.id);
        saved += gone.tokens;
      }
      if (saved === 0) break;
      tokens = await size();
    }
  if (tokens > budget)
    return fail(
      "validation",
      `budget_tokens ${budget} cannot hold the render: with every record and module cut, the list of ${out.omitted.length} omitted ids alone makes it ${tokens} tokens`,
      "budget_tokens",
      `raise budget_tokens to at least ${tokens}, or narrow the modules with prefix`,
    );
  // Settle the count on its own digits (at most the budget's, so still within it).
  out.tokens = tokens;
  out.tokens = await size();
  out.tokens = await size();
  return ok(out);
}

export function renderUseCases(d: AppDeps, browse: ReturnType<typeof browseUseCases>) {
  const chunks = d.stores.chunks;

  return {
    /**
     * The whole current state for a fresh session: committed designs and decisions with their text,
     * then the code units with what they implement, what they depend on and their exported
     * signatures; the resources that motivate the records as heads. Cut to the budget from the end:
     * resources, module signatures, modules, decisions, designs.
     */
    async render(archive: string, b: In<typeof S.RenderBody>): Promise<Result<Render>> {
      const t = timeOf(d, b.as_of);
      const designs = await allOf(browse, archive, "design", t, undefined, d.pause);
      const decisions = await allOf(browse, archive, "decision", t, undefined, d.pause);
      const code = await allOf(browse, archive, "code_unit", t, b.prefix, d.pause);
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
      const pace = pacer(d.pause, 10);
      for (let i = 0; i < keys.length; i += CONTENT_READS) {
        await pace();
        await Promise.all(
          keys
            .slice(i, i + CONTENT_READS)
            .map(async ([id, key]) => texts.set(id, (await d.kernel.contentOf(key)) ?? "")),
        );
      }
      const text = (id: string) => texts.get(id) ?? "";
      // Each committed record's spec components (A.2) at t, when it has them.
      const specs = await specsAt(d, archive, [...committedIds], t);
      const specOf = (id: string) => {
        const s = specs.get(id);
        return s ? { spec: s } : {};
      };
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
        resources: [],
        modules: [],
        tokens: 0,
        state_chars: 0,
        omitted: [],
      };
      for (const r of designs.value)
        if (committedIds.has(r.id))
          out.designs.push({ id: r.id, version: r.version, title: r.title, content: text(r.id), ...specOf(r.id) });
      for (const r of decisions.value)
        if (committedIds.has(r.id))
          out.decisions.push({
            id: r.id,
            version: r.version,
            title: r.title,
            content: text(r.id),
            part_of: partOf.get(r.id) ?? [],
            ...specOf(r.id),
          });
      out.resources = await motivating(
        d,
        archive,
        [...out.designs, ...out.decisions].map((r) => r.id),
        t,
        MAX_RENDER_RESOURCES,
      );
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
      const symbolsOf = new Map(mods.map((m) => [`${m.chunkId}@${m.version}`, m.symbols ?? []] as const));
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
      return fitRender(out, b.budget_tokens, d.pause);
    },
  };
}
