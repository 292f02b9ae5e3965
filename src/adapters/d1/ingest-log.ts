/** D1 adapter for the ingest log: one row per webhook delivery, source run or file import. */
import { and, desc, eq, lt } from "drizzle-orm";
import type { IngestLogStore, LogRecord } from "../../core/ports";
import type { Db } from "./queries";
import * as s from "./schema";

export class D1IngestLogStore implements IngestLogStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async appendLog(row: Omit<LogRecord, "id">): Promise<void> {
    await this.#db.insert(s.ingestLog).values(row);
  }

  async listLog(archiveId: string, limit: number, before?: number): Promise<LogRecord[]> {
    return this.#db
      .select()
      .from(s.ingestLog)
      .where(
        before === undefined
          ? eq(s.ingestLog.archiveId, archiveId)
          : and(eq(s.ingestLog.archiveId, archiveId), lt(s.ingestLog.id, before)),
      )
      .orderBy(desc(s.ingestLog.id))
      .limit(limit);
  }
}
