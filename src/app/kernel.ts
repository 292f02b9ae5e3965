/**
 * The memory kernel inside the application layer: ingest, lifecycle and the query pipeline, each
 * composing the pure core with the ports it needs and returning a typed Result. Use cases
 * (src/app/index.ts) call it; it hands out no adapter.
 */

import { headText } from "../core/embed/space";
import { fail, ok, type Result } from "../core/errors";
import { planExtension, resolveExtension } from "../core/extract";
import type { Extraction, StoredExtraction } from "../core/extraction";
import { normAlias } from "../core/ids";
import { type ArtifactInput, archivePrefix, planIngest, prepareBatch, sha256Hex, snapshotPrefix } from "../core/ingest";
import type { Pause } from "../core/pace";
import type {
  BlobStore,
  CapitalFor,
  ChunkStore,
  Clock,
  Distiller,
  Embedder,
  EmbeddingStore,
  EntityStore,
  EventSink,
  ExtractionStore,
  ExtractionTargetRecord,
  SessionLog,
  VectorIndex,
} from "../core/ports";
import {
  type ContextRequest,
  type ContextResponse,
  contextQuery,
  type ExpandRequest,
  expandChunks,
  type QueryDeps,
  type RouteRequest,
  type RouteResponse,
  routeQuery,
  sessionEventTokens,
  type VectorSpaceCheck,
} from "../core/query";
import type { PoolReads } from "../core/research/pool-reads";
import { simhash, toBase64 } from "../core/sketch";
import type { AccessChannel, AnchoredSpan } from "../core/types";
import { verifyAnchors } from "../core/verify";
import type { ExtractMessage, ExtractQueue } from "./lib/queue";
import { chunkList } from "./lib/records";
import type { VectorSpaceNote, VectorSpaces } from "./vector-space";

/**
 * The share of the way to opening a new shard (half the newest shard's budget) past which each
 * ingest warms the next shard: from there to the opening the newest shard takes as many heads
 * again, the time the next shard has to replay the change log in the background (real passages
 * opened a shard every ~95,000 at the default 64 MiB: probe-grow, docs/sharding.md).
 */
const WARM_AT = 0.5;

/** What Kernel.extend did: `extended`, or why the version took nothing. */
export type ExtendOutcome =
  | {
      status: "extended";
      stored: StoredExtraction;
      /** Entities of the extraction (its own and its relations' arguments), relations kept. */
      entities: number;
      relations: number;
      /** Entities the version's head is now posted under that it was not before. */
      added: number;
      /** Entities and triples left out by the per-artifact limits. */
      dropped: number;
      /** Entities the archive did not hold before. */
      newEntities: number;
    }
  | { status: "gone" | "superseded" | "deprecated" | "extracted" };

export interface ServiceDeps {
  chunks: ChunkStore;
  entities: EntityStore;
  sessions: SessionLog;
  blobs: BlobStore;
  vectors: VectorIndex;
  embedder: Embedder;
  distiller: Distiller;
  /** Input + output tokens one expand or context may spend on a model distiller. */
  modelTokensPerQuery?: number | undefined;
  capital: CapitalFor;
  clock: Clock;
  /** Outbound events: chunk.created / chunk.versioned per ingest call, chunk.deprecated. */
  events?: EventSink | undefined;
  /** Extraction at ingest: the versions it extends and their extraction cache. */
  extractions: ExtractionStore;
  /**
   * Where an ingest sends its created and updated versions for extraction (src/app/extract.ts);
   * absent unless EXTRACTOR names a provider: then an ingest sends nothing and does nothing more.
   */
  extract?: ExtractQueue | undefined;
  /**
   * Yields the thread between slices of an ingest, so requests that arrive meanwhile start. workerd
   * accepts a new request only when no in-process work is ready to run, and the local D1, R2 and
   * Durable Objects answer in-process: without a pause a query waits for the whole batch.
   */
  pause?: Pause | undefined;
  /**
   * The embedding space guard (src/app/vector-space.ts): archives record the space of their vectors,
   * and neither ingest nor queries mix two spaces. Absent: vectors are written and compared as they
   * come (in-process evaluation, where one embedder serves everything).
   */
  spaces?: VectorSpaces | undefined;
  /** The re-embed's reads and writes (required with `spaces`). */
  embedding?: EmbeddingStore | undefined;
  /** What a context's `ranking` reads of the route's candidate pool (absent: ranking is refused). */
  pool?: PoolReads | undefined;
}

