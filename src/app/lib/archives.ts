/** The answer to a request that names an archive which does not exist. */
import { type Failure, fail } from "../../core/errors";
import type { ArchiveStore } from "../../core/ports";

/** The not_found failure when `archive` does not exist; null when it does. */
export async function missingArchive(
  archives: Pick<ArchiveStore, "getArchive">,
  archive: string,
): Promise<{ ok: false; error: Failure } | null> {
  return (await archives.getArchive(archive))
    ? null
    : fail("not_found", `archive ${archive} does not exist`, "archive");
}
