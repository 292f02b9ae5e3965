/**
 * D1 adapter for the sources cron re-ingests: registration, run status and validators, and the scan
 * for due sources. Every query is scoped by archive id except that scan, which returns the archive id
 * with each row it dispatches.
 */
import { and, asc, eq, lte } from "drizzle-orm";
import type { SourceRecord, SourceStore } from "../../core/ports";
import type { Db } from "./queries";
import * as s from "./schema";

export class D1SourceStore implements SourceStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** false when the id is taken. */
  async createSource(row: SourceRecord): Promise<boolean> {
    const res = await this.#db.insert(s.sources).values(row).onConflictDoNothing().returning({ id: s.sources.id });
    return res.length > 0;
  }

  async getSource(archiveId: string, id: string): Promise<SourceRecord | null> {
    return (
      (await this.#db.query.sources.findFirst({
        where: and(eq(s.sources.archiveId, archiveId), eq(s.sources.id, id)),
      })) ?? null
    );
  }

  async listSources(archiveId: string): Promise<SourceRecord[]> {
    return this.#db.select().from(s.sources).where(eq(s.sources.archiveId, archiveId)).orderBy(asc(s.sources.id));
  }

  async updateSource(archiveId: string, id: string, patch: Partial<Omit<SourceRecord, "archiveId" | "id">>) {
    await this.#db
      .update(s.sources)
      .set(patch)
      .where(and(eq(s.sources.archiveId, archiveId), eq(s.sources.id, id)));
  }

  async deleteSource(archiveId: string, id: string): Promise<boolean> {
    const res = await this.#db
      .delete(s.sources)
      .where(and(eq(s.sources.archiveId, archiveId), eq(s.sources.id, id)))
      .returning({ id: s.sources.id });
    return res.length > 0;
  }

  /** Due, unpaused sources across archives, most overdue first (the index covers paused, next_run_at). */
  async dueSources(now: number, limit: number): Promise<SourceRecord[]> {
    return this.#db
      .select()
      .from(s.sources)
      .where(and(eq(s.sources.paused, 0), lte(s.sources.nextRunAt, now)))
      .orderBy(asc(s.sources.nextRunAt))
      .limit(limit);
  }

  /**
   * Claim a due source for one run: moves next_run_at forward only if it still holds the value the
   * scan saw, so two overlapping cron invocations never run the same source twice.
   */
  async claimSource(archiveId: string, id: string, seenNextRun: number, leaseUntil: number): Promise<boolean> {
    const res = await this.#db
      .update(s.sources)
      .set({ nextRunAt: leaseUntil })
      .where(and(eq(s.sources.archiveId, archiveId), eq(s.sources.id, id), eq(s.sources.nextRunAt, seenNextRun)))
      .returning({ id: s.sources.id });
    return res.length > 0;
  }
}