/** What a re-embed of one page of heads did. */
export interface ReembedPageResult {
  /** Heads re-embedded (vector and sketch written in the configured space). */
  embedded: number;
  /** Chunks of the page that were gone by the time it ran, or forgotten while it ran. */
  removed: number;
}

/** Vectorize ids are limited to 64 bytes; longer chunk ids are hashed (and mapped back via D1). */
async function vectorIdFor(chunkId: string): Promise<string> {
  return new TextEncoder().encode(chunkId).length <= 64 ? chunkId : `sha:${(await sha256Hex(chunkId)).slice(0, 60)}`;
}

/**
 * The kernel: ingest, routing, context, expansion and verification over the ports (ServiceDeps).
 * One per isolate (src/wiring.ts); every use case reaches it as `kernel`.
 */
export class Kernel {
  constructor(private readonly d: ServiceDeps) {}

  capital(archiveId: string) {
    return this.d.capital(archiveId);
  }

  /** The distiller cards are made by (`extractive-v1`, or `provider:model`). */
  get distillerName(): string {
    return this.d.distiller.name;
  }

  private queryDeps(archiveId: string, vectorSpace?: VectorSpaceCheck): QueryDeps {
    const stub = this.capital(archiveId);
    const { chunks, sessions } = this.d;
    return {
      vectorSpace,
      embedder: this.d.embedder,
      vectors: this.d.vectors,
      router: stub,
      versions: chunks,
      blobs: this.d.blobs,
      distiller: this.d.distiller,
      modelTokensPerQuery: this.d.modelTokensPerQuery,
      sessions,
      clock: this.d.clock,
      chunkIdsForVectorIds: (a, ids) => chunks.chunkIdsForVectorIds(a, ids),
      pool: this.d.pool,
      edges: chunks,
      access: {
        // D1 is the durable log (tagged with the session, which seeds that session's recency); the
        // object keeps archive-wide access statistics for /neighbours and stats, not for ranking.
        async record(
          a: string,
          events: Array<{ chunk: string; channel: AccessChannel; at: number }>,
          session?: string,
        ) {
          if (events.length === 0) return;
          await sessions.record(a, events, session);
          await stub.recordAccess(events);
        },
        recentForSession: (a, session, asOf, limit) => sessions.recentForSession(a, session, asOf, limit),
        ...(sessions.openedBySession
          ? {
              openedBySession: (a: string, session: string, asOf: number, limit: number) =>
                sessions.openedBySession?.(a, session, asOf, limit) ?? Promise.resolve([]),
            }
          : {}),
      },
    };
  }

