/**
 * Memory use cases: write and revise artifacts, deprecate them, name entities (alias, rename,
 * merge), and read their history, neighbours and resolution. Authorisation is the caller's job.
 */
import * as S from "../contract";
import { NEAR_DUPLICATE_THRESHOLD, overlap, wordSet } from "../core/dedupe";
import { fail, ok, type Result } from "../core/errors";
import { actorOf } from "./auth";
import { chunkDetail, entityDetail } from "./browse";
import type { AppDeps } from "./deps";
import { recordExplicitCreates } from "./intake/tombstones";
import { type In, isoOrNull, round4, timeOf } from "./lib/wire";

/** The kernel's ingest result with its transaction time as ISO 8601. */
async function ingested(res: ReturnType<AppDeps["kernel"]["ingest"]>) {
  const r = await res;
  return r.ok ? ok({ ...r.value, recorded_at: new Date(r.value.recorded_at).toISOString() }) : r;
}

/** POST /v1/archives/{a}/ingest */
function ingest(d: AppDeps, archive: string, artifacts: In<typeof S.ArtifactSchema>[]) {
  return ingested(d.kernel.ingest(archive, artifacts.map(S.toArtifactInput)));
}

/** Artifacts per request that `near_duplicates: "revise"` checks (one routed lookup each). */
const MAX_NEAR_DUPLICATE_CHECKS = 50;

/**
 * POST /ingest with `near_duplicates: "revise"`: each artifact whose id the archive does not hold is
 * matched against the 5 records of its kind (and all its boundaries) that its title and content
 * route to at now; the one with the highest word overlap (src/core/dedupe.ts) at or above the
 * threshold takes it as its next version. Retrying the same text is a no-op: it matches the record
 * it revised, whose content it now equals.
 */
async function ingestRevising(d: AppDeps, archive: string, b: In<typeof S.IngestBody>) {
  const kernel = d.kernel;
  const store = d.stores.chunks;
  const now = d.clock.now();
  if (b.artifacts.length > MAX_NEAR_DUPLICATE_CHECKS)
    return fail(
      "validation",
      `near_duplicates: revise checks at most ${MAX_NEAR_DUPLICATE_CHECKS} artifacts per request; got ${b.artifacts.length}`,
      "artifacts",
      `send at most ${MAX_NEAR_DUPLICATE_CHECKS} artifacts per request with near_duplicates: revise`,
    );
  const threshold = b.near_duplicate_threshold ?? NEAR_DUPLICATE_THRESHOLD;
  const matched = new Map<number, { id: string; overlap: number }>();
  const taken = new Set<string>();
  for (const [i, a] of b.artifacts.entries()) {
    if (await store.chunkRow(archive, a.id)) continue;
    const r = await kernel.route({
      archiveId: archive,
      query: `${a.title}\n${a.content.slice(0, 4000)}`,
      asOf: now,
      limit: 5,
      filter: { kinds: [a.kind], ...(a.boundaries?.length ? { boundariesAll: a.boundaries } : {}) },
    });
    const ids = r.route.selected.map((x) => x.chunk).filter((x) => !taken.has(x));
    const heads = ids.length ? await store.visibleAt(archive, ids, now) : new Map();
    const mine = wordSet(`${a.title}\n${a.content}`);
    let best: { id: string; overlap: number } | null = null;
    for (const id of ids) {
      const h = heads.get(id);
      if (!h) continue;
      const text = await kernel.contentOf(h.contentKey);
      if (text === null) continue;
      const o = overlap(mine, wordSet(`${h.title}\n${text}`));
      if (o >= threshold && (!best || o > best.overlap)) best = { id, overlap: o };
    }
    if (best) {
      matched.set(i, best);
      taken.add(best.id);
    }
  }
  const artifacts = b.artifacts.map((a, i) => ({ ...a, id: matched.get(i)?.id ?? a.id }));
  const res = await ingested(kernel.ingest(archive, artifacts.map(S.toArtifactInput)));
  if (!res.ok) return res;
  return ok({
    ...res.value,
    results: res.value.results.map((x, i) => {
      const m = matched.get(i);
      return m ? { ...x, requested_id: b.artifacts[i]?.id ?? x.id, overlap: round4(m.overlap) } : x;
    }),
  });
}

/** POST /v1/archives/{a}/revise: a new version of a chunk that must already exist. */
async function revise(d: AppDeps, archive: string, artifact: In<typeof S.ArtifactSchema>) {
  if (!(await d.stores.chunks.chunkRow(archive, artifact.id)))
    return fail("not_found", `chunk ${artifact.id} does not exist`, "id", "use /ingest to create it");
  return ingested(d.kernel.ingest(archive, [S.toArtifactInput(artifact)]));
}

/** POST /v1/archives/{a}/deprecate */
async function deprecate(d: AppDeps, archive: string, b: In<typeof S.DeprecateBody>) {
  const res = await d.kernel.deprecate(archive, b.id, b.by ?? null, S.toMs(b.at), b.reason ?? "");
  if (!res.ok) return res;
  return ok({ deprecated: b.id, by: b.by ?? null, version: res.value.version });
}

