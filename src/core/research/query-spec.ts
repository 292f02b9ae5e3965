/**
 * Paper Circle's structured query spec (seed 004, §3.2 and F: "returns structured search
 * specifications"): the keywords, required and negative terms, related terms, plausible titles and
 * year range a query asks for. Built by rules (pure, deterministic); a language model may propose
 * one through the model port, which is verified (verifyModelSpec) and merged with the rules' spec,
 * never trusted as is.
 *
 * Rules:
 * - required: "double-quoted phrases" and `+term`;
 * - negative: `-term`, `-"phrase"`, `NOT term`, and the word after `without`, `excluding`, `except`;
 * - years: `2019-2023` / `2019–2023` (a range), `since|after|from 2020` (year_from; `after` is
 *   exclusive), `before|until 2020` (year_to; `before` is exclusive), a lone 4-digit year 1900-2099
 *   (both bounds);
 * - keywords: the remaining words (letters or digits, ≥ 2 characters), lowercased, without stop
 *   words and the search-request words of FILLER, in order, at most MAX_TERMS; required phrases
 *   are not repeated as keywords;
 * - related: each keyword's acronym expansion or acronym (the ACRONYMS table), the hyphenated
 *   pairs written apart and joined, and the singular of a plural keyword (trailing `s`, not `ss`);
 * - titles: the positive phrase in title case, and the same with ": A Survey" and "Towards " —
 *   the shapes titles of the kind take, not claims that such papers exist.
 * `search` is the positive text sent to search engines: required phrases quoted, then keywords.
 */
import { STOPWORDS } from "../text/analyze";

export const MAX_TERMS = 16;
export const MAX_TITLES = 5;
/** Longest term and title a spec holds (characters). */
export const MAX_TERM_CHARS = 80;
export const MAX_TITLE_CHARS = 300;

export interface QuerySpec {
  query: string;
  search: string;
  keywords: string[];
  required: string[];
  negative: string[];
  related: string[];
  titles: string[];
  year_from: number | null;
  year_to: number | null;
  /** rules: built by the rules alone; model: the model's verified proposal merged with them. */
  built_by: "rules" | "model";
  /** Why a configured model's proposal was not used (null when it was, or no model was asked). */
  model_note: string | null;
}

/** Words of a search request that are not about the topic. */
const FILLER = new Set([
  "paper",
  "papers",
  "find",
  "show",
  "search",
  "recent",
  "latest",
  "new",
  "work",
  "works",
  "articles",
  "article",
  "publications",
  "studies",
  "research",
  "about",
  "related",
  "please",
  "me",
  "list",
  "looking",
  "want",
  "need",
  "any",
  "some",
]);

/** Common acronyms of computing research and their expansions (both directions are related). */
export const ACRONYMS: Readonly<Record<string, string>> = {
  llm: "large language model",
  llms: "large language models",
  rag: "retrieval augmented generation",
  nlp: "natural language processing",
  gnn: "graph neural network",
  gnns: "graph neural networks",
  rl: "reinforcement learning",
  rlhf: "reinforcement learning from human feedback",
  kg: "knowledge graph",
  qa: "question answering",
  ir: "information retrieval",
  cv: "computer vision",
  vit: "vision transformer",
  mas: "multi agent system",
  ppr: "personalized pagerank",
  mmr: "maximal marginal relevance",
  bm25: "best matching 25",
  asr: "automatic speech recognition",
  mt: "machine translation",
  ner: "named entity recognition",
};

const EXPANSIONS = new Map(Object.entries(ACRONYMS).map(([a, e]) => [e, a]));

const clean = (s: string) => s.replace(/\s+/g, " ").trim();
const uniq = (xs: string[]) => [...new Set(xs.map((x) => clean(x)).filter(Boolean))];
const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu) ?? [];

