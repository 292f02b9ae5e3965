/**
 * D1 adapter for what the capital chunk (the Durable Object) rebuilds from: the ordered change log,
 * a record of each checkpoint written through admin/snapshot (the checkpoint itself is in the object's
 * own storage; rows from before that point at R2 snapshots), and the access statistics it restores
 * on load.
 */
import { and, asc, desc, eq, gt, sql } from "drizzle-orm";
import type { ChangeLog, ShardRecord, SnapshotRecord } from "../../core/ports";
import type { ChangeOp } from "../../core/types";
import type { Db } from "./queries";
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
