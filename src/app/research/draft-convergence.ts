/**
 * Eq. 10 over a draft's versions, read by the convergence and assembly use cases.
 */
import { fail, ok } from "../../core/errors";
import { convergence, type RougeMeasure, rougeTokens } from "../../core/research/rouge";
import type { AppDeps } from "../deps";
import { iso, round4 } from "../lib/wire";
import { MAX_READ_CHARS, readContents } from "./common";

/** Eq. 10 over a chunk's versions valid from t or earlier (oldest first, at most `max`). */
export async function draftConvergence(
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
