/** CSV (RFC 4180): one row per chunk, CRLF line ends, fields quoted when they hold `,`, `"`, CR or LF. */
import { joinParts, type Parts } from "./parts";
import { type ChunkRecord, iso } from "./types";

export const CSV_COLUMNS = [
  "id",
  "kind",
  "title",
  "version",
  "latest_version",
  "valid_from",
  "valid_to",
  "deprecated_at",
  "deprecated_by",
  "entities",
  "boundaries",
  "source",
  "review_status",
] as const;

/** One RFC 4180 field: quoted (inner quotes doubled) only when it needs to be. */
export function csvField(value: string | number | null | undefined): string {
  const s = value === null || value === undefined ? "" : String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvRow(values: Array<string | number | null | undefined>): string {
  return `${values.map(csvField).join(",")}\r\n`;
}

function baseValues(r: ChunkRecord): Array<string | number | null> {
  return [
    r.id,
    r.kind,
    r.title,
    r.version,
    r.latestVersion,
    iso(r.validFrom),
    iso(r.validTo),
    iso(r.deprecatedAt),
    r.deprecatedBy,
    r.entities.join("; "),
    r.boundaries.join("; "),
    r.source,
    r.reviewStatus ?? "auto-generated",
  ];
}

/** The archive listing: a header and one row per chunk (lists are joined with "; "). */
export function renderCsv(records: ChunkRecord[]): string {
  return joinParts(csvParts(records));
}

/** renderCsv's rows, one part each (joined with ""). */
export function csvParts(records: ChunkRecord[]): Parts {
  function* rows(): Generator<string, void, undefined> {
    yield csvRow([...CSV_COLUMNS]);
    for (const r of records) yield csvRow(baseValues(r));
  }
  return { parts: rows(), sep: "" };
}

/** A query result: the chunk columns plus the card's claim and its anchors (`id@vN [start,end)`). */
export function renderCardsCsv(
  rows: Array<{ record: ChunkRecord; claim: string; anchors: string[]; tokens: number }>,
): string {
  return [
    csvRow([...CSV_COLUMNS, "claim", "anchors", "tokens"]),
    ...rows.map((r) => csvRow([...baseValues(r.record), r.claim, r.anchors.join("; "), r.tokens])),
  ].join("");
}
