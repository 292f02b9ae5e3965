/**
 * CPU cost per MB of input of each piece of request work the CPU budget estimates (src/core/limits.ts
 * CPU_MS_PER_MB): parsing each import format and planning an ingest, on generated inputs shaped like
 * real ones (BibTeX entries with abstracts, full-text JSONL, Markdown papers, feed JSON, OpenIE, xKG).
 * `npm run bench` records the figures next to the configured ones; a measured cost above the
 * configured one means the budget under-estimates on this machine.
 */
import { parseImport } from "../../src/app/intake/imports";
import { planIngest, prepareBatch } from "../../src/core/ingest";
import { CPU_MS_PER_MB, type CpuWork, cpuBudgetChars } from "../../src/core/limits";
import { rng } from "./synthetic";

const WORDS = (
  "memory retrieval agents graph passage query entity version anchor evidence context budget model " +
  "language learning training dataset benchmark recall precision baseline sparse dense index method " +
  "HippoRAG PageRank Transformer BERT the of and to in for with on by from that which improves shows " +
  "results section table figure equation paper authors propose evaluate compare long horizon tasks"
).split(" ");

function prose(words: number, seed: number): string {
  const r = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(`${WORDS[Math.floor(r() * WORDS.length)]}${i % 14 === 13 ? "." : ""}`);
  return out.join(" ");
}

function inputs(mb: number): Record<Exclude<CpuWork, "analyse">, string> {
  const size = mb * 1_000_000;
  let bib = "";
  for (let i = 0; bib.length < size; i++)
    bib += `@article{key${i},\n  title = {A Study of {Memory} ${i}},\n  author = {Lewis, Patrick and K{\\"u}ttler, Heinrich},\n  journal = {Advances in Neural Information Processing Systems},\n  volume = {33}, pages = {9459--9474}, year = {2020},\n  abstract = {${prose(120, i)}}\n}\n`;
  let ft = "";
  for (let i = 0; ft.length < size; i++)
    ft += `${JSON.stringify({ paper_id: `p${i}`, metadata: { title: `Paper ${i}`, year: 2020 }, body_text: Array.from({ length: 20 }, (_, k) => ({ text: prose(80, i * 31 + k), section: `S${k % 4}` })) })}\n`;
  let md = "# A Paper\n\n";
  for (let i = 0; md.length < size; i++) md += `## Section ${i}\n\n${prose(150, i)}\n\n`;
  const artifacts: unknown[] = [];
  let jsonLen = 0;
  // At most 2,000 artifacts per request (the feed's limit): 400 words each keeps 1 MB under it.
  for (let i = 0; jsonLen < size && i < 2000; i++) {
    const content = prose(400, i);
    artifacts.push({ id: `n${i}`, kind: "note", title: `Note ${i}`, content });
    jsonLen += content.length + 60;
  }
  const docs: unknown[] = [];
  let oieLen = 0;
  for (let i = 0; oieLen < size; i++) {
    const passage = prose(120, i);
    docs.push({
      idx: `d${i}`,
      passage,
      extracted_entities: ["memory"],
      extracted_triples: [["memory", "helps", "agents"]],
    });
    oieLen += passage.length + 80;
  }
  const techniques: unknown[] = [];
  let xLen = 0;
  for (let i = 0; xLen < size && i < 1900; i++) {
    const description = prose(100, i);
    techniques.push({
      name: `Technique ${i}`,
      description,
      code: { implementation: `def t${i}(x):\n    return x + ${i}\n` },
    });
    xLen += description.length + 80;
  }
  return {
    bibtex: bib,
    fulltext: ft,
    markdown: md,
    json: JSON.stringify({ artifacts }),
    openie: JSON.stringify({ docs }),
    xkg: JSON.stringify({ paper_title: "Synthetic Techniques", paper_abstract: prose(100, 1), techniques }),
  };
}

/** Measured ms per MB of each kind of work, with the configured figure beside it. */
export async function measureCpuCosts(mb = 1): Promise<Record<CpuWork, { measured: number; configured: number }>> {
  const out = {} as Record<CpuWork, { measured: number; configured: number }>;
  for (const [format, full] of Object.entries(inputs(mb)) as Array<[Exclude<CpuWork, "analyse">, string]>) {
    // BibTeX is refused past its per-request budget before it is parsed: measure a file within it,
    // cut at an entry boundary.
    const text =
      format === "bibtex" && full.length > cpuBudgetChars("bibtex") * 0.8
        ? full.slice(0, full.lastIndexOf("\n@", cpuBudgetChars("bibtex") * 0.8))
        : full;
    parseImport(format, text.slice(0, 20_000), "warm-up");
    const t0 = performance.now();
    const r = parseImport(format, text, "bench");
    const ms = performance.now() - t0;
    if (!r.ok) throw new Error(`${format}: ${r.error.message}`);
    out[format] = { measured: Math.round(ms / (text.length / 1e6)), configured: CPU_MS_PER_MB[format] };
  }
  const content = prose(300_000, 7);
  const batch = Array.from({ length: 10 }, (_, i) => ({
    id: `c${i}`,
    kind: "note" as const,
    title: `T${i}`,
    content: content.slice(i * 100_000, (i + 1) * 100_000),
  }));
  const chars = batch.reduce((s, a) => s + a.content.length, 0);
  const t0 = performance.now();
  const prepared = prepareBatch(batch);
  if (!prepared.ok) throw new Error(prepared.error.message);
  const existing = { chunks: new Map(), entities: new Set<string>(), aliases: new Set<string>() };
  await planIngest("bench", prepared.value, existing as never, Date.now(), async () => "");
  out.analyse = {
    measured: Math.round((performance.now() - t0) / (chars / 1e6)),
    configured: CPU_MS_PER_MB.analyse,
  };
  return out;
}
