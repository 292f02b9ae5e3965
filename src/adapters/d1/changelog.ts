/**
 * D1 adapter for what the capital chunk (the Durable Object) rebuilds from: the ordered change log,
 * a record of each checkpoint written through admin/snapshot (the checkpoint itself is in the object's
 * own storage; rows from before that point at R2 snapshots), and the access statistics it restores
 * on load.
 */
import { and, asc, desc, eq, gt, lte, sql } from "drizzle-orm";
import type { DerivedAt, DerivedEdge } from "../../core/capital/records";
import {
  type ChangeLog,
  type DerivedMark,
  readJsonColumn,
  type ShardRecord,
  type SnapshotRecord,
} from "../../core/ports";
import type { ChangeOp } from "../../core/types";
import { type Db, insertRows, runBatch, type Stmt, type Write } from "./queries";
import * as s from "./schema";

export class D1ChangeLog implements ChangeLog {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async readLog(archiveId: string, afterSeq: number, limit: number): Promise<Array<{ seq: number; op: ChangeOp }>> {
    const rows = await this.#db
      .select()
      .from(s.changeLog)
      .where(and(eq(s.changeLog.archiveId, archiveId), gt(s.changeLog.seq, afterSeq)))
      .orderBy(asc(s.changeLog.seq))
      .limit(limit);
    return rows.map((r) => ({ seq: r.seq, op: JSON.parse(r.op) as ChangeOp }));
  }

