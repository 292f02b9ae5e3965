/**
 * The `paperguru` command. Endpoint and key come from flags or the environment
 * (PAPERGURU_URL, default http://127.0.0.1:8787 — the local `npm start`; PAPERGURU_KEY).
 *
 *   paperguru import --archive <id> [--format bibtex|markdown|fulltext|xkg|json] <file|folder>...
 */
import { parseArgs } from "node:util";
import { FORMATS, type Format, runImport } from "./import";

const USAGE = `usage: paperguru import --archive <id> [--format ${FORMATS.join("|")}] [--url URL] [--key KEY] <file|folder>...
  Formats are detected from the extension (.bib, .md) and, for .json/.jsonl, from the content.
  Re-running the same command resumes an interrupted import: what landed reports "unchanged".
  Environment: PAPERGURU_URL (default http://127.0.0.1:8787), PAPERGURU_KEY (an archive key with write scope).`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== "import") {
    console.error(USAGE);
    return command === undefined || command === "--help" || command === "help" ? 0 : 2;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      archive: { type: "string", short: "a" },
      format: { type: "string", short: "f" },
      url: { type: "string" },
      key: { type: "string" },
    },
  });
  const key = values.key ?? process.env.PAPERGURU_KEY;
  if (!values.archive || !key || positionals.length === 0) {
    console.error(
      `${!values.archive ? "missing --archive" : !key ? "missing --key or PAPERGURU_KEY" : "no files given"}\n${USAGE}`,
    );
    return 2;
  }
  if (values.format && !(FORMATS as readonly string[]).includes(values.format)) {
    console.error(`unknown --format ${values.format}; use one of ${FORMATS.join(", ")}`);
    return 2;
  }
  const { failedFiles } = await runImport(positionals, {
    url: values.url ?? process.env.PAPERGURU_URL ?? "http://127.0.0.1:8787",
    key,
    archive: values.archive,
    format: values.format as Format | undefined,
    log: (line) => console.log(line),
  });
  return failedFiles > 0 ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
