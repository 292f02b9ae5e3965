/** One chunk's version valid at a time, read for a use case that fails without it. */
import { fail, ok, type Result } from "../../core/errors";
import type { ChunkStore, StoredVersion } from "../../core/ports";
import { iso } from "./wire";

/** The version of chunk `id` valid at t, or a not_found naming the request's `field`. */
export async function versionAt(
  chunks: Pick<ChunkStore, "visibleAt">,
  archive: string,
  id: string,
  t: number,
  field: string,
): Promise<Result<StoredVersion>> {
  const v = (await chunks.visibleAt(archive, [id], t)).get(id);
  return v ? ok(v) : fail("not_found", `chunk ${id} has no version valid at ${iso(t)}`, field);
}