  async readLogBefore(
    archiveId: string,
    afterSeq: number,
    beforeSeq: number,
    limit: number,
  ): Promise<Array<{ seq: number; op: ChangeOp }>> {
    // beforeWindow in SQL: the heavy fields stay in D1 (a head's terms are most of a log row).
    const rows = await this.#db.all<{ seq: number; op: string }>(
      sql`SELECT seq, CASE json_extract(op, '$.op')
          WHEN 'head.upsert' THEN json_set(json_remove(op, '$.terms', '$.len', '$.owns'), '$.entities', json('[]'), '$.boundaries', json('[]'), '$.sketch', '')
          WHEN 'head.sketch' THEN json_set(op, '$.sketch', '')
          WHEN 'head.extend' THEN json_set(op, '$.entities', json('[]'))
          ELSE op END AS op
        FROM change_log WHERE archive_id = ${archiveId} AND seq > ${afterSeq} AND seq < ${beforeSeq}
        ORDER BY seq LIMIT ${limit}`,
    );
    return rows.map((r) => ({ seq: r.seq, op: JSON.parse(r.op) as ChangeOp }));
  }

  async readLogAt(archiveId: string, seqs: readonly number[]): Promise<Array<{ seq: number; op: ChangeOp }>> {
    if (seqs.length === 0) return [];
    const rows = await this.#db.all<{ seq: number; op: string }>(
      sql`SELECT seq, op FROM change_log WHERE archive_id = ${archiveId}
        AND seq IN (SELECT value FROM json_each(${JSON.stringify(seqs)})) ORDER BY seq`,
    );
    return rows.map((r) => ({ seq: r.seq, op: JSON.parse(r.op) as ChangeOp }));
  }

  async shards(archiveId: string): Promise<ShardRecord[]> {
    return this.#db
      .select({ shard: s.capitalShards.shard, firstSeq: s.capitalShards.firstSeq })
      .from(s.capitalShards)
      .where(eq(s.capitalShards.archiveId, archiveId))
      .orderBy(asc(s.capitalShards.shard));
  }

  async openShard(archiveId: string, shard: number, at: number): Promise<void> {
    // One statement: SQLite runs it alone, so every change committed after it has a larger seq.
    await this.#db.run(
      sql`INSERT OR IGNORE INTO capital_shards(archive_id, shard, first_seq, opened_at) SELECT ${archiveId}, ${shard}, COALESCE(MAX(seq), 0) + 1, ${at} FROM change_log`,
    );
  }

  async derivedMark(archiveId: string): Promise<DerivedMark> {
    const row = await this.#db.query.capitalDerivedMark.findFirst({
      where: eq(s.capitalDerivedMark.archiveId, archiveId),
    });
    return row ? { epoch: row.epoch, seq: row.seq } : { epoch: 0, seq: 0 };
  }

  async readDerived(archiveId: string, epoch: number, after: number, upto: number): Promise<DerivedAt[]> {
    const d = s.capitalDerived;
    const rows = await this.#db
      .select({ seq: d.seq, edges: d.edges })
      .from(d)
      .where(and(eq(d.archiveId, archiveId), eq(d.epoch, epoch), gt(d.seq, after), lte(d.seq, upto)))
      .orderBy(asc(d.seq));
    return rows.map((r) => ({ seq: r.seq, edges: readJsonColumn<DerivedEdge[]>(r.edges, []) }));
  }

  async writeDerived(archiveId: string, epoch: number, rows: DerivedAt[], upto: number): Promise<boolean> {
    const writes: Write[] = insertRows(
      this.#db,
      s.capitalDerived,
      rows.map((r) => ({ archiveId, seq: r.seq, epoch, edges: JSON.stringify(r.edges) })),
      // A names shard of an older epoch (loaded before a hard delete) never replaces a newer row.
      "ON CONFLICT(archive_id, seq) DO UPDATE SET epoch = excluded.epoch, edges = excluded.edges WHERE excluded.epoch >= capital_derived.epoch",
    );
    // The mark moves only forward, and only under the epoch the names shard loaded under.
    writes.push(
      this.#db.$client
        .prepare(
          "INSERT INTO capital_derived_mark(archive_id, epoch, seq) VALUES (?, ?, ?) ON CONFLICT(archive_id) DO UPDATE SET seq = MAX(seq, excluded.seq) WHERE epoch = excluded.epoch",
        )
        .bind(archiveId, epoch, upto),
    );
    await runBatch(this.#db, writes);
    return (await this.derivedMark(archiveId)).epoch === epoch;
  }

  async resetDerived(archiveId: string): Promise<void> {
    await runBatch(this.#db, resetDerived(this.#db, archiveId, false));
  }

  async latestSnapshot(archiveId: string): Promise<SnapshotRecord | null> {
    return (
      (await this.#db.query.capitalSnapshots.findFirst({
        where: eq(s.capitalSnapshots.archiveId, archiveId),
        orderBy: desc(s.capitalSnapshots.seq),
      })) ?? null
    );
  }

  async recordSnapshot(row: SnapshotRecord): Promise<void> {
    await this.#db.insert(s.capitalSnapshots).values(row).onConflictDoNothing();
  }

  async accessStats(
    archiveId: string,
  ): Promise<Array<{ chunk: string; last: number; count: number; channels: Record<string, number> }>> {
    const rows = await this.#db.all<{ chunk_id: string; channel: string; last: number; n: number }>(
      sql`SELECT chunk_id, channel, MAX(at) AS last, COUNT(*) AS n FROM access_events WHERE archive_id = ${archiveId} GROUP BY chunk_id, channel`,
    );
    const by = new Map<string, { chunk: string; last: number; count: number; channels: Record<string, number> }>();
    for (const r of rows) {
      const cur = by.get(r.chunk_id) ?? { chunk: r.chunk_id, last: 0, count: 0, channels: {} };
      cur.last = Math.max(cur.last, r.last);
      cur.count += r.n;
      cur.channels[r.channel] = r.n;
      by.set(r.chunk_id, cur);
    }
    return [...by.values()];
  }
}

/**
 * What invalidates the names shard's derived edges (a rewrite of the change log renumbers nodes; a
 * wiped names shard derives again): the rows go and the mark's epoch moves on, so a names shard
 * loaded before can no longer move the mark. `create`: write the mark at epoch 1 if the archive has
 * none yet (a change-log rewrite); otherwise only an existing mark moves (a deleted archive keeps
 * no row).
 */
export function resetDerived(db: Db, archiveId: string, create: boolean): Stmt[] {
  const m = s.capitalDerivedMark;
  const bump = { epoch: sql`${m.epoch} + 1`, seq: 0 };
  return [
    db.delete(s.capitalDerived).where(eq(s.capitalDerived.archiveId, archiveId)),
    create
      ? db.insert(m).values({ archiveId, epoch: 1, seq: 0 }).onConflictDoUpdate({ target: m.archiveId, set: bump })
      : db.update(m).set(bump).where(eq(m.archiveId, archiveId)),
  ];
}
