/**
 * BibTeX / BibLaTeX files -> one `paper` chunk per entry.
 *
 * Parsing is done by @retorquere/bibtex-parser (the parser behind Better BibTeX for Zotero): it
 * resolves `@string` macros and `crossref` inheritance and decodes LaTeX to Unicode (`K{\"u}ttler` ->
 * `Küttler`). It marks up some commands as HTML (`\emph{x}` -> `<i>x</i>`); since a literal `<` in
 * BibTeX text decodes to `¡` (TeX's OT1 quirk), anything tag-shaped in its output is its markup and is
 * stripped. Unknown macros are dropped and their arguments kept (`unsupported: "ignore"`) rather
 * than failing the entry. Titles are kept as written (no sentence-casing).
 *
 * Per entry: id/entity from paperIdentity(DOI, arXiv eprint, DOI/arXiv URL; title); the citation key
 * is an alias of the paper entity so `[@lewis2020]`-style mentions resolve. content = a readable
 * rendering of the record (title, authors, venue, date, ids, abstract, note), synopsis = the
 * abstract's first sentences, entities = the paper, its authors (`person:<slug>`) and its venue
 * (`venue:<slug>`), boundaries `bibtex:<type>`, `year:<yyyy>`, `keyword:<k>`.
 * The entry as written (with the @string macros it uses) closes the content after a `BibTeX:` line,
 * so the BibTeX export gives it back field for field under the user's citation key.
 * valid_from is the publication date (`date`, else `year`/`month`; publicationTime), so `as_of` a
 * time before the paper appeared does not see it; recorded_at stays the import time. When the
 * archive already holds a later version of the same work, the import layer records the new version
 * from now instead (versions never overlap).
 */
import { type Creator, type Entry, type ParseError, parse } from "@retorquere/bibtex-parser";
import { fail, ok, type Result } from "../errors";
import { canonicalPaperId, slug } from "../ids";
import type { ArtifactInput, EntityInput } from "../ingest";
import { withinCpuBudget } from "../limits";
import { runSync, type Sliced, slicer } from "../pace";
import { UNDATED } from "../types";
import { BIBTEX_PIECE_CHARS, bibtexWithinBudget, measureBibtex, planBibtexPieces } from "./bibtex-size";
import { clip, oneLine, PlanBuilder, personEntity, publicationTime, synopsisOf, yearOf } from "./common";
import { ENTRY_MARK, paperIdentity } from "./paper";
import type { ImportPlan } from "./types";

export interface BibtexOptions {
  /** File name or URL, recorded as `<source>#<citation key>`. */
  source?: string;
  /** Characters of values per parsed piece (default BIBTEX_PIECE_CHARS; Infinity parses the file in one call). */
  pieceChars?: number;
}

/**
 * Remove the parser's HTML markup (<i>, <b>, <sup>, <span style=...>, <a href=...>). NFC: the parser
 * decodes accents to combining marks (K{\"u}ttler -> u + U+0308), which would not match typed names.
 */
function plain(s: string | undefined): string {
  return s ? oneLine(s.replace(/<\/?[a-z][a-z0-9]*(?:\s[^<>]*)?>/gi, "")).normalize("NFC") : "";
}

function creatorName(c: Creator): string {
  if (c.name) return plain(c.name);
  return plain([c.firstName, c.prefix, c.lastName, c.suffix].filter(Boolean).join(" "));
}

type Fields = Entry["fields"];

function field(f: Fields, name: string): string {
  const v = (f as Record<string, unknown>)[name];
  if (typeof v === "string") return plain(v);
  if (Array.isArray(v)) return plain(v.filter((x): x is string => typeof x === "string").join("; "));
  return "";
}

/** Characters of one parsed field: a string, a list, or creators (the parts creatorName joins). */
function valueChars(v: unknown): number {
  if (typeof v === "string") return v.length;
  if (!Array.isArray(v)) return 0;
  let n = 0;
  for (const x of v as Array<string | Creator>)
    n +=
      typeof x === "string"
        ? x.length
        : (x.name?.length ?? 0) +
          (x.firstName?.length ?? 0) +
          (x.prefix?.length ?? 0) +
          (x.lastName?.length ?? 0) +
          (x.suffix?.length ?? 0);
  return n;
}

/**
 * The parsed entries' fields, inheritance included, before records are built from them: `crossref`
 * shares a parent's fields with every child (no copy in the parser), but each child's record copies
 * them, so 1,000 children of one entry with an 80,000-character publisher made 80 million characters
 * of content (8 s) from a 228 KB file. Over the CPU budget: a 413 naming the parent that donates most.
 */
