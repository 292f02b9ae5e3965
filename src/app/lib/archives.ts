/** The answer to a request that names an archive which does not exist, and a request's time in one that does. */
import { toMs } from "../../contract";
import { type Failure, fail, ok, type Result } from "../../core/errors";
import type { ArchiveStore, Clock } from "../../core/ports";

/** The not_found failure when `archive` does not exist; null when it does. */
export async function missingArchive(
  archives: Pick<ArchiveStore, "getArchive">,
  archive: string,
): Promise<{ ok: false; error: Failure } | null> {
  return (await archives.getArchive(archive))
    ? null
    : fail("not_found", `archive ${archive} does not exist`, "archive");
}

/**
 * The not_found failure when `archive` does not exist; else the clock's time (`now`) and the
 * request's time (`t`: its `asOf`, or `now` when absent).
 */
export async function archiveAt(
  d: { stores: { archives: Pick<ArchiveStore, "getArchive"> }; clock: Clock },
  archive: string,
  asOf: string | undefined,
): Promise<Result<{ now: number; t: number }>> {
  const absent = await missingArchive(d.stores.archives, archive);
  if (absent) return absent;
  const now = d.clock.now();
  return ok({ now, t: toMs(asOf) ?? now });
}
