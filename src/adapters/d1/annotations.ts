/** D1 adapter for annotation events (the AnnotationStore port); `value` is stored as its JSON text. */
import { and, asc, eq, exists, inArray, isNull, lte } from "drizzle-orm";
import type { AnnotationRecord, AnnotationStore, EventOutcomeRecord } from "../../core/ports";
import { chunked, type Db, IN_CHUNK, rowsPerInsert, runBatch } from "./queries";
import * as s from "./schema";

export class D1AnnotationStore implements AnnotationStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async appendAnnotation(row: Omit<AnnotationRecord, "id">): Promise<{ row: AnnotationRecord; duplicate: boolean }> {
    if (row.eventId !== null) {
      const [prior] = await this.#db
        .select()
        .from(s.annotations)
        .where(and(eq(s.annotations.archiveId, row.archiveId), eq(s.annotations.eventId, row.eventId)));
      if (prior) return { row: prior, duplicate: true };
    }
    const [inserted] = await this.#db
      .insert(s.annotations)
      .values({ ...row, value: s.jsonNullAsText(row.value) })
      .onConflictDoNothing()
      .returning();
    if (inserted) return { row: inserted, duplicate: false };
    // Lost a race with the same event id: the stored one is the event.
    const [prior] = await this.#db
      .select()
      .from(s.annotations)
      .where(and(eq(s.annotations.archiveId, row.archiveId), eq(s.annotations.eventId, row.eventId ?? "")));
    if (!prior) throw new Error("annotation insert returned nothing");
    return { row: prior, duplicate: true };
  }

  async appendAnnotations(rows: Array<Omit<AnnotationRecord, "id"> & { eventId: null }>): Promise<number> {
    // 11 columns: 9 rows per statement (100 bound parameters); 50 statements (450 rows) per D1 batch.
    const stmts = chunked(rows, rowsPerInsert(11)).map((part) =>
      this.#db.insert(s.annotations).values(part.map((r) => ({ ...r, value: s.jsonNullAsText(r.value) }))),
    );
    for (const part of chunked(stmts, 50)) await runBatch(this.#db, part);
    return rows.length;
  }

  async annotationByEventId(archiveId: string, eventId: string): Promise<AnnotationRecord | null> {
    const [row] = await this.#db
      .select()
      .from(s.annotations)
      .where(and(eq(s.annotations.archiveId, archiveId), eq(s.annotations.eventId, eventId)));
    return row ?? null;
  }

  async claimEvent(
    archiveId: string,
    eventId: string,
    request: string,
    claim: string,
    now: number,
  ): Promise<EventOutcomeRecord | null> {
    const o = s.eventOutcomes;
    // A claim dropped between the insert and the read: insert again (a few times at most).
    for (let i = 0; i < 3; i++) {
      const [mine] = await this.#db
        .insert(o)
        .values({ archiveId, eventId, request, claim, claimedAt: now })
        .onConflictDoNothing()
        .returning({ claim: o.claim });
      if (mine) return null;
      const [held] = await this.#db
        .select({ request: o.request, claim: o.claim, claimedAt: o.claimedAt, body: o.body })
        .from(o)
        .where(this.#outcome(archiveId, eventId));
      if (held) return held;
    }
    throw new Error(`event id ${eventId}: claimed and dropped three times over`);
  }

  async takeOverEvent(archiveId: string, eventId: string, stale: string, claim: string, now: number): Promise<boolean> {
    const o = s.eventOutcomes;
    const taken = await this.#db
      .update(o)
      .set({ claim, claimedAt: now })
      .where(and(this.#outcome(archiveId, eventId), eq(o.claim, stale), isNull(o.body)))
      .returning({ claim: o.claim });
    return taken.length > 0;
  }

  async answerEvent(
    archiveId: string,
    eventId: string,
    claim: string,
    annotationId: number,
    body: string,
  ): Promise<boolean> {
    const o = s.eventOutcomes;
    const a = s.annotations;
    const stored = await this.#db
      .update(o)
      .set({ body, annotationId })
      .where(
        and(
          this.#outcome(archiveId, eventId),
          eq(o.claim, claim),
          isNull(o.body),
          exists(
            this.#db
              .select({ id: a.id })
              .from(a)
              .where(and(eq(a.id, annotationId), eq(a.archiveId, archiveId))),
          ),
        ),
      )
      .returning({ claim: o.claim });
    if (stored.length > 0) return true;
    await this.releaseEvent(archiveId, eventId, claim);
    return false;
  }

  async releaseEvent(archiveId: string, eventId: string, claim: string): Promise<void> {
    const o = s.eventOutcomes;
    await this.#db.delete(o).where(and(this.#outcome(archiveId, eventId), eq(o.claim, claim), isNull(o.body)));
  }

  #outcome(archiveId: string, eventId: string) {
    return and(eq(s.eventOutcomes.archiveId, archiveId), eq(s.eventOutcomes.eventId, eventId));
  }

  async annotationsOf(
    archiveId: string,
    chunkIds: string[],
    key: string | undefined,
    asOf: number,
  ): Promise<AnnotationRecord[]> {
    const out: AnnotationRecord[] = [];
    for (const ids of chunked([...new Set(chunkIds)], IN_CHUNK)) {
      out.push(
        ...(await this.#db
          .select()
          .from(s.annotations)
          .where(
            and(
              eq(s.annotations.archiveId, archiveId),
              inArray(s.annotations.chunkId, ids),
              key === undefined ? undefined : eq(s.annotations.key, key),
              lte(s.annotations.at, asOf),
            ),
          )
          .orderBy(asc(s.annotations.at), asc(s.annotations.id))),
      );
    }
    return out;
  }
}