  /**
   * Store a batch of artifacts (one D1 transaction), then sync the capital chunk, emit the events and,
   * with extraction on, queue the created and updated versions for it (`noExtract`: chunks whose
   * extraction the caller applies itself, a dump's replay).
   */
  async ingest(archiveId: string, artifacts: ArtifactInput[], opts: { noExtract?: ReadonlySet<string> } = {}) {
    const prepared = prepareBatch(artifacts);
    if (!prepared.ok) return prepared;
    const now = this.d.clock.now();
    const headTexts = prepared.value.items.map((n) => headText(n.input.title, n.synopsis));
    const pause = this.d.pause ?? (async () => {});
    // Which space the archive's vectors are in decides whether this batch's vectors are written.
    const spaces = this.d.spaces;
    const space = spaces ? await spaces.forIngest(archiveId) : null;
    const writeVectors = space?.plan.writeVectors ?? true;
    const vecs = spaces ? await spaces.embed(headTexts) : await this.d.embedder.embed(headTexts);
    await pause();
    const sketchByText = new Map(headTexts.map((t, i) => [t, toBase64(simhash(vecs[i] as Float32Array))]));
    const vectorIds = new Map<string, string>();
    for (const id of prepared.value.chunkIds) vectorIds.set(id, await vectorIdFor(id));
    let bookmark = 0;
    for (let attempt = 0; ; attempt++) {
      const existing = await this.d.chunks.loadExisting(archiveId, prepared.value.chunkIds, prepared.value.entityIds);
      const plan = await planIngest(
        archiveId,
        prepared.value,
        existing,
        now,
        async (t) => sketchByText.get(t) ?? "",
        pause,
      );
      if (!plan.ok) return plan;
      const p = plan.value;
      const full = await this.overBudget(archiveId, p.results.filter((r) => r.status === "created").length);
      if (full) return full;
      if (p.versions.length > 0) {
        // Contents and vectors first, concurrently: the batch's contents are one pack object whose
        // key is the hash of its bytes, so a failed batch leaves at most one harmless orphan.
        const changed = new Set(p.versions.map((v) => v.chunkId));
        const [keys] = await Promise.all([
          this.d.blobs.putPack(archivePrefix(archiveId), new Map(p.versions.map((v) => [v.contentHash, v.content]))),
          this.d.vectors.upsert(
            archiveId,
            prepared.value.items.flatMap((n, i) =>
              writeVectors && changed.has(n.input.id)
                ? [{ id: vectorIds.get(n.input.id) as string, values: vecs[i] as Float32Array }]
                : [],
            ),
          ),
        ]);
        for (const v of p.versions) v.contentKey = keys.get(v.contentHash) as string;
        await pause();
        const res = await this.d.chunks.executePlan(archiveId, p, now, (c) => vectorIds.get(c) ?? c);
        if (!res.ok) {
          if (res.error.kind === "conflict" && attempt === 0) continue;
          return res;
        }
        await pause();
        bookmark = (await this.capital(archiveId).sync()).seq;
        if (spaces && space) await spaces.afterIngest(archiveId, space);
      } else bookmark = (await this.capital(archiveId).sync()).seq;
      const counts = { created: 0, updated: 0, unchanged: 0 };
      for (const r of p.results) counts[r.status]++;
      if (this.d.extract && p.versions.length > 0) await this.queueExtraction(archiveId, p.versions, opts.noExtract);
      if (this.d.events && counts.created + counts.updated > 0) {
        const pick = (status: string) =>
          p.results.filter((r) => r.status === status).map((r) => ({ id: r.id, version: r.version }));
        if (counts.created > 0) await this.d.events.emit(archiveId, "chunk.created", chunkList(pick("created")));
        if (counts.updated > 0) await this.d.events.emit(archiveId, "chunk.versioned", chunkList(pick("updated")));
      }
      const note = spaces && space ? spaces.note(archiveId, space.plan, space.state, "ingest") : null;
      return ok({
        results: p.results,
        counts,
        recorded_at: now,
        bookmark: String(bookmark),
        ...(note ? { vector_space: note } : {}),
      });
    }
  }

