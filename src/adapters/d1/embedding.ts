/**
 * D1 adapter for embedding spaces: the space each archive's vectors are in (columns of `archives`),
 * the re-embed jobs (`reembed_jobs`, at most one running per archive by a partial unique index) and
 * what a re-embed reads and writes (chunk heads in id order; `head.sketch` changes, each appended
 * only while its version is the chunk's latest).
 */
import { and, asc, desc, eq, gt, inArray, lt, sql } from "drizzle-orm";
import { REEMBED_ERRORS_KEPT } from "../../core/embed/space";
import type { EmbeddingStore, HeadRow, ReembedJobRecord } from "../../core/ports";
import type { ArchiveSpaceState, EmbeddingSpace } from "../../core/types";
import { chunked, type Db, IN_CHUNK, runBatch, type Write } from "./queries";
import * as s from "./schema";

type JobRow = typeof s.reembedJobs.$inferSelect;

function toJob(r: JobRow): ReembedJobRecord {
  return {
    id: r.id,
    archiveId: r.archiveId,
    status: r.status === "done" || r.status === "failed" ? r.status : "running",
    target: { model: r.model, dims: r.dims },
    from: r.fromModel !== null && r.fromDims !== null ? { model: r.fromModel, dims: r.fromDims } : null,
    total: r.total,
    done: r.done,
    removed: r.removed,
    pages: r.pages,
    cursor: r.cursor,
    attempts: r.attempts,
    targetStale: r.targetStale !== 0,
    errors: r.errors,
    startedAt: r.startedAt,
    updatedAt: r.updatedAt,
    finishedAt: r.finishedAt,
  };
}

/** head.sketch rows per conditional insert: 3 bound values a row, with the archive id and the time. */
const SKETCHES_PER_INSERT = 30;

