/**
 * D1 adapter for agent sessions (short-term conversation events) and the access log (which chunk was
 * routed to, expanded or verified, when, and in which session), the source of recency.
 */
import { and, desc, eq, lte, sql } from "drizzle-orm";
import type { AccessCountQuery, AccessCountRow, SessionEvent, SessionLog } from "../../core/ports";
import type { AccessChannel } from "../../core/types";
import { chunked, type Db, rowsPerInsert, runBatch } from "./queries";
import * as s from "./schema";

export class D1SessionLog implements SessionLog {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async appendSession(
    archiveId: string,
    sessionId: string,
    events: Array<{ role: string; text: string; tokens: number; at: number }>,
  ): Promise<void> {
    const rows = events.map((e) => ({ archiveId, sessionId, ...e }));
    await runBatch(
      this.#db,
      chunked(rows, rowsPerInsert(6)).map((r) => this.#db.insert(s.sessionEvents).values(r)),
    );
  }

  async recent(archiveId: string, sessionId: string, asOf: number, limit: number): Promise<SessionEvent[]> {
    const rows = await this.#db
      .select()
      .from(s.sessionEvents)
      .where(
        and(
          eq(s.sessionEvents.archiveId, archiveId),
          eq(s.sessionEvents.sessionId, sessionId),
          lte(s.sessionEvents.at, asOf),
        ),
      )
      .orderBy(desc(s.sessionEvents.at), desc(s.sessionEvents.id))
      .limit(limit);
    return rows.map((r) => ({ role: r.role, text: r.text, tokens: r.tokens, at: r.at }));
  }

  async record(
    archiveId: string,
    events: Array<{ chunk: string; channel: AccessChannel; at: number }>,
    sessionId?: string | undefined,
  ): Promise<void> {
    const session = sessionId ?? null;
    const rows = events.map((e) => ({ archiveId, chunkId: e.chunk, channel: e.channel, at: e.at, sessionId: session }));
    await runBatch(
      this.#db,
      chunked(rows, rowsPerInsert(5)).map((r) => this.#db.insert(s.accessEvents).values(r)),
    );
  }

  /** Reads the index access_session (archive_id, session_id, at). */
  async recentForSession(
    archiveId: string,
    sessionId: string,
    asOf: number,
    limit = 64,
  ): Promise<Array<{ chunk: string; at: number }>> {
    const rows = await this.#db.all<{ chunk_id: string; at: number }>(
      sql`SELECT chunk_id, MAX(at) AS at FROM access_events
          WHERE archive_id = ${archiveId} AND session_id = ${sessionId} AND at <= ${asOf}
          GROUP BY chunk_id ORDER BY at DESC, chunk_id ASC LIMIT ${limit}`,
    );
    return rows.map((r) => ({ chunk: r.chunk_id, at: r.at }));
  }

  /** Reads the index access_session (archive_id, session_id, at): the session's accesses up to asOf. */
  async openedBySession(
    archiveId: string,
    sessionId: string,
    asOf: number,
    limit: number,
  ): Promise<Array<{ chunk: string; at: number }>> {
    const rows = await this.#db.all<{ chunk_id: string; at: number }>(
      sql`SELECT chunk_id, MAX(at) AS at FROM access_events
          WHERE archive_id = ${archiveId} AND session_id = ${sessionId} AND at <= ${asOf}
            AND channel IN ('expansion', 'verification')
          GROUP BY chunk_id ORDER BY at DESC, chunk_id ASC LIMIT ${limit}`,
    );
    return rows.map((r) => ({ chunk: r.chunk_id, at: r.at }));
  }

  /**
   * Three statements over the matching rows (indexes access_session and access_chunk narrow them):
   * the page of groups, the totals per channel and the number of groups.
   */
  async accessCounts(
    archiveId: string,
    q: AccessCountQuery,
  ): Promise<{ totals: Omit<AccessCountRow, "key" | "last">; groups: number; rows: AccessCountRow[] }> {
    const key = q.by === "session" ? sql.raw("session_id") : sql.raw("chunk_id");
    const where = sql.join(
      [
        sql`archive_id = ${archiveId}`,
        ...(q.sessionId !== undefined ? [sql`session_id = ${q.sessionId}`] : []),
        ...(q.chunkId !== undefined ? [sql`chunk_id = ${q.chunkId}`] : []),
        ...(q.since !== undefined ? [sql`at >= ${q.since}`] : []),
        ...(q.until !== undefined ? [sql`at <= ${q.until}`] : []),
      ],
      sql` AND `,
    );
    const perChannel = sql`SUM(channel = 'routing') AS routing, SUM(channel = 'expansion') AS expansion,
      SUM(channel = 'verification') AS verification, COUNT(*) AS total`;
    type Row = {
      k: string | null;
      routing: number;
      expansion: number;
      verification: number;
      total: number;
      last: number;
    };
    const [rows, totals, groups] = await Promise.all([
      this.#db.all<Row>(
        sql`SELECT ${key} AS k, ${perChannel}, MAX(at) AS last FROM access_events WHERE ${where}
            GROUP BY ${key} ORDER BY total DESC, k ASC LIMIT ${q.limit} OFFSET ${q.offset}`,
      ),
      this.#db.all<Omit<Row, "k" | "last">>(sql`SELECT ${perChannel} FROM access_events WHERE ${where}`),
      this.#db.all<{ n: number }>(
        sql`SELECT COUNT(DISTINCT ${key}) + MAX(${key} IS NULL) AS n FROM access_events WHERE ${where}`,
      ),
    ]);
    const t = totals[0];
    return {
      totals: {
        routing: t?.routing ?? 0,
        expansion: t?.expansion ?? 0,
        verification: t?.verification ?? 0,
        total: t?.total ?? 0,
      },
      groups: groups[0]?.n ?? 0,
      rows: rows.map((r) => ({
        key: r.k,
        routing: r.routing,
        expansion: r.expansion,
        verification: r.verification,
        total: r.total,
        last: r.last,
      })),
    };
  }
}
