/**
 * Project metrics over the structural state (ProjectGuard, seed 002 §4.1). DIR, the dependency
 * integration ratio, is computed from the code units of one repository (an id prefix) as of a time,
 * by these rules:
 * - modules: code units with stored declarations; tests: modules with a `tests` edge out (left out);
 * - integration code: modules that depend on another module (`depends-on`) and that no module depends
 *   on (the entry points that wire the components together); standalone: every other module;
 * - E_total: the exported declarations of the standalone modules; E_used: those whose name appears as
 *   a whole word in an integration module that depends on the module declaring them.
 */
import type * as S from "../contract";
import { fail, ok, type Result } from "../core/errors";
import { dir, type ModuleSymbols } from "../core/projectguard/metrics";
import type { AppDeps } from "./deps";
import { type In, iso, timeOf } from "./lib/wire";

/** Modules read per call (each integration module's content is read once). */
export const MAX_MODULES = 2000;

/** The too_large failure of a call that reads at most `max` code units under `prefix`. */
export const tooManyCodeUnits = (max: number, prefix: string, hint: string) =>
  fail("too_large", `more than ${max} code units under ${prefix}`, "prefix", hint);

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function metricsUseCases(d: AppDeps) {
  const chunks = d.stores.chunks;
  return {
    /** How many chunks of a kind something `implements` at t (xKG: a technique is grounded iff code implements it). */
    async grounding(archive: string, q: In<typeof S.GroundingQuery>): Promise<Result<In<typeof S.GroundingResult>>> {
      const t = timeOf(d, q.as_of);
      const implemented = new Set(await chunks.implementedAt(archive, t));
      let total = 0;
      let grounded = 0;
      const ungrounded: string[] = [];
      let after: string | null = null;
      for (;;) {
        const ids = await chunks.listChunkIds(archive, { asOf: t, kind: q.kind, prefix: q.prefix }, after, 501);
        for (const id of ids.slice(0, 500)) {
          total++;
          if (implemented.has(id)) grounded++;
          else if (ungrounded.length < 1000) ungrounded.push(id);
        }
        if (ids.length <= 500) break;
        after = ids[499] as string;
      }
      return ok({
        kind: q.kind,
        as_of: iso(t),
        total,
        grounded,
        ungrounded,
        share: total ? Math.round((grounded / total) * 10_000) / 10_000 : 0,
      });
    },

    async dir(archive: string, q: In<typeof S.DirQuery>): Promise<Result<In<typeof S.DirResult>>> {
      const t = timeOf(d, q.as_of);
      const rows = await chunks.codeModules(archive, q.prefix, t, MAX_MODULES + 1);
      if (rows.length > MAX_MODULES) return tooManyCodeUnits(MAX_MODULES, q.prefix, "give a narrower prefix");
      const ids = rows.map((r) => r.chunkId);
      const known = new Set(ids);
      const deps = (await chunks.edgesAt(archive, ids, "depends-on", "out", t)).filter((e) => known.has(e.to));
      const tests = new Set((await chunks.edgesAt(archive, ids, "tests", "out", t)).map((e) => e.from));
      const dependedOn = new Set(deps.map((e) => e.to));
      const out = new Map<string, string[]>();
      for (const e of deps) out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
      const symbols = new Map(rows.map((r) => [r.chunkId, r.symbols ?? []]));
      const integration = ids.filter((id) => !tests.has(id) && (out.get(id)?.length ?? 0) > 0 && !dependedOn.has(id));
      const standalone = ids.filter((id) => !tests.has(id) && !integration.includes(id));
      const modules: ModuleSymbols[] = standalone.map((id) => ({
        id,
        standalone: true,
        exports: (symbols.get(id) ?? []).filter((s) => s.exported).map((s) => s.name),
        uses: [],
      }));
      for (const id of integration) {
        const row = rows.find((r) => r.chunkId === id);
        const content = row ? ((await d.kernel.contentOf(row.contentKey)) ?? "") : "";
        const uses: Array<[string, string]> = [];
        for (const target of out.get(id) ?? [])
          for (const s of symbols.get(target) ?? [])
            if (s.exported && new RegExp(`\\b${escapeRe(s.name.split(".").pop() ?? s.name)}\\b`).test(content))
              uses.push([target, s.name]);
        modules.push({ id, standalone: false, exports: [], uses });
      }
      const r = dir(modules);
      return ok({
        prefix: q.prefix,
        as_of: iso(t),
        dir: Math.round(r.dir * 10_000) / 10_000,
        total: r.total.length,
        used: r.used.length,
        integration,
        standalone,
        tests: [...tests].sort(),
        unused: r.total.filter((x) => !r.used.includes(x)),
      });
    },
  };
}