  /**
   * One extraction message per written version. A failure to queue is logged, not returned: the
   * versions are stored and keep their deterministic analysis; the ingest log shows no extraction.
   */
  private async queueExtraction(
    archiveId: string,
    versions: Array<{ chunkId: string; version: number }>,
    skip: ReadonlySet<string> | undefined,
  ): Promise<void> {
    const messages: ExtractMessage[] = versions
      .filter((v) => !skip?.has(v.chunkId))
      .map((v) => ({ kind: "extract", archive: archiveId, chunk: v.chunkId, version: v.version }));
    if (messages.length === 0) return;
    try {
      await this.d.extract?.send(messages);
    } catch (e) {
      console.error(
        `extract: ${messages.length} versions of ${archiveId} not queued: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }

  /**
   * Extend one version with an extraction (src/core/extract.ts): resolved against the version's
   * own entities and relations, applied only while it is its chunk's live head and not extracted
   * yet (never a new version), then the capital chunk synced. `status` says what happened.
   */
  async extend(
    archiveId: string,
    at: { chunk: string; version: number },
    x: Extraction,
    model: string,
    read?: ExtractionTargetRecord | null,
  ): Promise<ExtendOutcome> {
    const rec = read === undefined ? await this.d.extractions.target(archiveId, at.chunk, at.version) : read;
    if (!rec) return { status: "gone" };
    if (rec.state !== "ready") return { status: rec.state };
    const resolved = resolveExtension(rec.target, x);
    const existing = await this.d.chunks.loadExisting(archiveId, [], resolved.ids);
    const now = this.d.clock.now();
    const plan = planExtension(rec.target, resolved, model, existing, now);
    if (!(await this.d.extractions.extend(archiveId, plan, now))) {
      // Changed while this was planned: say how (a later version, a deprecation, a delete, a twin).
      const again = await this.d.extractions.target(archiveId, at.chunk, at.version);
      return { status: again ? (again.state === "ready" ? "extracted" : again.state) : "gone" };
    }
    if (plan.ops.length) await this.capital(archiveId).sync();
    return {
      status: "extended",
      stored: plan.stored,
      entities: resolved.ids.length,
      relations: resolved.extraction.relations.length,
      added: resolved.added.length,
      dropped: resolved.droppedEntities + resolved.droppedTriples,
      newEntities: plan.entityInserts.length,
    };
  }

  /**
   * The capital chunk's heap budget (params.heap_budget_bytes) per shard. The newest shard takes new
   * heads while it holds at most half its budget, counting what `created` new heads would add: the
   * archive's own bytes per head once it holds 1,000 heads, 300 B before (the measured ceiling of a
   * rebuilt head, test/core/heap.test.ts). The other half is room a shard keeps once closed: an
   * eighth of the budget for its write buffer, the rest for what it still gains from revisions of
   * its heads and links from new heads to them (closed shards grew by up to ~2x on the citation
   * graphs of `npm run bench:shards`, docs/sharding.md: at most the budget and its write buffer,
   * under the isolate's 128 MB for any budget up to the 96 MiB maximum). Past it a new shard opens before anything is written
   * and the new heads go there, so no object meets the isolate's memory limit. Only a batch too
   * large for an empty shard is refused. Past WARM_AT of the way the next shard warms first.
   */
  private async overBudget(archiveId: string, created: number) {
    if (created === 0) return null;
    const port = this.capital(archiveId);
    const cap = await port.capacity();
    const perHead = cap.heads >= 1000 ? cap.bytes / cap.heads : 300;
    const open = cap.budget / 2;
    if (cap.bytes + created * perHead <= open) {
      // Past half the way to opening: the next shard warms in the background meanwhile.
      if (cap.heads > 0 && cap.bytes + created * perHead > open * WARM_AT) await port.warmNext();
      return null;
    }
    const fresh = created * perHead;
    // A shard that holds no head yet takes any batch an empty shard can: its bytes are the fixed
    // part every shard has (the weight palette, scratch), not heads a new shard would relieve.
    if (fresh <= open) {
      if (cap.heads > 0) await port.openShard();
      return null;
    }
    return fail(
      "too_large",
      `archive ${archiveId}: ${created} new heads need ~${Math.round(fresh)} bytes of capital chunk, more than a new shard takes (half its heap budget of ${cap.budget})`,
      "params.heap_budget_bytes",
      "send the artifacts in smaller batches, or raise the archive's params.heap_budget_bytes (at most 100663296, 96 MiB)",
    );
  }

  async deprecate(archiveId: string, chunkId: string, by: string | null, at: number | undefined, reason: string) {
    const now = this.d.clock.now();
    const res = await this.d.chunks.deprecate(archiveId, chunkId, by, at ?? now, reason, now);
    if (res.ok) {
      await this.capital(archiveId).sync();
      await this.d.events?.emit(archiveId, "chunk.deprecated", {
        id: chunkId,
        version: res.value.version,
        at: new Date(at ?? now).toISOString(),
        by,
      });
    }
    return res;
  }

  async entityOp(
    archiveId: string,
    op:
      | { op: "alias"; entity: string; alias: string; at?: number | undefined }
      | { op: "rename"; entity: string; newName: string; at?: number | undefined }
      | { op: "merge"; entity: string; into: string; at?: number | undefined },
  ): Promise<Result<void>> {
    const now = this.d.clock.now();
    const at = op.at ?? now;
    const res = await this.d.entities.entityOp(
      archiveId,
      op.op === "alias"
        ? { op: "alias", entity: op.entity, alias: op.alias, at }
        : op.op === "rename"
          ? { op: "rename", entity: op.entity, newName: op.newName, at }
          : { op: "merge", entity: op.entity, into: op.into, at },
      normAlias,
      now,
    );
    if (res.ok) await this.capital(archiveId).sync();
    return res;
  }

  /** A route, and why the archive's vectors were left out when they were (null: they were used). */
  async route(req: RouteRequest): Promise<RouteResponse & { vectorSpace: VectorSpaceNote | null }> {
    const space = this.d.spaces?.forQuery(req.archiveId);
    const r = await routeQuery(this.queryDeps(req.archiveId, space?.check), req);
    return { ...r, vectorSpace: space ? await space.note() : null };
  }

  expand(req: ExpandRequest) {
    return expandChunks(this.queryDeps(req.archiveId), req);
  }

  /**
   * Logs accesses made outside route / expand / context / verify (an exact content read with a
   * session): the D1 access log under the session and the capital chunk's statistics, as they do.
   */
  logAccess(archiveId: string, events: Array<{ chunk: string; channel: AccessChannel; at: number }>, session?: string) {
    return this.queryDeps(archiveId).access.record(archiveId, events, session);
  }

  /** A context, and why the archive's vectors were left out when they were (null: they were used). */
  async context(req: ContextRequest): Promise<ContextResponse & { vectorSpace: VectorSpaceNote | null }> {
    const space = this.d.spaces?.forQuery(req.archiveId);
    const r = await contextQuery(this.queryDeps(req.archiveId, space?.check), req);
    return { ...r, vectorSpace: space ? await space.note() : null };
  }

  /** The embedding space guard, when the kernel has one. */
  get spaces(): VectorSpaces | null {
    return this.d.spaces ?? null;
  }

  /**
   * Re-embed one page of heads with the configured embedder (src/app/reembed.ts): each chunk's
   * latest version, its title and synopsis as ingest embeds them; its vector upserted and its new
   * sketch appended to the change log (only while that version is still the latest). Read again
   * after writing: a chunk forgotten meanwhile loses the vector just written (a forget never finds
   * it resurrected), and one revised meanwhile is embedded again from its new version.
   */
  async reembedHeads(archiveId: string, ids: string[]): Promise<ReembedPageResult> {
    const spaces = this.d.spaces;
    const store = this.d.embedding;
    if (!spaces || !store) throw new Error("re-embedding needs the embedding space guard (ServiceDeps.spaces)");
    let heads = await store.heads(archiveId, ids);
    const embedded = new Set<string>();
    for (let round = 0; heads.length > 0 && round < 3; round++) {
      const vecs = await spaces.embed(heads.map((h) => headText(h.title, h.synopsis)));
      await this.d.vectors.upsert(
        archiveId,
        heads.map((h, i) => ({ id: h.vectorId, values: vecs[i] as Float32Array })),
      );
      await store.writeSketches(
        archiveId,
        heads.map((h, i) => ({
          chunk: h.chunkId,
          version: h.version,
          sketch: toBase64(simhash(vecs[i] as Float32Array)),
        })),
        this.d.clock.now(),
      );
      const now = new Map(
        (
          await store.heads(
            archiveId,
            heads.map((h) => h.chunkId),
          )
        ).map((h) => [h.chunkId, h]),
      );
      const gone = heads.filter((h) => !now.has(h.chunkId));
      if (gone.length)
        await this.d.vectors.deleteByIds(
          archiveId,
          gone.map((h) => h.vectorId),
        );
      for (const h of heads) if (now.has(h.chunkId)) embedded.add(h.chunkId);
      // Revised while this page ran: its ingest may have written its vector before this one.
      heads = heads.flatMap((h) => {
        const cur = now.get(h.chunkId);
        return cur && cur.version !== h.version ? [cur] : [];
      });
    }
    await this.capital(archiveId).sync();
    return { embedded: embedded.size, removed: new Set(ids).size - embedded.size };
  }

  verify(archiveId: string, anchors: AnchoredSpan[], sessionId?: string | undefined) {
    return verifyAnchors(this.queryDeps(archiveId), archiveId, anchors, sessionId);
  }

  async appendSession(
    archiveId: string,
    sessionId: string,
    events: Array<{ role: string; text: string; at?: number | undefined }>,
  ) {
    const now = this.d.clock.now();
    const rows = events.map((e) => ({
      role: e.role,
      text: e.text,
      tokens: sessionEventTokens(e.role, e.text),
      at: e.at ?? now,
    }));
    await this.d.sessions.appendSession(archiveId, sessionId, rows);
    return ok({ appended: rows.length, tokens: rows.reduce((s, r) => s + r.tokens, 0) });
  }

  async neighbours(archiveId: string, chunk: string, asOf: number | undefined) {
    const res = await this.capital(archiveId).neighbours(chunk, asOf ?? this.d.clock.now());
    return res ? ok(res) : fail("not_found", `chunk ${chunk} is not in archive ${archiveId}`, "chunk");
  }

  async resolve(archiveId: string, mention: string, asOf: number | undefined) {
    return this.capital(archiveId).resolve(mention, asOf ?? this.d.clock.now());
  }

  /** A stored version's content by its blob key. */
  readonly contentOf = (contentKey: string): Promise<string | null> => this.d.blobs.get(contentKey);

  /**
   * After a hard delete in D1: drop the capital chunk's in-memory copy (the next call rebuilds it
   * from the scrubbed log), its snapshot blobs, the content blobs and vectors no longer referenced;
   * `everything` removes every blob of the archive. Returns how many blobs were removed.
   */
  async purge(
    archiveId: string,
    what: { contentKeys: string[]; vectorIds: string[]; everything: boolean },
  ): Promise<number> {
    await this.capital(archiveId).forget();
    let blobs = 0;
    if (what.everything) blobs = await this.d.blobs.deletePrefix(archivePrefix(archiveId));
    else {
      await this.d.blobs.delete(what.contentKeys);
      blobs = what.contentKeys.length;
      await this.d.blobs.deletePrefix(snapshotPrefix(archiveId));
    }
    // Vectorize deletes at most 1,000 ids per call.
    for (let i = 0; i < what.vectorIds.length; i += 1000)
      await this.d.vectors.deleteByIds(archiveId, what.vectorIds.slice(i, i + 1000));
    return blobs;
  }

  async stats(archiveId: string) {
    const [capital, counts] = await Promise.all([this.capital(archiveId).stats(), this.d.chunks.counts(archiveId)]);
    return { capital, storage: counts };
  }
}
