/**
 * The heaviest input each request of the API accepts, for scripts/probe-heavy.ts: files of every
 * import format grown to the largest size one request takes (the CPU budget of src/core/limits.ts,
 * the 2,000 records of MAX_IMPORT_ARTIFACTS, the 32 MiB body), checked here with the same checks
 * the import runs (`fits`), so a case measures work that is accepted, not a quick 413. Text comes
 * from ../shared/testdata when it is there (CiteSeer abstracts, unarXive papers and their
 * bibliography entries, Wikipedia paragraphs), else it is generated; `real` says which.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { annotationsFit, MAX_IMPORT_ARTIFACTS, parseImport } from "../../src/app/intake/imports";
import { MAX_REQUEST_BYTES, withinCpuBudget } from "../../src/core/limits";
import { loadCiteSeer } from "./datasets";
import { loadRealText, type Paragraph } from "./realtext";
import { rng } from "./synthetic";

const WORDS = (
  "memory retrieval agents graph passage query entity version anchor evidence context budget model " +
  "language learning training dataset benchmark recall precision baseline sparse dense index method " +
  "the of and to in for with on by from that which improves shows results section table figure"
).split(" ");

/** `words` words of generated prose (the fallback when ../shared/testdata is absent). */
function prose(words: number, r: () => number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(`${WORDS[Math.floor(r() * WORDS.length)]}${i % 14 === 13 ? "." : ""}`);
  return out.join(" ");
}

export interface Fit {
  ok: boolean;
  records: number;
  chars: number;
  reason?: string;
}

/** Whether POST /import would accept `text` as `format`: the checks of importFile. */
export function fits(format: "bibtex" | "markdown" | "xkg" | "openie" | "fulltext" | "json", text: string): Fit {
  if (text.length > MAX_REQUEST_BYTES) return { ok: false, records: 0, chars: 0, reason: "over 32 MiB" };
  const parse = withinCpuBudget([[format, text.length]], "parse", "body", "");
  if (!parse.ok) return { ok: false, records: 0, chars: 0, reason: parse.error.message };
  const plan = parseImport(format, text, "probe");
  if (!plan.ok) return { ok: false, records: 0, chars: 0, reason: plan.error.message };
  let chars = 0;
  for (const a of plan.value.artifacts) chars += a.content.length + a.title.length + (a.synopsis?.length ?? 0);
  const records = plan.value.artifacts.length;
  const all = withinCpuBudget(
    [
      [format, text.length],
      ["analyse", chars],
    ],
    "all",
    "body",
    "",
  );
  if (!all.ok) return { ok: false, records, chars, reason: all.error.message };
  if (records > MAX_IMPORT_ARTIFACTS) return { ok: false, records, chars, reason: `${records} records` };
  const stored = annotationsFit(plan.value, format);
  if (!stored.ok) return { ok: false, records, chars, reason: stored.error.message };
  return { ok: true, records, chars };
}