function withinFieldBudget(entries: readonly Entry[]): Result<void> {
  let chars = 0;
  const donated = new Map<string, number>();
  for (const e of entries) {
    const f = e.fields as Record<string, unknown>;
    for (const v of Object.values(f)) chars += valueChars(v);
    const parent = typeof f.crossref === "string" ? f.crossref : "";
    if (!parent || !e.crossref?.inherited.length) continue;
    let n = 0;
    for (const name of e.crossref.inherited) n += valueChars(f[name]);
    donated.set(parent, (donated.get(parent) ?? 0) + n);
  }
  let top: [string, number] | null = null;
  for (const d of donated) if (!top || d[1] > top[1]) top = d;
  const fmt = (n: number) => n.toLocaleString("en-US");
  return withinCpuBudget(
    [["bibtex", chars]],
    `building records from these ${fmt(entries.length)} entries (${fmt(chars)} characters of fields${top ? `, ${fmt(top[1])} of them inherited through crossref from ${top[0]}` : ""})`,
    "text",
    top
      ? `give the entries their own short fields instead of inheriting long ones from ${top[0]}, or send fewer of them per request`
      : "send fewer entries per request (`npx paperguru import` splits files)",
  );
}

/** An arXiv identifier as written in an eprint field: new style NNNN.NNNN(N)(vN) or old style archive/NNNNNNN(vN). */
export function looksLikeArxiv(eprint: string): boolean {
  const e = eprint.trim().replace(/^arxiv:\s*/i, "");
  return /^\d{4}\.\d{4,5}(v\d+)?$/i.test(e) || /^[a-z-]+(\.[a-z]{2})?\/\d{7}(v\d+)?$/i.test(e);
}