/** GET /v1/archives/{a}/history?chunk=… | ?entity=…: the same views as GET …/chunks/{id} and …/entities/{id}. */
async function history(
  d: AppDeps,
  archive: string,
  q: In<typeof S.HistoryQuery>,
): Promise<Result<In<typeof S.ChunkDetail> | In<typeof S.EntityDetail>>> {
  if (!q.chunk === !q.entity)
    return fail("validation", "give exactly one of chunk or entity", "chunk", "?chunk=<id> or ?entity=<id>");
  if (q.chunk) {
    const h = await d.stores.chunks.chunkHistory(archive, q.chunk);
    return h ? ok(chunkDetail(h)) : fail("not_found", `chunk ${q.chunk} not found`, "chunk");
  }
  const h = await d.stores.entities.entityHistory(archive, q.entity as string);
  return h ? ok(entityDetail(h)) : fail("not_found", `entity ${q.entity} not found`, "entity");
}

/** POST /v1/archives/{a}/entities/{alias,rename,merge}: from `at` (ISO; default now). */
async function entityOp(
  d: AppDeps,
  archive: string,
  op:
    | { op: "alias"; entity: string; alias: string; at?: string | undefined }
    | { op: "rename"; entity: string; newName: string; at?: string | undefined }
    | { op: "merge"; entity: string; into: string; at?: string | undefined },
): Promise<Result<{ ok: true }>> {
  const res = await d.kernel.entityOp(archive, { ...op, at: S.toMs(op.at) });
  return res.ok ? ok({ ok: true }) : res;
}

/** GET /v1/archives/{a}/neighbours?chunk=…&as_of=… */
async function neighbours(
  d: AppDeps,
  archive: string,
  q: In<typeof S.ChunkQuery>,
): Promise<Result<In<typeof S.Neighbours>>> {
  const res = await d.kernel.neighbours(archive, q.chunk, timeOf(d, q.as_of));
  if (!res.ok) return res;
  const h = res.value.head;
  return ok({
    head: h && {
      chunk: h.chunk,
      kind: h.kind,
      latest_version: h.latestVersion,
      first_valid_from: isoOrNull(h.firstValidFrom),
      end_at: isoOrNull(h.endAt),
      deprecated: h.deprecated,
      last_access: isoOrNull(h.lastAccess),
      access_count: h.accessCount,
    },
    neighbours: res.value.neighbours.map((n) => ({ ...n, weight: round4(n.weight) })),
  });
}

/** GET /v1/archives/{a}/resolve?mention=…&as_of=… */
async function resolve(d: AppDeps, archive: string, q: In<typeof S.ResolveQuery>) {
  const r = await d.kernel.resolve(archive, q.mention, timeOf(d, q.as_of));
  // An ambiguous name resolves to nothing: the caller picks among the candidates.
  if (r?.candidates) return { mention: q.mention, resolved: null, candidates: r.candidates };
  return { mention: q.mention, resolved: r ? { entity: r.entity, name: r.name, via: r.via } : null };
}

export function memoryUseCases(d: AppDeps) {
  return {
    ingest: (archive: string, artifacts: In<typeof S.ArtifactSchema>[]) => ingest(d, archive, artifacts),
    /**
     * POST /ingest with its options (near_duplicates: revise): an explicit write, so an id deleted
     * before is created again, and its tombstone records when and by whom.
     */
    ingestBatch: async (archive: string, b: In<typeof S.IngestBody>, authorization?: string | undefined) => {
      const res = await (b.near_duplicates === "revise"
        ? ingestRevising(d, archive, b)
        : ingest(d, archive, b.artifacts));
      if (res.ok) {
        const created = res.value.results.filter((r) => r.status === "created").map((r) => r.id);
        if (created.length)
          await recordExplicitCreates(d.intake.world, archive, created, await actorOf(d, authorization), d.clock.now());
      }
      return res;
    },
    revise: (archive: string, artifact: In<typeof S.ArtifactSchema>) => revise(d, archive, artifact),
    deprecate: (archive: string, b: In<typeof S.DeprecateBody>) => deprecate(d, archive, b),
    alias: (archive: string, b: In<typeof S.AliasBody>) =>
      entityOp(d, archive, { op: "alias", entity: b.entity, alias: b.alias, at: b.at }),
    rename: (archive: string, b: In<typeof S.RenameBody>) =>
      entityOp(d, archive, { op: "rename", entity: b.entity, newName: b.new_name, at: b.at }),
    merge: (archive: string, b: In<typeof S.MergeBody>) =>
      entityOp(d, archive, { op: "merge", entity: b.entity, into: b.into, at: b.at }),
    history: (archive: string, q: In<typeof S.HistoryQuery>) => history(d, archive, q),
    neighbours: (archive: string, q: In<typeof S.ChunkQuery>) => neighbours(d, archive, q),
    resolve: (archive: string, q: In<typeof S.ResolveQuery>) => resolve(d, archive, q),
  };
}