/** The largest n (n <= hi, found by bisection over n >= lo) whose input fits; null when lo does not. */
export function largestFitting(
  make: (n: number) => string,
  check: (text: string) => Fit,
  lo: number,
  hi: number,
): { n: number; text: string; fit: Fit } | null {
  let best: { n: number; text: string; fit: Fit } | null = null;
  const first = make(hi);
  const top = check(first);
  if (top.ok) return { n: hi, text: first, fit: top };
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const text = make(mid);
    const fit = check(text);
    if (fit.ok) {
      best = { n: mid, text, fit };
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

export interface Corpus {
  real: boolean;
  paragraphs: Paragraph[];
  /** Titles and abstracts of papers (CiteSeer), for BibTeX entries. */
  abstracts: Array<{ title: string; text: string }>;
  /** Bibliography entries as written (unarXive bib_entry_raw). */
  references: string[];
  /** unarXive papers, one JSON line each. */
  fulltextLines: string[];
}

export function loadCorpus(dir: string): Corpus {
  const rt = loadRealText(dir);
  const cs = loadCiteSeer(dir);
  const ux = join(dir, "unarxive", "arXiv_src_2212_086.jsonl");
  const fulltextLines = existsSync(ux)
    ? readFileSync(ux, "utf8")
        .split("\n")
        .filter((l) => l.trim())
    : [];
  const references: string[] = [];
  for (const l of fulltextLines) {
    const p = JSON.parse(l) as { bib_entries?: Record<string, { bib_entry_raw?: string }> };
    for (const e of Object.values(p.bib_entries ?? {})) if (e.bib_entry_raw) references.push(e.bib_entry_raw);
  }
  const abstracts = (cs?.papers ?? []).map((p) => {
    const stop = p.text.search(/[.?!]\s/);
    const cut = stop > 10 && stop < 200 ? stop : Math.min(80, p.text.length);
    return { title: p.text.slice(0, cut), text: p.text.slice(cut + 1).trim() || p.text };
  });
  const real = !!rt && abstracts.length > 0 && references.length > 0 && fulltextLines.length > 0;
  const r = rng(7);
  const paragraphs =
    rt?.paragraphs ?? Array.from({ length: 2000 }, (_, i) => ({ title: `Passage ${i}`, text: prose(160, r) }));
  return {
    real,
    paragraphs,
    abstracts: abstracts.length
      ? abstracts
      : Array.from({ length: 2000 }, (_, i) => ({ title: `A study of memory ${i}`, text: prose(150, r) })),
    references: references.length
      ? references
      : Array.from(
          { length: 2000 },
          (_, i) =>
            `A. Author and B. Writer. A study of retrieval number ${i} in long-horizon agents. In Proceedings of the Conference, pages 1-${i + 10}, 2021.`,
        ),
    fulltextLines,
  };
}

const SURNAMES = ["Lewis", "Küttler", "Gutiérrez", "Nguyen", "Okafor", "Lindqvist", "Brandt", "Ishikawa", "Ferreira"];
const GIVEN = ["Patrick", "Heinrich", "Bernal", "Quang Huy", "Amara", "Ingrid", "Tobias", "Yuki", "Rafael"];
const TEX: Record<string, string> = { ü: '{\\"u}', é: "{\\'e}", ö: '{\\"o}' };
const tex = (s: string) => s.replace(/[üéö]/g, (c) => TEX[c] ?? c);
const VENUES = ["Advances in Neural Information Processing Systems", "Proceedings of ACL", "JMLR", "ICLR", "Nature"];

/** `n` BibTeX entries shaped like a Zotero export: authors with TeX accents, venues, DOIs, abstracts. */
export function bibtexFile(c: Corpus, n: number): string {
  const out = [
    "@string{jmlr = {Journal of Machine Learning Research}}",
    "@preamble{ {\\newcommand{\\noop}[1]{}} }",
    "",
  ];
  for (let i = 0; i < n; i++) {
    const a = c.abstracts[i % c.abstracts.length] as { title: string; text: string };
    const round = Math.floor(i / c.abstracts.length);
    const authors = Array.from(
      { length: 2 + (i % 4) },
      (_, k) => `${tex(SURNAMES[(i + k) % SURNAMES.length] as string)}, ${GIVEN[(i * 3 + k) % GIVEN.length]}`,
    ).join(" and ");
    const year = 1995 + (i % 30);
    const title = `${a.title.replace(/[{}\\]/g, "")}${round ? ` (part ${round + 1})` : ""}`;
    const abstract = a.text.replace(/[{}\\%#&]/g, " ").slice(0, 1500);
    const kind = i % 3;
    out.push(
      kind === 0
        ? `@article{${(SURNAMES[i % SURNAMES.length] as string).toLowerCase().replace(/[^a-z]/g, "")}${year}k${i},
  title = {${title}},
  author = {${authors}},
  journal = ${i % 2 ? "jmlr" : `{${VENUES[i % VENUES.length]}}`},
  volume = {${1 + (i % 40)}}, number = {${1 + (i % 12)}}, pages = {${i}--${i + 12}},
  year = {${year}}, month = ${["jan", "mar", "jun", "sep", "dec"][i % 5]},
  doi = {10.5555/probe.${i}},
  keywords = {retrieval, memory, agents},
  abstract = {${abstract}}
}`
        : kind === 1
          ? `@inproceedings{conf${year}p${i},
  title = {{${title}}},
  author = {${authors}},
  booktitle = {${VENUES[(i + 1) % VENUES.length]}},
  year = {${year}},
  eprint = {${2000 + (i % 400)}.${String(10000 + i).slice(-5)}}, archivePrefix = {arXiv},
  abstract = {${abstract}}
}`
          : `@misc{web${i},
  title = "${title.replace(/"/g, "")}",
  author = {${authors}},
  howpublished = {\\url{https://example.org/paper/${i}}},
  note = {Accessed 2024},
  year = ${year},
  abstract = {${abstract}}
}`,
    );
  }
  return `${out.join("\n\n")}\n`;
}

/** BibTeX entries filling about `bytes` bytes. */
export function bibtexOfSize(c: Corpus, bytes: number): string {
  let n = Math.max(1, Math.floor(bytes / 1200));
  let text = bibtexFile(c, n);
  while (text.length < bytes) {
    n = Math.ceil(n * (bytes / text.length)) + 1;
    text = bibtexFile(c, n);
  }
  // Trim back to at most `bytes`, entry by entry.
  while (text.length > bytes && n > 1) text = bibtexFile(c, --n);
  return text;
}

/** The probe-scale macro bomb: 24 @string lines doubling one value to 2^24 characters. */
export function bibtexMacroBomb(): string {
  return [
    '@string{a0 = "xx"}',
    ...Array.from({ length: 23 }, (_, i) => `@string{a${i + 1} = a${i} # a${i}}`),
    "@article{k, title = a23}",
  ].join("\n");
}

/**
 * A Markdown paper (front matter, abstract, sections) whose References section lists `refs`
 * entries: the corpus's real bibliography entries, every other one made unique.
 */
export function markdownWithReferences(c: Corpus, refs: number): string {
  const parts = [
    "---",
    "title: Memory for Long-Horizon Agents: A Survey of One Hundred Thousand Works",
    "date: 2024-05-01",
    "doi: 10.5555/probe.survey",
    "---",
    "",
    "# Memory for Long-Horizon Agents: A Survey of One Hundred Thousand Works",
    "",
    "## Abstract",
    "",
    (c.paragraphs[0]?.text ?? "").slice(0, 1500),
    "",
  ];
  for (let s = 1; s <= 8; s++)
    parts.push(`## ${s} ${c.paragraphs[s]?.title ?? `Section ${s}`}`, "", c.paragraphs[s]?.text ?? "", "");
  parts.push("## References", "");
  for (let i = 0; i < refs; i++) {
    const raw = (c.references[i % c.references.length] as string).replace(/\s+/g, " ");
    parts.push(
      i % 2 === 0
        ? `${i + 1}. ${raw}`
        : `${i + 1}. ${SURNAMES[i % SURNAMES.length]}, ${(GIVEN[i % GIVEN.length] as string)[0]}. and Writer, B. A study of retrieval number ${i} in long-horizon agents. In Proceedings of the Conference on Memory, pages ${i}-${i + 9}, ${1990 + (i % 34)}.`,
    );
  }
  return `${parts.join("\n")}\n`;
}

/** Text of exactly `chars` characters from the corpus's paragraphs, starting at paragraph `from`. */
export function proseOfSize(c: Corpus, chars: number, from: number): string {
  const out: string[] = [];
  let len = 0;
  for (let i = from; len < chars; i++) {
    const p = c.paragraphs[i % c.paragraphs.length] as Paragraph;
    const s = `${p.title}\n${p.text}\n\n`;
    out.push(s);
    len += s.length;
  }
  return out.join("").slice(0, chars);
}

/** OpenIE results (HippoRAG layout): `docs` docs of `paras` paragraphs each, with entities and triples. */
export function openieFile(c: Corpus, docs: number, paras: number): string {
  const out: unknown[] = [];
  for (let i = 0; i < docs; i++) {
    const ps = Array.from(
      { length: paras },
      (_, k) => c.paragraphs[(i * paras + k) % c.paragraphs.length] as Paragraph,
    );
    const passage = `${ps[0]?.title ?? ""} (${i})\n${ps.map((p) => p.text).join("\n")}`;
    const names = [...new Set(passage.match(/\b\p{Lu}\p{Ll}+(?: \p{Lu}\p{Ll}+)+/gu) ?? [])].slice(0, 30);
    out.push({
      idx: `doc-${i}`,
      passage,
      extracted_entities: names,
      extracted_triples: names.slice(1).map((n, k) => [names[k] as string, "is mentioned with", n]),
    });
  }
  return JSON.stringify({ docs: out });
}

/** A feed JSON document of `n` notes of about `chars` characters each. */
export function feedFile(c: Corpus, n: number, chars: number): string {
  return JSON.stringify({
    artifacts: Array.from({ length: n }, (_, i) => ({
      id: `feed:${i}`,
      kind: "note",
      title: `${c.paragraphs[i % c.paragraphs.length]?.title ?? "Note"} (${i})`,
      content: proseOfSize(c, chars, i * 3),
    })),
  });
}

/** The first `n` unarXive papers as JSON Lines (generated papers when the corpus has none). */
export function fulltextFile(c: Corpus, n: number): string {
  if (c.fulltextLines.length) return `${c.fulltextLines.slice(0, n).join("\n")}\n`;
  const r = rng(3);
  return `${Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      paper_id: `p${i}`,
      metadata: { title: `Generated paper ${i}`, year: 2020 },
      body_text: Array.from({ length: 30 }, (_, k) => ({ text: prose(120, r), section: `Section ${k % 6}` })),
    }),
  ).join("\n")}\n`;
}

/** A PDF of `pages` pages of dense single-column text (Times 10 pt), with numbered headings. */
export async function densePdf(c: Corpus, pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const epoch = new Date("2024-05-01T00:00:00Z");
  doc.setCreationDate(epoch);
  doc.setModificationDate(epoch);
  doc.setTitle("Dense Probe Paper on Memory for Agents");
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  const bold = await doc.embedFont(StandardFonts.TimesRomanBold);
  let para = 0;
  const ascii = (s: string) => s.replace(/[^\x20-\x7e]/g, "?");
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([612, 792]);
    let y = 740;
    page.drawText(`${p + 1} Section ${p + 1}`, { x: 54, y, size: 12, font: bold });
    y -= 18;
    while (y > 60) {
      const words = ascii(c.paragraphs[para++ % c.paragraphs.length]?.text ?? "").split(" ");
      let line = "";
      for (const w of words) {
        const next = line ? `${line} ${w}` : w;
        if (font.widthOfTextAtSize(next, 10) > 504) {
          page.drawText(line, { x: 54, y, size: 10, font });
          y -= 12;
          line = w;
          if (y <= 60) break;
        } else line = next;
      }
      if (y > 60 && line) {
        page.drawText(line, { x: 54, y, size: 10, font });
        y -= 18;
      }
    }
  }
  return doc.save({ useObjectStreams: false });
}

/** A TypeScript module of ~1 KB with three exported functions and a class (as scripts/hold-time.ts). */
function tsModule(i: number, n: number): string {
  return [
    `import { helper${(i + 1) % n} } from "./mod${(i + 1) % n}";`,
    "",
    `/** Scores the ${i}th shard's candidates by recency and mass. */`,
    `export function score${i}(mass: number, age: number): number {`,
    "  const decay = Math.exp(-age / 86_400_000);",
    "  return mass * decay;",
    "}",
    "",
    `export function helper${i}(ids: string[]): Map<string, number> {`,
    "  const out = new Map<string, number>();",
    "  for (const [k, id] of ids.entries()) out.set(id, k);",
    "  return out;",
    "}",
    "",
    `export async function load${i}(key: string): Promise<string | null> {`,
    `  return key.length > ${i % 97} ? key : null;`,
    "}",
    "",
    `export class Shard${i} {`,
    "  private heads: number[] = [];",
    "  add(x: number): void {",
    "    this.heads.push(x);",
    "  }",
    "}",
    "",
  ].join("\n");
}

/**
 * A ProjectGuard archive (as scripts/hold-time.ts builds it): `records` designs and decisions (to be
 * committed) and `codeUnits` TypeScript modules implementing them and depending on each other.
 */
export function projectArtifacts(codeUnits: number, records = 40) {
  const artifacts: Array<{
    id: string;
    kind: "design" | "decision" | "code_unit";
    title: string;
    content: string;
    valid_from: string;
    edges?: Array<{ type: "part-of" | "implements" | "depends-on"; target: string }>;
  }> = [];
  for (let i = 0; i < records; i++) {
    const design = i % 4 === 0;
    artifacts.push({
      id: `${design ? "design" : "decision"}:${i}`,
      kind: design ? "design" : "decision",
      title: `${design ? "Design" : "Decision"} ${i}`,
      content: `Commitment ${i}: shards keep heads in memory and snapshot them every 1,000 changes.`,
      valid_from: "2024-01-01",
      ...(design ? {} : { edges: [{ type: "part-of" as const, target: `design:${i - (i % 4)}` }] }),
    });
  }
  for (let i = 0; i < codeUnits; i++) {
    const d = (i % (records - 1)) + 1;
    artifacts.push({
      id: `repo/src/mod${i}.ts`,
      kind: "code_unit",
      title: `mod${i}.ts`,
      content: tsModule(i, codeUnits),
      valid_from: "2024-01-01",
      edges: [
        { type: "implements", target: `decision:${d - (d % 4 === 0 ? 1 : 0)}` },
        { type: "depends-on", target: `repo/src/mod${(i + 1) % codeUnits}.ts` },
      ],
    });
  }
  return artifacts;
}

/**
 * An xKG paper of `techniques` techniques (as scripts/lib/xkg-fixture.ts: code and a test each)
 * citing `refs` works: the corpus's bibliography entries, each made unique.
 */
export function xkgWithReferences(c: Corpus, techniques: number, refs: number): string {
  return JSON.stringify({
    paper_title: "Discovering Latent Knowledge in Language Models Without Supervision",
    paper_abstract: "We find latent knowledge inside the internal activations of a language model, unsupervised.",
    arxiv_id: "2212.03827",
    paper_references: Array.from({ length: refs }, (_, i) =>
      i % 2
        ? `A study of latent representations number ${i} in large language models`
        : `${c.references[i % c.references.length]} [${i}]`,
    ),
    findings: ["CCS Outperforms Zero-Shot Prompting: accuracy improves by 4% on average."],
    techniques: Array.from({ length: techniques }, (_, i) => ({
      name: `T${i}`,
      description: "Scales x.",
      code: { implementation: `def f${i}(x): return ${i} * x`, test: `assert f${i}(1) == ${i}` },
    })),
  });
}
