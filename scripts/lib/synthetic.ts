/**
 * Synthetic archives that look like literature: power-law citation degrees (preferential attachment),
 * entity mentions with Zipf frequencies, and a share of chunks with several revisions.
 * Deterministic for a given seed, so runs are comparable.
 */
import { toBase64 } from "../../src/core/sketch";
import type { ChangeOp } from "../../src/core/types";

export function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

/** xorshift32 from a mixed seed, its first 20 outputs dropped (small seeds start with tiny values). */
export function mixedRng(seed: number) {
  const next = rng(Math.imul(seed, 2654435761) >>> 0 || 1);
  for (let i = 0; i < 20; i++) next();
  return next;
}

export interface SyntheticArchive {
  ops: ChangeOp[];
  heads: number;
  edges: number;
  /** Entity ids by popularity rank (0 = most frequent). */
  entities: string[];
  /** Per head: its random 32-byte sketch (to build queries with known similarity). */
  sketches: Uint8Array[];
  start: number;
  end: number;
}

export interface SyntheticOptions {
  heads: number;
  seed?: number;
  /** Mean out-citations per head (papers cite ~8 others in-archive on average). */
  citesPerHead?: number;
  entitiesPerHead?: number;
  /** Distinct entities: ~ heads / 4. */
  entityCount?: number;
  /** Share of heads with extra revisions. */
  revisedShare?: number;
  /**
   * Distinct words per head in its lexical bag (0 = none), drawn Zipf(1) from a 50,000-word
   * vocabulary like the stems of ~500-character passages.
   */
  termsPerHead?: number;
}

/** Zipf(1) sampler over ranks 0..n-1 (inverse of the harmonic CDF by binary search). */
export function zipfSampler(n: number, r: () => number): () => number {
  const cdf = new Float64Array(n);
  let acc = 0;
  for (let i = 0; i < n; i++) {
    acc += 1 / (i + 1);
    cdf[i] = acc;
  }
  return () => {
    const u = r() * acc;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] as number) < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export const SYNTHETIC_VOCABULARY = 50_000;

const DAY = 86_400_000;

export function syntheticArchive(o: SyntheticOptions): SyntheticArchive {
  const r = rng(o.seed ?? 42);
  const n = o.heads;
  const cites = o.citesPerHead ?? 8;
  const perHead = o.entitiesPerHead ?? 5;
  const nEnt = o.entityCount ?? Math.max(50, Math.floor(n / 4));
  const revised = o.revisedShare ?? 0.2;
  const start = Date.parse("2015-01-01T00:00:00Z");
  const span = 10 * 365 * DAY;
  const ops: ChangeOp[] = [];
  const entities = Array.from({ length: nEnt }, (_, i) => `method:m${i}`);
  const zipf = zipfSampler(nEnt, r);
  for (let i = 0; i < nEnt; i++) {
    ops.push({ op: "entity.upsert", id: entities[i] as string, type: "method", name: `Method ${i}`, at: start });
    ops.push({ op: "alias.add", entity: entities[i] as string, alias: `Method ${i}`, validFrom: start, validTo: null });
  }
  const sketches: Uint8Array[] = [];
  const nTerms = o.termsPerHead ?? 0;
  const word = zipfSampler(SYNTHETIC_VOCABULARY, rng((o.seed ?? 42) + 1));
  const bag = (): { terms: string; len: number } | Record<string, never> => {
    if (nTerms === 0) return {};
    const tf = new Map<number, number>();
    let len = 0;
    while (tf.size < nTerms && len < nTerms * 8) {
      const w = word();
      tf.set(w, (tf.get(w) ?? 0) + 1);
      len++;
    }
    return { terms: [...tf].map(([w, c]) => `w${w}:${c}`).join(" "), len };
  };
  // Preferential attachment: citing a uniformly chosen earlier citation target reproduces power-law in-degrees.
  const targets: number[] = [];
  let edges = 0;
  for (let i = 0; i < n; i++) {
    const t = start + Math.floor((i / n) * span);
    const sk = new Uint8Array(32);
    for (let b = 0; b < 32; b++) sk[b] = Math.floor(r() * 256);
    sketches.push(sk);
    const ents = new Set<string>();
    for (let k = 0; k < perHead; k++) ents.add(entities[zipf()] as string);
    ops.push({
      op: "head.upsert",
      chunk: `c${i}`,
      kind: i % 5 === 0 ? "paper" : "section",
      version: 1,
      validFrom: t,
      recordedAt: t,
      entities: [...ents],
      boundaries: [`split:s${i % 7}`],
      sketch: toBase64(sk),
      ...bag(),
    });
    if (i > 0) {
      const k = Math.max(1, Math.round(cites * (0.5 + r())));
      for (let j = 0; j < k; j++) {
        const dst =
          targets.length && r() < 0.7 ? (targets[Math.floor(r() * targets.length)] as number) : Math.floor(r() * i);
        if (dst === i) continue;
        ops.push({
          op: "edge.upsert",
          src: `c${i}`,
          dst: `c${dst}`,
          type: r() < 0.85 ? "cites" : "benchmarked-on",
          weight: 0.5 + r(),
          validFrom: t,
          validTo: null,
        });
        targets.push(dst);
        edges++;
      }
    }
    targets.push(i);
  }
  // Revisions: later versions of a share of heads (appended in time order after all v1s).
  for (let i = 0; i < n; i++) {
    if (r() >= revised) continue;
    const versions = 1 + Math.floor(r() * 3);
    let t = start + Math.floor((i / n) * span);
    for (let v = 2; v <= versions + 1; v++) {
      t += Math.floor(r() * 180 * DAY) + DAY;
      ops.push({
        op: "head.upsert",
        chunk: `c${i}`,
        kind: i % 5 === 0 ? "paper" : "section",
        version: v,
        validFrom: t,
        recordedAt: t,
        entities: [entities[zipf()] as string],
        boundaries: [],
        sketch: toBase64(sketches[i] as Uint8Array),
      });
    }
  }
  return { ops, heads: n, edges, entities, sketches, start, end: start + span + 365 * DAY };
}
