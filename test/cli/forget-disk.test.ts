/**
 * No copy left on disk: one chunk through each intake path (REST, MCP, webhook, source, import) is
 * hard-deleted, later writes carry the local D1 past an automatic checkpoint, and no file of the
 * local state (D1 and Durable Object SQLite files and their write-ahead logs, R2 objects and their
 * metadata) holds any deleted title or content word (scripts/lib/forget-disk.ts).
 */
import { describe, expect, it } from "vitest";
import { PATHS, probeDisk } from "../../scripts/lib/forget-disk";

describe("a hard delete leaves no copy in the local state", () => {
  it("no byte of any state file holds a deleted chunk's title or content, for every intake path", async () => {
    const r = await probeDisk();
    // The probe sees what it looks for: before the deletes every marker is on disk.
    for (const f of r.before) expect(f.files.length, `${f.path} ${f.field} before`).toBeGreaterThan(0);
    expect(r.before).toHaveLength(PATHS.length * 2);
    // D1, R2 and Durable Object storage were all searched.
    for (const part of ["/d1/", "/r2/", "/do/"])
      expect(
        r.searched.some((s) => s.file.includes(part)),
        part,
      ).toBe(true);
    expect(r.after.filter((f) => f.files.length > 0)).toEqual([]);
  }, 600_000);
});
