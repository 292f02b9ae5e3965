import { mapLimit } from "./map-limit";
import type { QueryDeps } from "./query";
import type { AnchoredSpan } from "./types";

export interface VerifyResult {
  anchor: AnchoredSpan;
  verified: boolean;
  reason: "ok" | "snippet_mismatch" | "version_not_found" | "span_out_of_range";
  actual?: string;
}

/** Re-check anchors: the snippet must be exactly the text at [start, end) of that version. */
export async function verifyAnchors(
  deps: QueryDeps,
  archiveId: string,
  anchors: AnchoredSpan[],
  sessionId?: string | undefined,
): Promise<VerifyResult[]> {
  const byVersion = new Map<string, AnchoredSpan[]>();
  for (const a of anchors) {
    const k = `${a.artifact_id}\u0000${a.version}`;
    const list = byVersion.get(k) ?? [];
    list.push(a);
    byVersion.set(k, list);
  }
  const contents = new Map<string, string | null>();
  await mapLimit([...byVersion.keys()], 6, async (k) => {
    const [chunk, v] = k.split("\u0000") as [string, string];
    const row = await deps.versions.exact(archiveId, chunk, Number(v));
    contents.set(k, row ? await deps.blobs.get(row.contentKey) : null);
  });
  const now = deps.clock.now();
  // Accesses of versions that exist only: an anchor into a missing (or deleted) chunk names nothing
  // stored, and its id is not written back into the access log.
  const found = new Set([...contents].filter(([, c]) => c !== null).map(([k]) => k.split("\u0000")[0] as string));
  await deps.access.record(
    archiveId,
    [...found].map((chunk) => ({ chunk, channel: "verification" as const, at: now })),
    sessionId,
  );
  return anchors.map((a) => {
    const content = contents.get(`${a.artifact_id}\u0000${a.version}`);
    if (content == null) return { anchor: a, verified: false, reason: "version_not_found" };
    if (a.end > content.length || a.start >= a.end) return { anchor: a, verified: false, reason: "span_out_of_range" };
    const actual = content.slice(a.start, a.end);
    return actual === a.snippet
      ? { anchor: a, verified: true, reason: "ok" }
      : { anchor: a, verified: false, reason: "snippet_mismatch", actual };
  });
}