function titleCase(s: string): string {
  const small = new Set(["a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with"]);
  return s
    .split(" ")
    .map((w, i) => (i > 0 && small.has(w) ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join(" ");
}

/** The query read by the rules (see the module comment). */
export function rulesSpec(query: string): QuerySpec {
  let rest = ` ${query.replace(/[\u201c\u201d]/g, '"')} `;
  const required: string[] = [];
  const negative: string[] = [];
  let yearFrom: number | null = null;
  let yearTo: number | null = null;
  rest = rest.replace(/(^|\s)-"([^"]+)"/g, (_m, pre: string, p: string) => {
    negative.push(p.toLowerCase());
    return pre;
  });
  rest = rest.replace(/(^|\s)\+?"([^"]+)"/g, (_m, pre: string, p: string) => {
    required.push(p.toLowerCase());
    return pre;
  });
  rest = rest.replace(/(^|\s)-([\p{L}\p{N}][\p{L}\p{N}-]*)/gu, (_m, pre: string, w: string) => {
    negative.push(w.toLowerCase());
    return pre;
  });
  rest = rest.replace(/(^|\s)\+([\p{L}\p{N}][\p{L}\p{N}-]*)/gu, (_m, pre: string, w: string) => {
    required.push(w.toLowerCase());
    return pre;
  });
  rest = rest.replace(/\b(?:NOT|without|excluding|except)\s+([\p{L}\p{N}][\p{L}\p{N}-]*)/gu, (_m, w: string) => {
    negative.push(w.toLowerCase());
    return " ";
  });
  rest = rest.replace(/\b((?:19|20)\d\d)\s*[-\u2013]\s*((?:19|20)\d\d)\b/g, (_m, a: string, b: string) => {
    yearFrom = Math.min(Number(a), Number(b));
    yearTo = Math.max(Number(a), Number(b));
    return " ";
  });
  rest = rest.replace(/\b(since|after|from|before|until)\s+((?:19|20)\d\d)\b/gi, (_m, w: string, y: string) => {
    const k = w.toLowerCase();
    if (k === "before") yearTo = Number(y) - 1;
    else if (k === "until") yearTo = Number(y);
    else yearFrom = k === "after" ? Number(y) + 1 : Number(y);
    return " ";
  });
  rest = rest.replace(/\b(?:in\s+)?((?:19|20)\d\d)\b/g, (m, y: string) => {
    if (yearFrom !== null || yearTo !== null) return m;
    yearFrom = yearTo = Number(y);
    return " ";
  });
  const inRequired = new Set(required.flatMap((r) => words(r)));
  const keywords = uniq(
    words(rest).filter((w) => w.length >= 2 && !STOPWORDS.has(w) && !FILLER.has(w) && !inRequired.has(w)),
  ).slice(0, MAX_TERMS);
  const related: string[] = [];
  const have = new Set([...keywords, ...required]);
  const text = ` ${[...required, ...keywords].join(" ")} `;
  for (const k of keywords) {
    const exp = ACRONYMS[k];
    if (exp) related.push(exp);
    if (k.includes("-")) related.push(k.replace(/-/g, " "), k.replace(/-/g, ""));
    if (/[^s]s$/.test(k) && k.length > 3) related.push(k.slice(0, -1));
  }
  for (const [e, a] of EXPANSIONS) if (text.includes(` ${e} `)) related.push(a);
  const phrase = clean([...required, ...keywords].join(" "));
  const titles = phrase
    ? uniq([titleCase(phrase), `${titleCase(phrase)}: A Survey`, `Towards ${titleCase(phrase)}`])
    : [];
  const negUniq = uniq(negative).slice(0, MAX_TERMS);
  return {
    query,
    search: searchText(uniq(required), keywords),
    keywords,
    required: uniq(required).slice(0, MAX_TERMS),
    negative: negUniq,
    related: uniq(related)
      .filter((r) => !have.has(r))
      .slice(0, MAX_TERMS),
    titles: titles.slice(0, MAX_TITLES),
    year_from: yearFrom,
    year_to: yearTo,
    built_by: "rules",
    model_note: null,
  };
}

function searchText(required: readonly string[], keywords: readonly string[]): string {
  return clean([...required.map((r) => (r.includes(" ") ? `"${r}"` : r)), ...keywords].join(" "));
}

/** The JSON Schema a model answers a spec in (the port's subset: object, array, string). */
export const QUERY_SPEC_SCHEMA = {
  type: "object",
  properties: {
    keywords: { type: "array", items: { type: "string" }, minItems: 1, maxItems: MAX_TERMS },
    required: { type: "array", items: { type: "string" }, maxItems: MAX_TERMS },
    negative: { type: "array", items: { type: "string" }, maxItems: MAX_TERMS },
    related: { type: "array", items: { type: "string" }, maxItems: MAX_TERMS },
    titles: { type: "array", items: { type: "string" }, maxItems: MAX_TITLES },
  },
  required: ["keywords", "required", "negative", "related", "titles"],
  additionalProperties: false,
} as const;

export const QUERY_SPEC_SYSTEM =
  "You turn a literature search request into a search specification. keywords: the topic's search terms. required: terms or phrases the request says must appear (quoted or marked +), copied from the request. negative: terms the request excludes (-term, NOT, without), copied from the request. related: synonyms, acronyms and expansions of the keywords. titles: up to 5 plausible titles of papers that would answer the request. Answer only with the JSON object.";

