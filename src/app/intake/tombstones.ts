/**
 * The one tombstone rule of every intake path (file imports of every format, dump replays, webhook
 * deliveries and their replays, source runs, explicit ingests): a hard-deleted id stays deleted, and
 * so does every edge to it, unless the request explicitly asks to create it again. Then it is
 * created and its tombstone records when and by whom (the deletions audit shows `recreated`).
 *
 * An id is deleted when it has a tombstone that nothing has re-created and no chunk of that id exists
 * (an explicit write that does not record re-creations, such as a hub gathered again, makes it live).
 */
import type { WorldLookup } from "../../core/ports";

/** An explicit request to create deleted ids again (POST /ingest always is one; imports with recreate_deleted=true). */
export interface Recreate {
  /** Who asked (actorOf: `key:<id>`, `admin`). */
  actor: string;
}

type Lookup = Pick<WorldLookup, "tombstoned" | "chunksByIds" | "recreated">;

export interface TombstoneGate {
  /** Deleted ids among those asked about, with the time of the delete. */
  readonly gone: ReadonlyMap<string, number>;
  /** The write must not create this chunk id (deleted, and the request does not re-create it). */
  skips(id: string): boolean;
  /** The skipped-list entry for a skipped id. */
  skipped(id: string): { ref: string; reason: string };
  /** An edge to this target is dropped: its target is deleted and this write does not create it again. */
  dropsEdge(target: string, recreated: ReadonlySet<string>): boolean;
  /** Record, on their tombstones, that these ids (the ones the write created) exist again. */
  recordCreated(createdIds: Iterable<string>, at: number): Promise<string[]>;
}

const NONE: TombstoneGate = {
  gone: new Map(),
  skips: () => false,
  skipped: (id) => ({ ref: id, reason: "" }),
  dropsEdge: () => false,
  recordCreated: async () => [],
};

/**
 * The verdict for a write into `archiveId` that would create `chunkIds` and name `edgeTargets`.
 * Without `recreate`, deleted ids are skipped and edges to them dropped; with it, the write creates
 * them, and `recordCreated` marks their tombstones.
 */
export async function tombstoneGate(
  world: Lookup,
  archiveId: string,
  chunkIds: Iterable<string>,
  edgeTargets: Iterable<string> = [],
  recreate?: Recreate,
): Promise<TombstoneGate> {
  const ids = [...new Set([...chunkIds, ...edgeTargets])];
  if (ids.length === 0) return NONE;
  const gone = await world.tombstoned(archiveId, ids);
  if (gone.size === 0) return NONE;
  for (const live of (await world.chunksByIds(archiveId, [...gone.keys()])).keys()) gone.delete(live);
  if (gone.size === 0) return NONE;
  return {
    gone,
    skips: (id) => !recreate && gone.has(id),
    skipped: (id) => ({ ref: id, reason: skipReason(gone.get(id)) }),
    dropsEdge: (target, recreated) => gone.has(target) && !(recreate && recreated.has(target)),
    async recordCreated(createdIds, at) {
      if (!recreate) return [];
      const back = [...new Set(createdIds)].filter((id) => gone.has(id));
      if (back.length) await world.recreated(archiveId, back, recreate.actor, at);
      return back;
    },
  };
}

/**
 * An explicit ingest (POST /ingest, MCP remember): the request itself asks for every id it carries,
 * so each created id that was deleted has its re-creation recorded.
 */
export async function recordExplicitCreates(
  world: Lookup,
  archiveId: string,
  createdIds: string[],
  actor: string,
  at: number,
): Promise<void> {
  // The ids exist by now (so no gate sees them as gone): the store marks only those with a tombstone.
  if (createdIds.length) await world.recreated(archiveId, createdIds, actor, at);
}

function skipReason(at: number | undefined): string {
  const when = at === undefined ? "" : ` at ${new Date(at).toISOString()}`;
  return `hard-deleted from this archive${when}; automated writes and imports do not bring it back (an explicit POST /ingest does, or an import with recreate_deleted=true)`;
}
