/** D1 adapter for stored retrieval-metrics runs (the RetrievalRunStore port). */
import { and, desc, eq, lt, or } from "drizzle-orm";
import type { RetrievalRunRecord, RetrievalRunStore } from "../../core/ports";
import type { Db } from "./queries";
import * as s from "./schema";

export class D1RetrievalRunStore implements RetrievalRunStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async insertRun(row: RetrievalRunRecord): Promise<void> {
    await this.#db.insert(s.retrievalRuns).values(row);
  }

  async getRun(archiveId: string, id: string): Promise<RetrievalRunRecord | null> {
    const [row] = await this.#db
      .select()
      .from(s.retrievalRuns)
      .where(and(eq(s.retrievalRuns.archiveId, archiveId), eq(s.retrievalRuns.id, id)));
    return row ?? null;
  }

  async listRuns(
    archiveId: string,
    before: { createdAt: number; id: string } | null,
    limit: number,
  ): Promise<Array<Omit<RetrievalRunRecord, "perQuery">>> {
    const r = s.retrievalRuns;
    return this.#db
      .select({
        archiveId: r.archiveId,
        id: r.id,
        name: r.name,
        createdAt: r.createdAt,
        asOf: r.asOf,
        ks: r.ks,
        queries: r.queries,
        aggregate: r.aggregate,
        actor: r.actor,
      })
      .from(r)
      .where(
        and(
          eq(r.archiveId, archiveId),
          before
            ? or(lt(r.createdAt, before.createdAt), and(eq(r.createdAt, before.createdAt), lt(r.id, before.id)))
            : undefined,
        ),
      )
      .orderBy(desc(r.createdAt), desc(r.id))
      .limit(limit);
  }
}
