/** D1 adapter for discovery reads (the DiscoveryStore port): ranking pools and collection statistics. */
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { DiscoveryStore, PaperRow } from "../../core/ports";
import { chunked, type Db, decoded } from "./queries";
import * as s from "./schema";

/** Ids per statement: with the archive id, the type and two bindings of t, under D1's 100 parameters. */
const IDS_PER_STATEMENT = 80;
/** Statements in flight at once (the Workers limit on simultaneous outbound connections is 6). */
const CONCURRENT = 6;

interface RawRow {
  chunkId: string;
  version: number;
  kind: string;
  title: string;
  synopsis: string;
  boundaries: string;
  entities: string;
  validFrom: number;
  source: string;
  citesIn: number;
}

const toRow = (r: RawRow): PaperRow => ({
  ...r,
  boundaries: decoded(s.chunkVersions.boundaries, r.boundaries),
  entities: decoded(s.chunkVersions.entities, r.entities),
  citesIn: Number(r.citesIn) || 0,
});

export class D1DiscoveryStore implements DiscoveryStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  #select(archiveId: string, t: number, where: SQL, tail: SQL) {
    return this.#db.all<RawRow>(
      sql`SELECT v.chunk_id AS chunkId, v.version AS version, v.kind AS kind, v.title AS title,
                 v.synopsis AS synopsis, v.boundaries AS boundaries, v.entities AS entities,
                 v.valid_from AS validFrom, v.source AS source, 0 AS citesIn
          FROM chunk_versions v JOIN chunks c ON c.archive_id = v.archive_id AND c.chunk_id = v.chunk_id
          WHERE v.archive_id = ${archiveId} AND v.valid_from <= ${t} AND (v.valid_to IS NULL OR v.valid_to > ${t})
            AND (c.deprecated_at IS NULL OR c.deprecated_at > ${t}) AND ${where}
          ${tail}`,
    );
  }

  /** Distinct chunks with a `cites` edge to each id valid at t (one grouped statement per batch). */
  async #citesIn(archiveId: string, ids: string[], t: number): Promise<Map<string, number>> {
    const rows = await this.#db
      .select({ dst: s.edges.dst, n: sql<number>`COUNT(DISTINCT ${s.edges.src})` })
      .from(s.edges)
      .where(
        and(
          eq(s.edges.archiveId, archiveId),
          inArray(s.edges.dst, ids),
          eq(s.edges.type, "cites"),
          sql`${s.edges.validFrom} <= ${t}`,
          sql`(${s.edges.validTo} IS NULL OR ${s.edges.validTo} > ${t})`,
        ),
      )
      .groupBy(s.edges.dst);
    return new Map(rows.map((r) => [r.dst, Number(r.n) || 0]));
  }

  /** The rows with their cites in-degree. */
  async #withCites(archiveId: string, rows: RawRow[], t: number): Promise<PaperRow[]> {
    const counts = rows.length
      ? await this.#citesIn(
          archiveId,
          rows.map((r) => r.chunkId),
          t,
        )
      : new Map<string, number>();
    return rows.map((r) => toRow({ ...r, citesIn: counts.get(r.chunkId) ?? 0 }));
  }

  async papersOf(archiveId: string, chunkIds: string[], t: number): Promise<PaperRow[]> {
    // The statements are independent: issued CONCURRENT at a time (a 256-candidate pool is 4 of them).
    const batches = chunked([...new Set(chunkIds)], IDS_PER_STATEMENT);
    const out: PaperRow[] = [];
    for (const group of chunked(batches, CONCURRENT)) {
      const parts = await Promise.all(
        group.map((ids) =>
          this.#select(
            archiveId,
            t,
            sql`v.chunk_id IN (${sql.join(
              ids.map((id) => sql`${id}`),
              sql`, `,
            )})`,
            sql``,
          ).then((rows) => this.#withCites(archiveId, rows, t)),
        ),
      );
      for (const p of parts) out.push(...p);
    }
    return out;
  }

  async papersIn(
    archiveId: string,
    f: { kinds?: string[] | undefined; boundariesAny?: string[] | undefined; boundaryNot?: string | undefined },
    t: number,
    limit: number,
  ): Promise<PaperRow[]> {
    const conds: SQL[] = [sql`1 = 1`];
    const list = (xs: string[]) =>
      sql.join(
        xs.map((x) => sql`${x}`),
        sql`, `,
      );
    if (f.kinds?.length) conds.push(sql`v.kind IN (${list(f.kinds)})`);
    if (f.boundariesAny?.length)
      conds.push(sql`EXISTS (SELECT 1 FROM json_each(v.boundaries) j WHERE j.value IN (${list(f.boundariesAny)}))`);
    if (f.boundaryNot !== undefined)
      conds.push(sql`NOT EXISTS (SELECT 1 FROM json_each(v.boundaries) j WHERE j.value = ${f.boundaryNot})`);
    const rows = await this.#select(archiveId, t, sql.join(conds, sql` AND `), sql`ORDER BY v.chunk_id LIMIT ${limit}`);
    const out: PaperRow[] = [];
    for (const group of chunked(chunked(rows, IDS_PER_STATEMENT), CONCURRENT))
      for (const p of await Promise.all(group.map((part) => this.#withCites(archiveId, part, t)))) out.push(...p);
    return out;
  }

  async entityNames(archiveId: string, entityIds: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const ids of chunked([...new Set(entityIds)], 90)) {
      const rows = await this.#db
        .select({ id: s.entities.entityId, name: s.entities.name })
        .from(s.entities)
        .where(and(eq(s.entities.archiveId, archiveId), inArray(s.entities.entityId, ids)));
      for (const r of rows) out.set(r.id, r.name);
    }
    return out;
  }
}
