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

/** SLUMP_F(p, a) = F(R^ss) − F(R^em) (seed 002 §2.2): positive when progressive disclosure lost faithfulness. */
export function slump(singleShot: number, emergent: number): number {
  return singleShot - emergent;
}

/** One annotation of the exposure audit: the recoverability level R ∈ {0..4} a component has at a turn. */
export interface ExposureLevel {
  turn: number;
  level: number;
}

/** A component's exposure over the interaction: the levels annotated at some turns. */
export interface ComponentExposure {
  id: string;
  levels: readonly ExposureLevel[];
}

export interface ExposureAudit {
  /** Recoverable Component Rate: share of components with R(c) ≥ 1. */
  rcr: number;
  /** Explicit Specification Rate: share of components with R(c) = 4. */
  esr: number;
  components: Array<{
    id: string;
    /** R(c): the highest level annotated (what the visible interaction reveals by its end). */
    level: number;
    /** The first turn at which the level is at least 1; null when it never is. */
    first_recoverable_turn: number | null;
    /** The first turn at which the level is 4; null when it never is. */
    first_explicit_turn: number | null;
  }>;
  /** Fig. 1: for each turn 1..last, the cumulative shares recoverable (R ≥ 1) and explicit (R = 4) by then. */
  curve: Array<{ turn: number; recoverable: number; explicit: number }>;
}

/**
 * The exposure audit (seed 002 §3.3, Fig. 1). Exposure is cumulative: what the interaction has shown
 * stays visible, so a component's level at turn t is the highest level annotated at a turn ≤ t and
 * R(c) is the highest overall. `turns` extends the curve to the script's length (default: the last
 * annotated turn). RCR and ESR are 0 for no components.
 */
export function exposureAudit(components: readonly ComponentExposure[], turns?: number): ExposureAudit {
  const rows: ExposureAudit["components"] = [];
  let last = 0;
  for (const c of components) {
    let level = 0;
    let firstRecoverable: number | null = null;
    let firstExplicit: number | null = null;
    for (const l of c.levels) {
      if (!Number.isInteger(l.level) || l.level < 0 || l.level > 4)
        throw new RangeError(`recoverability levels are integers 0-4, got ${l.level}`);
      if (!Number.isInteger(l.turn) || l.turn < 1) throw new RangeError(`turns are integers from 1, got ${l.turn}`);
      last = Math.max(last, l.turn);
      level = Math.max(level, l.level);
      if (l.level >= 1 && (firstRecoverable === null || l.turn < firstRecoverable)) firstRecoverable = l.turn;
      if (l.level === 4 && (firstExplicit === null || l.turn < firstExplicit)) firstExplicit = l.turn;
    }
    rows.push({ id: c.id, level, first_recoverable_turn: firstRecoverable, first_explicit_turn: firstExplicit });
  }
  const n = rows.length;
  const share = (k: number) => (n ? k / n : 0);
  const end = Math.max(last, turns ?? 0);
  const curve: ExposureAudit["curve"] = [];
  for (let t = 1; t <= end; t++)
    curve.push({
      turn: t,
      recoverable: share(rows.filter((r) => r.first_recoverable_turn !== null && r.first_recoverable_turn <= t).length),
      explicit: share(rows.filter((r) => r.first_explicit_turn !== null && r.first_explicit_turn <= t).length),
    });
  return {
    rcr: share(rows.filter((r) => r.level >= 1).length),
    esr: share(rows.filter((r) => r.level === 4).length),
    components: rows,
    curve,
  };
}