/** Identifier candidates in priority-free order; paperIdentity ranks them (arXiv > DOI > OpenAlex). */
function identifiers(f: Fields): string[] {
  const out: string[] = [];
  const doi = field(f, "doi");
  if (doi) out.push(/^(doi:|https?:)/i.test(doi) ? doi : `doi:${doi}`);
  const eprint = field(f, "eprint");
  const eprintType = `${field(f, "eprinttype")} ${field(f, "archiveprefix")}`.toLowerCase();
  // An eprint without a type is arXiv's when it has the shape of an arXiv id (2405.14831v2,
  // hep-th/9901001): biblatex defaults eprinttype to nothing, and Google Scholar / Semantic Scholar
  // exports often leave archivePrefix out. Another declared type (hdl, jstor, pubmed) is not arXiv.
  const bareArxiv = eprintType.trim() === "" && looksLikeArxiv(eprint);
  if (eprint && (eprintType.includes("arxiv") || bareArxiv)) out.push(`arXiv:${eprint.replace(/^arxiv:\s*/i, "")}`);
  for (const k of ["arxiv", "arxivid"]) {
    const v = field(f, k);
    if (v) out.push(`arXiv:${v.replace(/^arxiv:\s*/i, "")}`);
  }
  const openalex = field(f, "openalex");
  if (openalex) out.push(openalex);
  // A URL counts only when it is itself a DOI or arXiv link.
  const url = field(f, "url");
  if (url && canonicalPaperId(url)) out.push(url);
  return out;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

function dateOf(f: Fields): string {
  const date = field(f, "date");
  if (date) return date;
  const year = field(f, "year");
  const month = field(f, "month");
  if (!year) return "";
  const m = /^\d+$/.test(month) ? Number(month) : MONTHS.indexOf(month.slice(0, 3).toLowerCase()) + 1;
  return m >= 1 && m <= 12 ? `${year}-${String(m).padStart(2, "0")}` : year;
}

function venueOf(f: Fields): string {
  for (const k of ["journal", "journaltitle", "booktitle", "eventtitle", "school", "institution", "howpublished"]) {
    const v = field(f, k);
    if (v && !/^https?:/i.test(v)) return v;
  }
  return "";
}

/**
 * `@string` definitions of the macros an entry's values use, one per line, as the entry first writes
 * their names. `defined` maps the file's macros (upper-cased, as the parser keys them) to their
 * lengths; measureBibtex reads only the entry's values (a `= name` inside braces is text, not a use),
 * so an entry carries each macro it uses once and no other.
 */
function macrosUsed(input: string, strings: Record<string, string>, defined: ReadonlyMap<string, number>): string {
  if (defined.size === 0) return "";
  return measureBibtex(input, { macros: defined, cap: Number.POSITIVE_INFINITY })
    .used.map((name) => `@string{${name} = {${strings[name.toUpperCase()] ?? ""}}}\n`)
    .join("");
}

/** Characters of a parser message quoted back: its messages can carry the whole input. */
const ERROR_EXCERPT = 300;

/** A parser message cut to one line of at most ERROR_EXCERPT characters. */
function excerpt(message: string): string {
  const line = oneLine(message);
  return line.length > ERROR_EXCERPT ? `${clip(line, ERROR_EXCERPT)}…` : line;
}

/** First line of a parse error, with the entry key when the error's input shows it. */
function errorRef(input: string | undefined, fallback: string): string {
  const key = input ? /^@\s*\w+\s*[{(]\s*([^,\s]+)\s*,/.exec(input)?.[1] : undefined;
  return key ?? fallback;
}

const PARSE_OPTIONS = { sentenceCase: false, applyCrossRef: true, unsupported: "ignore" } as const;

/** What parseBibtex reads of the parser's library. */
export interface Library {
  entries: Entry[];
  errors: ParseError[];
  strings: Record<string, string>;
}

/**
 * The parser's library of the file, read piece by piece with a yield after each piece when the file
 * can be cut exactly (planBibtexPieces: each piece of ~20,000 characters of values is ~45 ms of the
 * parser), else in one call. Pieces give what one call gives: their entries in order, the macros,
 * and the errors as the parser orders them: first those it meets while reading the text (here only
 * unresolved macros, `input` empty, each message once), then those of decoding entries.
 */
export function* readLibrary(text: string, pieceChars = BIBTEX_PIECE_CHARS): Sliced<Library> {
  const plan = planBibtexPieces(text, pieceChars);
  if ("whole" in plan || plan.pieces.length === 1) return parse(text, PARSE_OPTIONS);
  yield;
  const entries: Entry[] = [];
  const reading: ParseError[] = [];
  const decoding: ParseError[] = [];
  const messages = new Set<string>();
  const strings: Record<string, string> = {};
  for (const piece of plan.pieces) {
    const lib = parse(piece.text, { ...PARSE_OPTIONS, strings: piece.strings });
    for (const e of lib.entries) entries.push(e);
    for (const e of lib.errors) {
      if (e.input !== "") decoding.push(e);
      else if (!messages.has(e.error)) {
        messages.add(e.error);
        reading.push(e);
      }
    }
    Object.assign(strings, lib.strings);
    yield;
  }
  return { entries, errors: [...reading, ...decoding], strings };
}

/** Entries made into records between two yields (~0.1 ms each). */
const RECORD_SLICE = 100;

/**
 * Parse a .bib file. Fails (validation) when the text holds no BibTeX entry at all, or when nothing
 * in it could be parsed; a single broken or title-less entry is skipped with the reason.
 */
export function parseBibtex(text: string, opts: BibtexOptions = {}): Result<ImportPlan> {
  return runSync(parseBibtexSliced(text, opts));
}

/** parseBibtex, yielding between slices of its work (pieces of the file, then entries). */
export function* parseBibtexSliced(text: string, opts: BibtexOptions = {}): Sliced<Result<ImportPlan>> {
  const src = opts.source ?? "bibtex";
  if (!/@\s*[a-z]+\s*[{(]/i.test(text))
    return fail(
      "validation",
      "no BibTeX entry found (expected entries like @article{key, title = {...}, ...})",
      "text",
      "send the contents of a .bib file",
    );
  // Before parsing: macros that expand past what one request may decode are refused, naming them.
  const size = bibtexWithinBudget(text);
  if (!size.ok) return size;
  yield;
  let lib: Library;
  try {
    lib = yield* readLibrary(text, opts.pieceChars);
  } catch (e) {
    return fail(
      "validation",
      `the BibTeX could not be parsed: ${excerpt(e instanceof Error ? e.message : String(e))}`,
      "text",
      "check the file for unbalanced braces or quotes",
    );
  }
  const fields = withinFieldBudget(lib.entries);
  if (!fields.ok) return fields;
  const b = new PlanBuilder();
  const errorKeys = new Set<string>();
  for (const [i, err] of lib.errors.entries()) {
    const ref = errorRef(err.input, `${src}#error${i + 1}`);
    errorKeys.add(ref);
    b.skip(ref, `BibTeX parse error: ${excerpt(err.error)}`);
  }
  const titled = lib.entries.filter((e) => field(e.fields, "title"));
  if (titled.length === 0 && lib.errors.length > 0 && lib.entries.every((e) => !e.input))
    return fail(
      "validation",
      `the BibTeX could not be parsed: ${excerpt(lib.errors[0]?.error ?? "no entry")}`,
      "text",
      "check the file for unbalanced braces or quotes",
    );
  const keysById = new Map<string, string[]>();
  const entityOf = new Map<string, EntityInput>();
  // Added after the loop: a later duplicate entry adds its key to an earlier entry's aliases.
  const pending: Array<{ artifact: ArtifactInput; ref: string }> = [];
  const macroChars = new Map(Object.entries(lib.strings).map(([k, v]) => [k, Math.max(1, v.length)]));
  const slice = slicer(RECORD_SLICE);
  for (const e of lib.entries) {
    yield* slice();
    const type = e.type.toLowerCase();
    // @proceedings/@collection parents exist to donate fields through crossref; they are skipped only
    // when untitled, like any other entry.
    const title = field(e.fields, "title");
    if (!title) {
      if (!errorKeys.has(e.key)) b.skip(e.key || src, `@${type} entry has no title`);
      continue;
    }
    const identity = paperIdentity(identifiers(e.fields), title);
    if (!identity) {
      b.skip(e.key, "no usable title or identifier");
      continue;
    }
    const prevKeys = keysById.get(identity.id);
    if (prevKeys) {
      // The same work under two keys: keep the first record, make the second key resolve to it too.
      prevKeys.push(e.key);
      const ent = entityOf.get(identity.id);
      if (ent) ent.aliases = [...(ent.aliases ?? []), e.key];
      b.skip(e.key, `same work as @${prevKeys[0]} (${identity.id}); its key is kept as an alias`);
      continue;
    }
    const authors = (e.fields.author ?? []).map(creatorName).filter(Boolean);
    const editors = (e.fields.editor ?? []).map(creatorName).filter(Boolean);
    const venue = venueOf(e.fields);
    const date = dateOf(e.fields);
    const year = yearOf(date);
    const abstract = field(e.fields, "abstract");
    const note = [field(e.fields, "note"), field(e.fields, "addendum")].filter(Boolean).join(" ");
    const keywords = (e.fields.keywords ?? []).map(plain).filter(Boolean);
    const doi = identity.ids.find((x) => x.startsWith("doi:"));
    const arxiv = identity.ids.find((x) => x.startsWith("arxiv:"));
    const url = field(e.fields, "url");
    const lines = [
      title,
      authors.length ? `Authors: ${authors.join(", ")}` : "",
      editors.length ? `Editors: ${editors.join(", ")}` : "",
      venue ? `In: ${venue}` : "",
      [
        field(e.fields, "volume") && `volume ${field(e.fields, "volume")}`,
        field(e.fields, "number") && `number ${field(e.fields, "number")}`,
        field(e.fields, "pages") && `pages ${field(e.fields, "pages")}`,
      ]
        .filter(Boolean)
        .join(", "),
      field(e.fields, "publisher") ? `Publisher: ${field(e.fields, "publisher")}` : "",
      date ? `Date: ${date}` : "",
      `Type: @${type}; citation key: ${e.key}`,
      doi ? `DOI: ${doi.slice(4)}` : "",
      arxiv ? `arXiv: ${arxiv.slice(6)}` : "",
      url && !canonicalPaperId(url) ? `URL: ${url}` : "",
      keywords.length ? `Keywords: ${keywords.join(", ")}` : "",
      abstract ? `\nAbstract: ${abstract}` : "",
      note ? `\nNote: ${note}` : "",
    ].filter(Boolean);
    const self: EntityInput = { ...identity.entity, aliases: [...(identity.entity.aliases ?? []), e.key] };
    entityOf.set(identity.id, self);
    keysById.set(identity.id, [e.key]);
    const entities: EntityInput[] = [self];
    for (const name of authors) {
      const person = personEntity(name);
      if (person) entities.push(person);
    }
    if (venue) entities.push({ type: "venue", id: `venue:${slug(venue).slice(0, 200)}`, name: venue });
    const synopsis = abstract ? synopsisOf(title, abstract) : undefined;
    pending.push({
      artifact: {
        id: identity.id,
        kind: "paper",
        title,
        ...(synopsis ? { synopsis } : {}),
        // A blank line, then the entry as written (ENTRY_MARK): the same bytes a re-import writes.
        content: e.input
          ? `${lines.join("\n")}\n${ENTRY_MARK}${macrosUsed(e.input, lib.strings, macroChars)}${e.input.trim()}`
          : lines.join("\n"),
        ...(publicationTime(date) !== undefined ? { valid_from: publicationTime(date) } : {}),
        entities,
        boundaries: [
          `bibtex:${type}`,
          // An entry without a date says so: its valid_from (the import's time) is not its year.
          ...(year ? [`year:${year}`] : [UNDATED]),
          ...keywords.slice(0, 20).map((k) => `keyword:${clip(k, 180)}`),
        ],
        source: `${src}#${e.key}`,
      },
      ref: e.key,
    });
  }
  for (const p of pending) b.add(p.artifact, p.ref);
  if (b.plan.artifacts.length === 0 && b.plan.skipped.length === 0)
    return fail("validation", "no BibTeX entry found", "text", "send the contents of a .bib file");
  return ok(b.plan);
}
