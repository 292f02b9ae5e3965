/** Archives, their keys and the operations on an archive's capital chunk. */
import * as S from "../contract";
import { fail, ok, type Result } from "../core/errors";
import { sha256Hex } from "../core/ingest";
import type { ArchiveRecord } from "../core/ports";
import type { AppDeps } from "./deps";
import { type In, iso, isoOrNull, randomId, tidy } from "./lib/wire";

/** The public archive: its kernel parameter overrides keep the names POST /v1/archives takes. */
export const archiveView = (a: ArchiveRecord) => ({
  id: a.id,
  name: a.name,
  description: a.description,
  params: tidy(a.params),
  created_at: iso(a.createdAt),
});

/** A new key for an archive: the secret is returned once, only its SHA-256 is stored. */
async function issue(d: AppDeps, archiveId: string, label: string, scopes: string[]) {
  const secret = randomId("pgk_", 24);
  const key = {
    id: randomId("k_", 8),
    archiveId,
    label,
    scopes: [...new Set(scopes)],
    createdAt: d.clock.now(),
    revokedAt: null,
  };
  await d.stores.archives.createKey({ ...key, keyHash: await sha256Hex(secret) });
  return { id: key.id, secret, scopes: key.scopes, label: key.label };
}

export function archiveUseCases(d: AppDeps) {
  return {
    /** A new archive (id generated when absent) with a read+write key. */
    async create(b: In<typeof S.CreateArchive>) {
      const id = b.id ?? randomId("a-", 6);
      const res = await d.stores.archives.createArchive({
        id,
        name: b.name,
        description: b.description ?? "",
        params: S.toKernelParams(b.params ?? {}),
        createdAt: d.clock.now(),
      });
      if (!res.ok) return res;
      const key = await issue(d, id, "initial", ["read", "write"]);
      return ok({ archive: archiveView(res.value), key: { id: key.id, secret: key.secret, scopes: key.scopes } });
    },
    async list() {
      return { archives: (await d.stores.archives.listArchives()).map(archiveView) };
    },
    /** The archive, its storage counts and its capital-chunk statistics. */
    async info(archive: string) {
      const a = await d.stores.archives.getArchive(archive);
      const stats = await d.kernel.stats(archive);
      return { archive: a && archiveView(a), stats: { capital: tidy(stats.capital), storage: stats.storage } };
    },
    issueKey(archive: string, b: In<typeof S.CreateKey>) {
      return issue(d, archive, b.label ?? "", b.scopes);
    },
    async listKeys(archive: string) {
      return {
        keys: (await d.stores.archives.listKeys(archive)).map((k) => ({
          id: k.id,
          label: k.label,
          scopes: k.scopes,
          created_at: iso(k.createdAt),
          revoked_at: isoOrNull(k.revokedAt),
        })),
      };
    },
    async revokeKey(archive: string, key: string): Promise<Result<{ revoked: string }>> {
      if (!(await d.stores.archives.revokeKey(archive, key, d.clock.now())))
        return fail("not_found", `no active key ${key} in archive ${archive}`, "key");
      return ok({ revoked: key });
    },
    /** Write a capital-chunk snapshot now (rebuilds start from the latest one). */
    snapshot(archive: string) {
      return d.kernel.capital(archive).snapshot();
    },
    /** Drop the in-memory capital chunk, as an eviction would. */
    async evict(archive: string) {
      await d.kernel.capital(archive).evict();
      return { evicted: archive };
    },
  };
}