type Checked<T> = { ok: true; value: T } | { ok: false; why: string };

function stringList(v: unknown, field: string, max: number, maxChars: number): Checked<string[]> {
  if (!Array.isArray(v)) return { ok: false, why: `${field} is not an array` };
  if (v.length > max) return { ok: false, why: `${field} has ${v.length} entries; at most ${max}` };
  const out: string[] = [];
  for (const [i, x] of v.entries()) {
    if (typeof x !== "string") return { ok: false, why: `${field}[${i}] is not a string` };
    const s = clean(x);
    if (!s) return { ok: false, why: `${field}[${i}] is empty` };
    if (s.length > maxChars)
      return { ok: false, why: `${field}[${i}] has ${s.length} characters; at most ${maxChars}` };
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (/[\u0000-\u001f\u007f]/.test(s)) return { ok: false, why: `${field}[${i}] holds a control character` };
    out.push(s);
  }
  return { ok: true, value: out };
}

/**
 * A model's answer checked: every field a list of non-empty strings within the limits, at least one
 * keyword, and required and negative terms present in the query (a model may not add constraints
 * the user did not write). The verified spec keeps the rules' required, negative and year range,
 * adds the model's (lowercased), and takes its keywords, related terms and titles.
 */
export function verifyModelSpec(rules: QuerySpec, answer: unknown): Checked<QuerySpec> {
  if (typeof answer !== "object" || answer === null || Array.isArray(answer))
    return { ok: false, why: "the answer is not an object" };
  const a = answer as Record<string, unknown>;
  const fields = {} as Record<"keywords" | "required" | "negative" | "related" | "titles", string[]>;
  for (const f of ["keywords", "required", "negative", "related", "titles"] as const) {
    const r = stringList(
      a[f],
      f,
      f === "titles" ? MAX_TITLES : MAX_TERMS,
      f === "titles" ? MAX_TITLE_CHARS : MAX_TERM_CHARS,
    );
    if (!r.ok) return r;
    fields[f] = r.value;
  }
  if (fields.keywords.length === 0) return { ok: false, why: "keywords is empty" };
  const q = rules.query.toLowerCase();
  for (const f of ["required", "negative"] as const) {
    const bad = fields[f].find((t) => !q.includes(t.toLowerCase()));
    if (bad !== undefined) return { ok: false, why: `${f} term ${JSON.stringify(bad)} is not in the query` };
  }
  const negative = uniq([...rules.negative, ...fields.negative.map((t) => t.toLowerCase())]).slice(0, MAX_TERMS);
  const neg = new Set(negative);
  const keywords = uniq(fields.keywords.map((t) => t.toLowerCase()))
    .filter((k) => !neg.has(k))
    .slice(0, MAX_TERMS);
  if (keywords.length === 0) return { ok: false, why: "every keyword is a negative term" };
  const required = uniq([...rules.required, ...fields.required.map((t) => t.toLowerCase())]).slice(0, MAX_TERMS);
  return {
    ok: true,
    value: {
      ...rules,
      search: searchText(required, keywords),
      keywords,
      required,
      negative,
      related: uniq([...fields.related.map((t) => t.toLowerCase()), ...rules.related]).slice(0, MAX_TERMS),
      titles: uniq(fields.titles).slice(0, MAX_TITLES),
      built_by: "model",
      model_note: null,
    },
  };
}

/** The spec's terms a text is scored against: required, keywords and related terms. */
export function specTerms(spec: QuerySpec): string[] {
  return uniq([...spec.required, ...spec.keywords, ...spec.related]);
}

/** Whether a text holds a negative term (as a whole word or phrase, case-insensitive). */
export function hasNegative(spec: QuerySpec, text: string): boolean {
  if (spec.negative.length === 0) return false;
  const t = ` ${words(text).join(" ")} `;
  return spec.negative.some((n) => {
    const w = words(n).join(" ");
    return w !== "" && t.includes(` ${w} `);
  });
}

/** Whether a text holds every required term (as a whole word or phrase, case-insensitive). */
export function hasRequired(spec: QuerySpec, text: string): boolean {
  const t = ` ${words(text).join(" ")} `;
  return spec.required.every((r) => {
    const w = words(r).join(" ");
    return w === "" || t.includes(` ${w} `);
  });
}

/** Whether a year is inside the spec's range (an unknown year is, when a range is set, outside). */
export function inYears(spec: QuerySpec, year: number | null): boolean {
  if (spec.year_from === null && spec.year_to === null) return true;
  if (year === null) return false;
  return (spec.year_from === null || year >= spec.year_from) && (spec.year_to === null || year <= spec.year_to);
}
