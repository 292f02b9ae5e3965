/** Reading back what the archive states about a paper beyond its text (merge and import tests). */

import { expect } from "vitest";
import { META_LABELS } from "../../src/core/formats/paper";
import { api } from "./helpers";

/**
 * What the archive states about a paper beyond its text: the latest version's author and venue
 * entities, its boundaries and the metadata lines of its content, with how many versions it has.
 */
export async function metadataOf(archive: string, key: string, chunk: string) {
  const enc = encodeURIComponent(chunk);
  const d = await api("GET", `/v1/archives/${archive}/chunks/${enc}`, undefined, key);
  expect(d.status).toBe(200);
  const latest = d.body.versions.at(-1) as { entities: string[]; boundaries: string[] };
  const text = (await api("GET", `/v1/archives/${archive}/chunks/${enc}/content`, undefined, key)).body.text as string;
  const lines = text.split("\n").filter((l) => META_LABELS.some((m) => l.startsWith(`${m}: `)));
  return {
    entities: latest.entities.filter((e) => /^(person|venue):/.test(e)).sort(),
    boundaries: [...latest.boundaries].sort(),
    lines: lines.sort(),
    versions: d.body.versions.length as number,
  };
}
