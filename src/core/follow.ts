/**
 * `follow`: each card's exact neighbours over the requested edge types at a time, heaviest first as
 * the edge store returns them, at most `limit` per card and type, each with the version of the
 * neighbour visible then (null: none visible). One edge read per requested type, one visibility read.
 */
import type { ChunkStore, VersionReader } from "./ports";
import type { EdgeType } from "./types";

/** One edge type to follow from every card. */
export interface FollowSpec {
  type: EdgeType;
  /** out: card -> neighbour; in: neighbour -> card. */
  direction: "out" | "in";
  /** Neighbours per card. */
  limit: number;
}

export interface FollowedEdge {
  type: string;
  direction: "out" | "in";
  chunk: string;
  version: number | null;
  weight: number;
}

/** What following reads: edges at a time, and the versions visible then. */
export interface GraphReads {
  edges: Pick<ChunkStore, "edgesAt">;
  versions: Pick<VersionReader, "visibleAt">;
}

const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/** The cards with `follow` attached (the cards themselves when nothing is to be followed). */
export async function withFollow<C extends { artifact_id: string }>(
  reads: GraphReads,
  archive: string,
  cards: C[],
  follow: readonly FollowSpec[] | undefined,
  t: number,
): Promise<Array<C & { follow?: FollowedEdge[] }>> {
  if (!follow?.length || cards.length === 0) return cards;
  const ids = cards.map((c) => c.artifact_id);
  const lists = new Map<string, Array<Omit<FollowedEdge, "version">>>();
  for (const f of follow) {
    const count = new Map<string, number>();
    for (const e of await reads.edges.edgesAt(archive, ids, f.type, f.direction, t)) {
      const n = count.get(e.from) ?? 0;
      if (n >= f.limit) continue;
      count.set(e.from, n + 1);
      const l = lists.get(e.from) ?? [];
      l.push({ type: f.type, direction: f.direction, chunk: e.to, weight: round4(e.weight) });
      lists.set(e.from, l);
    }
  }
  const targets = [...new Set([...lists.values()].flat().map((x) => x.chunk))];
  const visible = targets.length ? await reads.versions.visibleAt(archive, targets, t) : new Map();
  return cards.map((c) => ({
    ...c,
    follow: (lists.get(c.artifact_id) ?? []).map((x) => ({ ...x, version: visible.get(x.chunk)?.version ?? null })),
  }));
}
