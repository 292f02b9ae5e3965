/**
 * D1 adapter for archives and their API keys. `params` is stored as JSON text (typed at the driver),
 * `scopes` as a comma-separated list; only the SHA-256 of a key's secret is stored.
 */
import { and, asc, eq, isNull } from "drizzle-orm";
import { fail, ok, type Result } from "../../core/errors";
import type { ArchiveRecord, ArchiveStore, KeyRecord } from "../../core/ports";
import type { Db } from "./queries";
import * as s from "./schema";

function toKey({ keyHash: _hash, ...row }: typeof s.apiKeys.$inferSelect): KeyRecord {
  return { ...row, scopes: row.scopes.split(",") };
}

/** The columns of an ArchiveRecord (the embedding space columns are D1EmbeddingStore's). */
const RECORD = {
  id: s.archives.id,
  name: s.archives.name,
  description: s.archives.description,
  params: s.archives.params,
  createdAt: s.archives.createdAt,
};

export class D1ArchiveStore implements ArchiveStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async createArchive(a: ArchiveRecord): Promise<Result<ArchiveRecord>> {
    const res = await this.#db
      .insert(s.archives)
      .values({
        id: a.id,
        name: a.name,
        description: a.description,
        params: a.params,
        createdAt: a.createdAt,
      })
      .onConflictDoNothing()
      .returning();
    if (res.length === 0)
      return fail("conflict", `archive ${a.id} already exists`, "id", "choose another id or omit it");
    return ok(a);
  }

  async getArchive(id: string): Promise<ArchiveRecord | null> {
    const [row] = await this.#db.select(RECORD).from(s.archives).where(eq(s.archives.id, id)).limit(1);
    return row ?? null;
  }

  async listArchives(): Promise<ArchiveRecord[]> {
    return this.#db.select(RECORD).from(s.archives).orderBy(asc(s.archives.createdAt));
  }

  async createKey(k: KeyRecord & { keyHash: string }): Promise<void> {
    await this.#db.insert(s.apiKeys).values({ ...k, scopes: k.scopes.join(",") });
  }

  async listKeys(archiveId: string): Promise<KeyRecord[]> {
    const rows = await this.#db.select().from(s.apiKeys).where(eq(s.apiKeys.archiveId, archiveId));
    return rows.map(toKey);
  }

  async revokeKey(archiveId: string, keyId: string, at: number): Promise<boolean> {
    const res = await this.#db
      .update(s.apiKeys)
      .set({ revokedAt: at })
      .where(and(eq(s.apiKeys.archiveId, archiveId), eq(s.apiKeys.id, keyId), isNull(s.apiKeys.revokedAt)))
      .returning();
    return res.length > 0;
  }

  async findKeyByHash(keyHash: string): Promise<KeyRecord | null> {
    const row = await this.#db.query.apiKeys.findFirst({ where: eq(s.apiKeys.keyHash, keyHash) });
    return row ? toKey(row) : null;
  }
}
