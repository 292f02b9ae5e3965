/**
 * Identifier normalisation for the canonical entity universe (one id per paper, method, dataset).
 * Papers: DOI -> "doi:<lowercased doi>", arXiv -> "arxiv:<id without version suffix>",
 * OpenAlex -> "openalex:W<digits>". Other entities: "<type>:<slug of name>".
 */

/** Normalised form used as the alias-table key: NFKC, lowercase, punctuation -> single spaces. */
/** Letters NFKD does not decompose, written as people type them without the diacritic. */
const FOLD: Record<string, string> = {
  ß: "ss",
  æ: "ae",
  œ: "oe",
  ø: "o",
  ł: "l",
  đ: "d",
  ð: "d",
  þ: "th",
  ı: "i",
};

/**
 * The alias key a name is matched by: case, diacritics and punctuation folded, so "Paul Erdős",
 * "paul erdos" and "ERDŐS, Paul"... meet on "paul erdos" (word order is kept).
 */
export function normAlias(s: string): string {
  return s
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[ßæœøłđðþı]/g, (c) => FOLD[c] ?? c)
    .normalize("NFC")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The alias key before diacritics were folded (rows stored earlier keep it; lookups try both). */
export function normAliasUnfolded(s: string): string {
  return s
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** Both alias keys of a name (one when they agree): what a lookup of stored alias rows asks for. */
export function aliasKeys(s: string): string[] {
  const a = normAlias(s);
  const b = normAliasUnfolded(s);
  return a === b ? [a] : [a, b];
}

/** Id slugs keep their letters ("person:paul-erdős"): ids stay what they were before folding. */
export function slug(s: string): string {
  return normAliasUnfolded(s).replace(/ /g, "-");
}

const DOI_RE = /\b(10\.\d{4,9}\/[^\s"'<>]+)/i;
const TRAILING_DOI_PUNCT = new Set([".", ",", ";", ":", ")", "]"]);
// New-style (2007+) ids: YYMM.NNNN(N), optional vN. Old-style: archive(.subject)/YYMMNNN.
const ARXIV_NEW_RE = /^(\d{4}\.\d{4,5})(v\d+)?$/i;
const ARXIV_OLD_RE = /^([a-z-]+(?:\.[a-z]{2})?\/\d{7})(v\d+)?$/i;
const OPENALEX_RE = /^(?:https?:\/\/openalex\.org\/)?(W\d+)$/i;

function stripDoi(raw: string): string | null {
  const s = raw
    .trim()
    .replace(/^doi:\s*/i, "")
    .replace(/^https?:\/\/(dx\.)?doi\.org\//i, "");
  const m = DOI_RE.exec(s);
  if (!m?.[1]) return null;
  // Trailing sentence punctuation is never part of a DOI in running text (a backwards scan: the
  // regex /[.,;:)\]]+$/ retries from every dot of a long run, quadratic on "10.1/" + "." x n + "a").
  let end = m[1].length;
  while (end > 0 && TRAILING_DOI_PUNCT.has(m[1][end - 1] as string)) end--;
  return m[1].slice(0, end).toLowerCase();
}

function stripArxiv(raw: string): { id: string; version: number | null } | null {
  const s = raw
    .trim()
    .replace(/^arxiv:\s*/i, "")
    .replace(/^https?:\/\/(www\.)?arxiv\.org\/(abs|pdf)\//i, "")
    .replace(/\.pdf$/i, "");
  const m = ARXIV_NEW_RE.exec(s) ?? ARXIV_OLD_RE.exec(s);
  if (!m?.[1]) return null;
  const version = m[2] ? Number.parseInt(m[2].slice(1), 10) : null;
  return { id: m[1].toLowerCase(), version };
}

/**
 * Canonicalise a paper identifier written in any common form. Returns null when the string is
 * not a DOI, arXiv id or OpenAlex id.
 * "arXiv:2405.14831v2" -> "arxiv:2405.14831"; "https://doi.org/10.1145/X" -> "doi:10.1145/x";
 * "https://openalex.org/W2741809807" -> "openalex:W2741809807".
 */
export function canonicalPaperId(raw: string): string | null {
  const t = raw.trim();
  if (/^(doi:|https?:\/\/(dx\.)?doi\.org\/|10\.\d{4,9}\/)/i.test(t)) {
    const d = stripDoi(t);
    return d ? `doi:${d}` : null;
  }
  if (/^(arxiv:|https?:\/\/(www\.)?arxiv\.org\/)/i.test(t) || ARXIV_NEW_RE.test(t) || ARXIV_OLD_RE.test(t)) {
    const a = stripArxiv(t);
    return a ? `arxiv:${a.id}` : null;
  }
  const o = OPENALEX_RE.exec(t.replace(/^openalex:\s*/i, ""));
  if (o?.[1]) return `openalex:${o[1].toUpperCase()}`;
  return null;
}

/** The arXiv version suffix, if the identifier carries one ("2405.14831v3" -> 3). */
export function arxivVersion(raw: string): number | null {
  return stripArxiv(raw)?.version ?? null;
}

/**
 * Canonical entity id for an entity declared at ingest. Paper-like ids normalise through
 * canonicalPaperId; otherwise "<type>:<slug>" (an explicit "<type>:<x>" id is kept, slugged).
 */
export function canonicalEntityId(type: string, idOrName: string): string {
  const paper = canonicalPaperId(idOrName);
  if (paper) return paper;
  const m = /^([a-z_]+):(.+)$/i.exec(idOrName.trim());
  if (m?.[1] && m[2]) return `${m[1].toLowerCase()}:${slug(m[2])}`;
  return `${type}:${slug(idOrName)}`;
}

/** Find identifier mentions (DOI, arXiv, OpenAlex) in free text; returns canonical ids, deduplicated. */
export function findIdentifiers(text: string): Array<{ text: string; id: string }> {
  const out: Array<{ text: string; id: string }> = [];
  const seen = new Set<string>();
  const push = (t: string) => {
    const id = canonicalPaperId(t);
    if (id && !seen.has(id)) {
      seen.add(id);
      out.push({ text: t, id });
    }
  };
  for (const m of text.matchAll(/\b(?:doi:\s*|https?:\/\/(?:dx\.)?doi\.org\/)?10\.\d{4,9}\/[^\s"'<>,;{}]+/gi))
    push(m[0]);
  for (const m of text.matchAll(
    /\b(?:arxiv:\s*|https?:\/\/(?:www\.)?arxiv\.org\/(?:abs|pdf)\/)?\d{4}\.\d{4,5}(?:v\d+)?\b/gi,
  ))
    push(m[0]);
  for (const m of text.matchAll(/\barxiv:\s*[a-z-]+(?:\.[a-z]{2})?\/\d{7}(?:v\d+)?\b/gi)) push(m[0]);
  for (const m of text.matchAll(/\b(?:https?:\/\/openalex\.org\/|openalex:\s*)?W\d{6,}\b/g)) push(m[0]);
  return out;
}

/** Words a title may lead with before a colon that name no system ("Survey: ...", "Part II: ..."). */
const GENERIC_LEADS = new Set([
  "abstract",
  "addendum",
  "appendix",
  "chapter",
  "comment",
  "commentary",
  "corrigendum",
  "editorial",
  "erratum",
  "introduction",
  "keynote",
  "note",
  "overview",
  "perspective",
  "position",
  "preface",
  "preprint",
  "reply",
  "review",
  "survey",
  "tutorial",
  "update",
]);
/** Longest leading name taken as an alias (system names: HippoRAG 8, S-Graphs+ 9, EuclidNets 10). */
const MAX_LEAD = 30;

/**
 * The name a title leads with before ":" when it looks like a coined system name: one token
 * (letters, digits and - + . ' inside), 2-30 characters, at least 2 letters, with an upper-case
 * letter or a digit after its first character ("HippoRAG", "RoBERTa", "S-Graphs+", "Clip4clip"; not
 * "Multimodal interaction", "Communication" nor "survey"), and not a generic word ("REVIEW"). Null
 * otherwise. Of the 1,525 paper titles of the unArXive archive, 25 give one, all of them names
 * (Clip4clip, SegMap, S-Graphs+, LeGO-LOAM, AiZynthFinder, JAX, Newton-X, ...).
 */
export function leadingName(title: string): string | null {
  const at = title.indexOf(":");
  if (at < 2 || at > MAX_LEAD + 2) return null;
  const lead = title.slice(0, at).trim();
  if (lead.length < 2 || lead.length > MAX_LEAD) return null;
  if (!/^[\p{L}\p{N}][\p{L}\p{N}+\-.'’]*$/u.test(lead)) return null;
  if ((lead.match(/\p{L}/gu) ?? []).length < 2) return null;
  // An upper-case letter or a digit after the first character: a coined name (HippoRAG, BERT,
  // Clip4clip), not a capitalised English word ("Communication: ...", "Retro: ...").
  if (!/[\p{Lu}\p{N}]/u.test(lead.slice(1))) return null;
  if (GENERIC_LEADS.has(lead.toLowerCase())) return null;
  return lead;
}
