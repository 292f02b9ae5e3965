/**
 * ProjectGuard's metrics (seed 002, §4.1 and §5.2), as pure functions:
 * - MCF = mean rubric score s_i ∈ {0..4} over a paper's components;
 * - DIR = |E_used| / |E_total|: E_total the public symbols exported by standalone modules, E_used
 *   those that downstream integration code reuses;
 * - IF50 = ½ (MCF / 4) + ½ DIR;
 * - Recovery_F = (F(R^mem) − F(R^em)) / (F(R^ss) − F(R^em)): the share of the gap between the
 *   emergent and the single-shot run that the memory closes (null when there is no gap).
 */

export function mcf(scores: readonly number[]): number {
  if (scores.length === 0) return 0;
  for (const s of scores)
    if (!Number.isInteger(s) || s < 0 || s > 4) throw new RangeError(`rubric scores are integers 0-4, got ${s}`);
  return scores.reduce((a, b) => a + b, 0) / scores.length;
}

export function if50(mcfValue: number, dirValue: number): number {
  if (mcfValue < 0 || mcfValue > 4) throw new RangeError(`MCF is in [0, 4], got ${mcfValue}`);
  if (dirValue < 0 || dirValue > 1) throw new RangeError(`DIR is in [0, 1], got ${dirValue}`);
  return 0.5 * (mcfValue / 4) + 0.5 * dirValue;
}

export function recovery(memory: number, emergent: number, singleShot: number): number | null {
  const gap = singleShot - emergent;
  return gap === 0 ? null : (memory - emergent) / gap;
}

/** A module of the structural state: whether it stands alone, what it exports, what it imports. */
export interface ModuleSymbols {
  id: string;
  /** Standalone: a component module (its symbols count in E_total); otherwise integration code. */
  standalone: boolean;
  /** Public symbols it exports. */
  exports: readonly string[];
  /** Symbols it uses from other modules: [module id, symbol]. */
  uses: ReadonlyArray<readonly [string, string]>;
}

/**
 * DIR over a structural state. A symbol of a standalone module is used when some other module that
 * is integration code (not standalone) uses it. Returns the ratio with both sets for inspection;
 * DIR is 0 when there are no standalone exports.
 */
export function dir(modules: readonly ModuleSymbols[]): {
  dir: number;
  total: string[];
  used: string[];
} {
  const standalone = new Map(modules.filter((m) => m.standalone).map((m) => [m.id, new Set(m.exports)]));
  const total: string[] = [];
  for (const [id, syms] of standalone) for (const s of syms) total.push(`${id}#${s}`);
  const used = new Set<string>();
  for (const m of modules) {
    if (m.standalone) continue;
    for (const [target, sym] of m.uses) if (standalone.get(target)?.has(sym)) used.add(`${target}#${sym}`);
  }
  total.sort();
  return { dir: total.length ? used.size / total.length : 0, total, used: [...used].sort() };
}
