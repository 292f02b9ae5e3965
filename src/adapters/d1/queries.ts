/** Queries and helpers the D1 adapters share (one definition each). */
import { and, eq, gt, inArray, isNull, lte, or, type SQL } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import type { VersionRecord } from "../../core/ports";
import * as s from "./schema";

/** IN-lists stay below D1's 100 bound parameters together with the archive id and a time. */
export const IN_CHUNK = 90;

export function chunked<T>(rows: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/** A version is visible at t when t is in [valid_from, valid_to). */
export function visibleAtTime(t: number): SQL | undefined {
  return and(lte(s.chunkVersions.validFrom, t), or(isNull(s.chunkVersions.validTo), gt(s.chunkVersions.validTo, t)));
}

/** The versions of these chunks: every version, or only the one visible at `t` when given. */
export async function versionsOfChunks(
  db: DrizzleD1Database<typeof s>,
  archiveId: string,
  chunkIds: string[],
  t?: number,
): Promise<VersionRecord[]> {
  const out: VersionRecord[] = [];
  for (const ids of chunked([...new Set(chunkIds)], IN_CHUNK)) {
    const rows = await db
      .select()
      .from(s.chunkVersions)
      .where(
        and(
          eq(s.chunkVersions.archiveId, archiveId),
          inArray(s.chunkVersions.chunkId, ids),
          t === undefined ? undefined : visibleAtTime(t),
        ),
      );
    out.push(...rows);
  }
  return out;
}