export class D1EmbeddingStore implements EmbeddingStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async state(archiveId: string): Promise<ArchiveSpaceState | null> {
    const a = s.archives;
    const j = s.reembedJobs;
    const rows = await this.#db
      .select({
        model: a.embedModel,
        dims: a.embedDims,
        staleAt: a.embedStaleAt,
        job: j.id,
        jobModel: j.model,
        jobDims: j.dims,
        jobStarted: j.startedAt,
      })
      .from(a)
      .leftJoin(j, and(eq(j.archiveId, a.id), eq(j.status, "running")))
      .where(eq(a.id, archiveId))
      .limit(1);
    const r = rows[0];
    if (!r) return null;
    return {
      space: r.model !== null && r.dims !== null ? { model: r.model, dims: r.dims } : null,
      staleSince: r.staleAt,
      job:
        r.job !== null && r.jobModel !== null && r.jobDims !== null && r.jobStarted !== null
          ? { id: r.job, target: { model: r.jobModel, dims: r.jobDims }, startedAt: r.jobStarted }
          : null,
    };
  }

  async adopt(archiveId: string, space: EmbeddingSpace): Promise<void> {
    await this.#db
      .update(s.archives)
      .set({ embedModel: space.model, embedDims: space.dims })
      .where(and(eq(s.archives.id, archiveId), sql`${s.archives.embedModel} IS NULL`));
  }

  async markStale(archiveId: string, at: number): Promise<void> {
    await runBatch(this.#db, [
      this.#db
        .update(s.archives)
        .set({ embedStaleAt: sql`COALESCE(${s.archives.embedStaleAt}, ${at})` })
        .where(eq(s.archives.id, archiveId)),
      this.#db
        .update(s.reembedJobs)
        .set({ targetStale: 1 })
        .where(and(eq(s.reembedJobs.archiveId, archiveId), eq(s.reembedJobs.status, "running"))),
    ]);
  }

  async startJob(
    archiveId: string,
    target: EmbeddingSpace,
    from: EmbeddingSpace | null,
    total: number,
    at: number,
  ): Promise<ReembedJobRecord | null> {
    // The job and the stale mark together; the partial unique index refuses a second running job.
    const c = this.#db.$client;
    const insert = c
      .prepare(
        `INSERT INTO reembed_jobs (archive_id, status, model, dims, from_model, from_dims, total, started_at, updated_at)
         SELECT ?, 'running', ?, ?, ?, ?, ?, ?, ?
         WHERE NOT EXISTS (SELECT 1 FROM reembed_jobs WHERE archive_id = ? AND status = 'running')
           AND EXISTS (SELECT 1 FROM archives WHERE id = ?)`,
      )
      .bind(
        archiveId,
        target.model,
        target.dims,
        from?.model ?? null,
        from?.dims ?? null,
        total,
        at,
        at,
        archiveId,
        archiveId,
      );
    // While a job runs the index holds two spaces: stale until it finishes (an earlier mark keeps its time).
    const mark = c
      .prepare(
        `UPDATE archives SET embed_stale_at = COALESCE(embed_stale_at, ?)
         WHERE id = ? AND EXISTS (SELECT 1 FROM reembed_jobs WHERE archive_id = ? AND status = 'running')`,
      )
      .bind(at, archiveId, archiveId);
    let inserted = 0;
    try {
      const [res] = await c.batch([insert, mark]);
      inserted = res?.meta.changes ?? 0;
    } catch (e) {
      // Two starts at once: the unique index took the other one.
      if (/UNIQUE/i.test(String(e))) return null;
      throw e;
    }
    if (inserted === 0) return null;
    const row = await this.#db.query.reembedJobs.findFirst({
      where: and(eq(s.reembedJobs.archiveId, archiveId), eq(s.reembedJobs.status, "running")),
    });
    return row ? toJob(row) : null;
  }

  async job(id: number): Promise<ReembedJobRecord | null> {
    const row = await this.#db.query.reembedJobs.findFirst({ where: eq(s.reembedJobs.id, id) });
    return row ? toJob(row) : null;
  }

  async latestJob(archiveId: string): Promise<ReembedJobRecord | null> {
    const row = await this.#db.query.reembedJobs.findFirst({
      where: eq(s.reembedJobs.archiveId, archiveId),
      orderBy: desc(s.reembedJobs.id),
    });
    return row ? toJob(row) : null;
  }

  async stalledJobs(before: number, limit: number): Promise<ReembedJobRecord[]> {
    const rows = await this.#db
      .select()
      .from(s.reembedJobs)
      .where(and(eq(s.reembedJobs.status, "running"), lt(s.reembedJobs.updatedAt, before)))
      .orderBy(asc(s.reembedJobs.updatedAt))
      .limit(limit);
    return rows.map(toJob);
  }

  async advance(
    id: number,
    after: string | null,
    cursor: string,
    counts: { done: number; removed: number },
    at: number,
  ): Promise<boolean> {
    const j = s.reembedJobs;
    const res = await this.#db
      .update(j)
      .set({
        cursor,
        done: sql`${j.done} + ${counts.done}`,
        removed: sql`${j.removed} + ${counts.removed}`,
        pages: sql`${j.pages} + 1`,
        attempts: 0,
        updatedAt: at,
      })
      .where(
        and(eq(j.id, id), eq(j.status, "running"), after === null ? sql`${j.cursor} IS NULL` : eq(j.cursor, after)),
      )
      .returning({ id: j.id });
    return res.length > 0;
  }

  async recordError(id: number, message: string, at: number, fail: boolean): Promise<void> {
    const row = await this.job(id);
    if (row?.status !== "running") return;
    const errors = [...row.errors, { at, message: message.slice(0, 500) }].slice(-REEMBED_ERRORS_KEPT);
    await this.#db
      .update(s.reembedJobs)
      .set({
        errors,
        attempts: row.attempts + 1,
        updatedAt: at,
        ...(fail ? { status: "failed", finishedAt: at } : {}),
      })
      .where(and(eq(s.reembedJobs.id, id), eq(s.reembedJobs.status, "running")));
  }

  async touch(id: number, at: number): Promise<void> {
    await this.#db.update(s.reembedJobs).set({ updatedAt: at }).where(eq(s.reembedJobs.id, id));
  }

  async finish(id: number, at: number): Promise<void> {
    // One batch: the archive takes the job's space (stale only if a head missed it), then the job ends.
    const c = this.#db.$client;
    const job = "(SELECT %s FROM reembed_jobs WHERE id = ? AND status = 'running')";
    await c.batch([
      c
        .prepare(
          `UPDATE archives SET embed_model = ${job.replace("%s", "model")}, embed_dims = ${job.replace("%s", "dims")},
             embed_stale_at = CASE WHEN ${job.replace("%s", "target_stale")} = 1 THEN ? ELSE NULL END
           WHERE id = ${job.replace("%s", "archive_id")}`,
        )
        .bind(id, id, id, at, id),
      c
        .prepare(
          `UPDATE reembed_jobs SET status = 'done', finished_at = ?, updated_at = ?, total = MAX(total, done)
           WHERE id = ? AND status = 'running'`,
        )
        .bind(at, at, id),
    ]);
  }

  async countHeads(archiveId: string): Promise<number> {
    const [r] = await this.#db
      .select({ n: sql<number>`COUNT(*)` })
      .from(s.chunks)
      .where(eq(s.chunks.archiveId, archiveId));
    return r?.n ?? 0;
  }

  async headIds(archiveId: string, after: string | null, limit: number): Promise<string[]> {
    const rows = await this.#db
      .select({ id: s.chunks.chunkId })
      .from(s.chunks)
      .where(and(eq(s.chunks.archiveId, archiveId), after === null ? undefined : gt(s.chunks.chunkId, after)))
      .orderBy(asc(s.chunks.chunkId))
      .limit(limit);
    return rows.map((r) => r.id);
  }

  async heads(archiveId: string, ids: string[]): Promise<HeadRow[]> {
    const out: HeadRow[] = [];
    const c = s.chunks;
    const v = s.chunkVersions;
    for (const part of chunked([...new Set(ids)], IN_CHUNK)) {
      const rows = await this.#db
        .select({
          chunkId: c.chunkId,
          vectorId: c.vectorId,
          version: c.latestVersion,
          title: v.title,
          synopsis: v.synopsis,
        })
        .from(c)
        .innerJoin(v, and(eq(v.archiveId, c.archiveId), eq(v.chunkId, c.chunkId), eq(v.version, c.latestVersion)))
        .where(and(eq(c.archiveId, archiveId), inArray(c.chunkId, part)));
      out.push(...rows);
    }
    return out;
  }

  async writeSketches(
    archiveId: string,
    sketches: Array<{ chunk: string; version: number; sketch: string }>,
    at: number,
  ): Promise<void> {
    const stmts: Write[] = [];
    for (const part of chunked(sketches, SKETCHES_PER_INSERT)) {
      const values = part.map(() => "(?, ?, ?)").join(", ");
      const params = part.flatMap((x) => [
        JSON.stringify({ op: "head.sketch", chunk: x.chunk, version: x.version, sketch: x.sketch }),
        x.chunk,
        x.version,
      ]);
      stmts.push(
        this.#db.$client
          .prepare(
            `INSERT INTO change_log (archive_id, op, at)
             SELECT ?, v.column1, ? FROM (VALUES ${values}) AS v
             WHERE EXISTS (SELECT 1 FROM chunks AS c
                           WHERE c.archive_id = ? AND c.chunk_id = v.column2 AND c.latest_version = v.column3)`,
          )
          .bind(archiveId, at, ...params, archiveId),
      );
    }
    await runBatch(this.#db, stmts);
  }
}
