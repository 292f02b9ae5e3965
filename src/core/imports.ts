/** The formats the /import endpoint reads, and the counts an import starts from (the contract, the services and the CLI share both). */

export const IMPORT_FORMATS = [
  "bibtex",
  "markdown",
  "fulltext",
  "xkg",
  "openie",
  "json",
  "archive",
  "pdf",
  "bbl",
] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Every count of an import's outcome at zero, in the order the outcome reports them. */
export const zeroImportCounts = () => ({
  created: 0,
  updated: 0,
  unchanged: 0,
  deprecated: 0,
  merged: 0,
  duplicates: 0,
  skipped: 0,
  failed: 0,
});
