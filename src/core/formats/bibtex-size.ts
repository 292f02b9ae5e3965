/**
 * What a BibTeX file costs to parse, measured before the parser sees it.
 *
 * @retorquere/bibtex-parser joins every @string, @preamble and field value into a string with its
 * macros expanded, then decodes each one's LaTeX (about 2,300 ms of CPU per MB; CPU_MS_PER_MB.bibtex).
 * Macros compound: `@string{a1 = a0 # a0}` doubles a0, so `a0 = "xx"` and 23 such lines (a file of
 * 556 bytes) make a23 2^24 = 16,777,216 characters, which held an import request 91 s. The parser also
 * restarts one character after every syntax error and scans on from there, and builds each error's
 * location from the input's start, so a file of repeated unterminated values costs O(n^2): 160,000
 * characters of `@a{k,t={` took 4.6 s.
 *
 * measureBibtex follows the parser's grammar (src: its verbatim.js; the same tokens, the same
 * restarts) but keeps lengths instead of strings: a value's length is the sum of its parts (a braced
 * or quoted literal, a number, a macro's length at that point of the file; an unknown name becomes
 * `{{name}}`). A @string defined twice takes its new length from there on, as in the parser, so
 * definitions are read in file order and no macro refers to one not yet read: cycles cannot loop.
 * It stops at the first value over `cap` (which it names) and after `maxSteps` characters scanned
 * (restarts and error locations included), so it is linear in the input and sums stay exact
 * (at most `steps * cap`, far below 2^53); additions saturate at Number.MAX_SAFE_INTEGER anyway.
 */
import { fail, ok, type Result } from "../errors";
import { CPU_BUDGET_MS, cpuBudgetChars, withinCpuBudget } from "../limits";

/**
 * The most characters one value may expand to. The parser's LaTeX decoding grows faster than the
 * length of one value (Node 20, 2-core development machine under load: one field of 100,000
 * characters 1.1 s, 200,000 4.7 s, 400,000 22.6 s), so the per-request budget (869,565 characters)
 * is no bound for one value: at 100,000 one value takes about 1 s. Abstracts are ~1,000-5,000.
 */
export const BIBTEX_MAX_VALUE_CHARS = 100_000;

/**
 * The most characters the parser may scan, restarts after syntax errors and error locations
 * included: 40 per character of the per-request budget (34.8 million). Measured at about 8 ns per
 * such step in the parser (Node 20, 2-core development machine: 20,000 errors over 60,000 characters,
 * 6.3 s for ~8e8 steps), this adds at most ~0.3 s to a request. A well-formed file scans each
 * character about once; every syntax error adds its position (the parser locates it from line 1), so
 * a file at the budget still parses with ~80 broken entries.
 */
export const BIBTEX_MAX_SCAN_STEPS = 40 * cpuBudgetChars("bibtex");

/** The parser's built-in macros (verbatim.js default_strings): month numbers and journal names. */
const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
/** The full month names (MAY is in MONTHS). */
const MONTH_NAMES = "JANUARY FEBRUARY MARCH APRIL JUNE JULY AUGUST SEPTEMBER OCTOBER NOVEMBER DECEMBER".split(" ");
const monthNumber = (m: string) => String(MONTHS.indexOf(m.slice(0, 3)) + 1).padStart(2, "0");
const BUILTIN_TEXT = new Map<string, string>([
  ...[...MONTHS, ...MONTH_NAMES].map((m): [string, string] => [m, monthNumber(m)]),
  ...Object.entries({
    ACMCS: "ACM Computing Surveys",
    ACTA: "Acta Informatica",
    CACM: "Communications of the ACM",
    IBMJRD: "IBM Journal of Research and Development",
    IBMSJ: "IBM Systems Journal",
    IEEESE: "IEEE Transactions on Software Engineering",
    IEEETC: "IEEE Transactions on Computers",
    IEEETCAD: "IEEE Transactions on Computer-Aided Design of Integrated Circuits",
    IPL: "Information Processing Letters",
    JACM: "Journal of the ACM",
    JCSS: "Journal of Computer and System Sciences",
    SCP: "Science of Computer Programming",
    SICOMP: "SIAM Journal on Computing",
    TOCS: "ACM Transactions on Computer Systems",
    TODS: "ACM Transactions on Database Systems",
    TOG: "ACM Transactions on Graphics",
    TOMS: "ACM Transactions on Mathematical Software",
    TOOIS: "ACM Transactions on Office Information Systems",
    TOPLAS: "ACM Transactions on Programming Languages and Systems",
    TCS: "Theoretical Computer Science",
  }),
]);
const BUILTIN = new Map<string, number>([...BUILTIN_TEXT].map(([k, v]): [string, number] => [k, v.length]));

export interface BibtexSize {
  /** Characters of every @string, @preamble and field value, expanded (what the parser decodes). */
  expanded: number;
  /** The first value, in file order, that expands past the cap: `@string a19`, `field title of @misc{x}`. */
  over: { what: string; chars: number } | null;
  /** True when the scan stopped at maxSteps. */
  tooManySteps: boolean;
  /** Syntax errors the parser will meet (each one restarts it). */
  errors: number;
  /** The macro whose uses add the most characters: those characters, over that many uses. */
  heaviest: { name: string; chars: number; uses: number } | null;
  /** Expanded length of each @string macro this text defines (upper-cased name), at its end. */
  macros: Map<string, number>;
  /** The macros (defined here or given) that values use, as first written, in order of first use. */
  used: string[];
  /** Value parts read (literals, numbers, macro uses): at most one per input character. */
  parts: number;
  /** Characters scanned, restarts and error locations included. */
  steps: number;
}

export interface MeasureOptions {
  /** Largest length of one value (default BIBTEX_MAX_VALUE_CHARS). */
  cap?: number;
  /** Largest number of scan steps (default BIBTEX_MAX_SCAN_STEPS). */
  maxSteps?: number;
  /** Macros defined before this text (a piece carries its file's @string lines; the CLI measures entries alone). */
  macros?: ReadonlyMap<string, number>;
}

const add = (a: number, b: number) => Math.min(a + b, Number.MAX_SAFE_INTEGER);

/** Thrown for what the parser throws a ParsingError for; one object, no stack trace per error. */
const SYNTAX = new Error("BibTeX syntax error");
/** Thrown to stop the scan (a value over the cap, or the step limit). */
const STOP = new Error("BibTeX measurement stopped");

const LETTER = /[\p{Lu}\p{Lt}\p{Ll}\p{Lm}\p{Lo}]/u;
const KEY_ASCII = /[+'a-zA-Z0-9&;_:\\./-]/;

function isKeyChar(c: string, allow: string): boolean {
  return KEY_ASCII.test(c) || LETTER.test(c) || (allow !== "" && allow.includes(c));
}

/** A top-level item of the file as the parser reads it: from its `@` to the next item's. */
interface Item {
  start: number;
  kind: "string" | "preamble" | "comment" | "entry";
  /** Characters of values it expands to. */
  chars: number;
}

/** A command a value registers when the parser decodes it (its `newcommands`, kept across entries). */
const REGISTERS = /newcommand|ProvideTextCommandDefault/;

/**
 * What planBibtexPieces needs from a scan: the items, the raw (expanded, undecoded) value of every
 * macro, the macro state at each cut, and why a file cannot be cut (a hazard).
 */
class PieceCollector {
  readonly items: Item[] = [];
  readonly raw = new Map<string, string>();
  readonly cuts: Array<{ item: number; strings: Record<string, string> }> = [];
  hazards: string[] = [];
  partText = "";
  partBackslash = false;
  partMacro = false;
  valueText = "";
  valueMacro = false;
  private chars = 0;
  private expandedAt = 0;

  constructor(readonly target: number) {}

  hazard(why: string): void {
    if (!this.hazards.includes(why)) this.hazards.push(why);
  }

  /** An item starts at `start`: a cut goes before it once the piece so far holds `target` characters. */
  begin(_start: number, expanded: number): void {
    if (this.chars >= this.target && this.items.length > 0) {
      this.cuts.push({ item: this.items.length, strings: Object.fromEntries(this.raw) });
      this.chars = 0;
    }
    this.expandedAt = expanded;
  }

  end(sc: Scanner, start: number): void {
    const kind =
      sc.parsing === "string" || sc.parsing === "preamble" || sc.parsing === "comment" ? sc.parsing : "entry";
    const chars = sc.expanded - this.expandedAt;
    this.chars += Math.max(chars, sc.pos - start);
    if (kind !== "preamble" && REGISTERS.test(sc.input.slice(start, sc.pos)))
      this.hazard("a value outside @preamble defines a command");
    this.items.push({ start, kind, chars });
  }
}

class Scanner {
  pos = 0;
  steps = 0;
  parts = 0;
  errors = 0;
  expanded = 0;
  over: { what: string; chars: number } | null = null;
  tooManySteps = false;
  parsing = "";
  citeKey = "";
  preambles = 0;
  /** Distinct unknown macro names (the parser lists one error per name). */
  readonly unresolved = new Set<string>();
  readonly macros = new Map<string, number>();
  /** Macros defined before the text (not copied: a lookup falls back to them). */
  readonly base: ReadonlyMap<string, number> | undefined;
  readonly uses = new Map<string, { name: string; chars: number; uses: number }>();
  /** Set to plan pieces (planBibtexPieces): what the fields below collect. */
  pieces: PieceCollector | null = null;

  constructor(
    readonly input: string,
    readonly cap: number,
    readonly maxSteps: number,
    macros: ReadonlyMap<string, number> | undefined,
  ) {
    this.base = macros;
  }

  /** With `pieces`: the text of the value part just read, and whether it holds a backslash. */
  part(text: string, macro: boolean): void {
    const c = this.pieces;
    if (!c) return;
    c.partText = this.parsing === "string" ? text : "";
    c.partBackslash = text.includes("\\");
    c.partMacro = macro;
  }

  step(n = 1): void {
    this.steps += n;
    if (this.steps > this.maxSteps) {
      this.tooManySteps = true;
      throw STOP;
    }
  }

  skipWhitespace(): void {
    const s = this.input;
    while (this.pos < s.length) {
      const c = s[this.pos];
      if (c === "%") {
        while (this.pos < s.length && s[this.pos] !== "\n") {
          this.pos++;
          this.step();
        }
      } else if (c === " " || c === "\t" || c === "\r" || c === "\n") {
        this.pos++;
        this.step();
      } else return;
    }
  }

  tryMatch(c: string, consume = false): boolean {
    this.skipWhitespace();
    const m = this.input[this.pos] === c;
    if (m && consume) this.pos++;
    return m;
  }

  match(c: string, sws = true): void {
    this.skipWhitespace();
    if (this.input[this.pos] !== c) throw SYNTAX;
    this.pos++;
    if (sws) this.skipWhitespace();
  }

  key(allow = ""): string {
    const start = this.pos;
    const s = this.input;
    for (;;) {
      if (this.pos === s.length) throw SYNTAX;
      if (!isKeyChar(s[this.pos] as string, allow)) return s.substring(start, this.pos);
      this.pos++;
      this.step();
    }
  }

  /**
   * A `{...}` or `"..."` literal's length (verbatim.js value_braces and value_quotes): a backslash
   * skips the next character and braces nest; a braced literal ends at the `}` closing its `{` and
   * fails when a `$` is left open, a quoted one at a `"` outside braces.
   */
  literal(open: "{" | '"'): number {
    this.match(open, false);
    const s = this.input;
    const start = this.pos;
    let depth = 0;
    let math = false;
    for (;;) {
      switch (s[this.pos]) {
        case "\\":
          this.pos += 1;
          break;
        case "{":
          depth++;
          break;
        case "}":
          if (open === "{" && depth === 0) {
            if (math) throw SYNTAX;
            this.pos++;
            return this.pos - 1 - start;
          }
          depth--;
          break;
        case '"':
          if (open === '"' && depth <= 0) {
            this.pos++;
            return this.pos - 1 - start;
          }
          break;
        case "$":
          math = !math;
          break;
      }
      this.pos++;
      this.step();
      if (this.pos >= s.length) throw SYNTAX;
    }
  }

  single(): number {
    this.parts++;
    const open = this.tryMatch("{") ? "{" : this.tryMatch('"') ? '"' : null;
    if (open) {
      const n = this.literal(open);
      if (this.pieces) this.part(this.input.substring(this.pos - 1 - n, this.pos - 1), false);
      return n;
    }
    const bare = this.key();
    if (/^\d+$/.test(bare)) {
      this.part(bare, false);
      return bare.length;
    }
    const name = bare.toUpperCase();
    // verbatim.js: `this.strings[name] || default_strings[name]`, else an error and `{{name}}`.
    const own = this.macros.get(name) ?? this.base?.get(name);
    const resolved = own ? own : BUILTIN.get(name);
    if (own) {
      const u = this.uses.get(name) ?? { name: bare, chars: 0, uses: 0 };
      u.chars = add(u.chars, own);
      u.uses++;
      this.uses.set(name, u);
    }
    if (this.pieces)
      this.part(own ? (this.pieces.raw.get(name) ?? "") : (BUILTIN_TEXT.get(name) ?? `{{${bare}}}`), true);
    if (resolved !== undefined) return resolved;
    // The parser records the error unless an equal message is already in its list (a linear search).
    this.unresolved.add(name);
    this.step(this.errors + this.unresolved.size);
    return bare.length + 4;
  }

  value(): number {
    const c = this.pieces;
    let n = this.single();
    let text = c ? c.partText : "";
    let parts = 1;
    let backslash = c ? c.partBackslash : false;
    let macro = c ? c.partMacro : false;
    while (this.tryMatch("#")) {
      this.match("#");
      n = add(n, this.single());
      if (!c) continue;
      text += c.partText;
      parts++;
      backslash ||= c.partBackslash;
      macro ||= c.partMacro;
    }
    if (c) {
      c.valueText = text;
      c.valueMacro = macro;
      // `"\new" # "command"` spells a command no single part holds (see planBibtexPieces).
      if (parts > 1 && backslash && this.parsing !== "preamble")
        c.hazard("a value joins a part with a backslash to another");
    }
    return n;
  }

  /** One value is materialised: count it, and stop at the first one over the cap. */
  counted(what: () => string, chars: number): void {
    this.expanded = add(this.expanded, chars);
    if (chars > this.cap) {
      this.over = { what: what(), chars };
      throw STOP;
    }
  }

  keyEqualsValue(given = ""): void {
    const key = given || this.key();
    if (!key) return;
    if (!this.tryMatch("=")) throw SYNTAX;
    this.match("=");
    const chars = this.value();
    if (this.parsing === "string") {
      this.counted(() => `@string ${key}`, chars);
      this.macros.set(key.toUpperCase(), chars);
      if (this.pieces) {
        const name = key.toUpperCase();
        // The parser decodes each macro's last value before any entry; a piece decodes the value
        // its own definition gives, so a macro defined twice is decoded twice, differently.
        if (this.pieces.raw.has(name)) this.pieces.hazard("an @string is defined twice");
        this.pieces.raw.set(name, this.pieces.valueText);
        if (chars === 0) this.pieces.hazard("an @string is defined empty");
      }
    } else {
      this.counted(() => `field ${key.toLowerCase()} of @${this.parsing}{${this.citeKey.slice(0, 100)}}`, chars);
      if (this.pieces && key.toLowerCase() === "crossref") this.pieces.hazard("an entry inherits through crossref");
    }
  }

  matchGuard(): string {
    if (this.tryMatch("{")) {
      this.match("{");
      return "}";
    }
    if (this.tryMatch("(")) {
      this.match("(");
      return ")";
    }
    throw SYNTAX;
  }

  entry(guard: string): void {
    if (this.tryMatch(guard)) return;
    const key = this.tryMatch(",") ? "" : this.key('[]*"');
    if (this.tryMatch("=")) this.keyEqualsValue(key);
    else this.citeKey = key;
    this.tryMatch(",", true);
    if (this.tryMatch(guard)) return;
    this.keyEqualsValue();
    while (this.tryMatch(",", true)) {
      if (this.tryMatch(guard)) return;
      this.keyEqualsValue();
    }
  }

  next(): void {
    const s = this.input;
    this.skipWhitespace();
    while (this.pos < s.length && s[this.pos] !== "@") {
      if (s[this.pos] === "%") this.skipWhitespace();
      else {
        this.pos++;
        this.step();
      }
    }
    if (this.pos >= s.length) return;
    const start = this.pos;
    this.pieces?.begin(start, this.expanded);
    try {
      this.match("@");
      const d = this.key().toLowerCase();
      this.parsing = d;
      this.citeKey = "";
      if (d === "string") {
        const guard = this.matchGuard();
        this.keyEqualsValue();
        this.match(guard);
      } else if (d === "preamble") {
        const n = ++this.preambles;
        this.counted(() => `@preamble number ${n}`, this.value());
        if (this.pieces?.valueMacro) this.pieces.hazard("a @preamble uses a macro");
      } else if (d === "comment") {
        while (s[this.pos] === " " || s[this.pos] === "\t") {
          this.pos++;
          this.step();
        }
        if (s[this.pos] === "{") this.literal("{");
        else
          while (this.pos < s.length && s[this.pos] !== "\n") {
            this.pos++;
            this.step();
          }
      } else {
        const guard = this.matchGuard();
        this.entry(guard);
        this.match(guard);
      }
    } catch (e) {
      if (e !== SYNTAX) throw e;
      // The parser locates the error from the input's start and compares it with every earlier
      // error, then resumes at the next `@` after this one's.
      this.errors++;
      this.step(this.pos + this.errors);
      this.pos = start + 1;
      while (this.pos < s.length && s[this.pos] !== "@") {
        this.pos++;
        this.step();
      }
    }
    this.pieces?.end(this, start);
  }

  run(): void {
    try {
      while (this.pos < this.input.length) this.next();
    } catch (e) {
      if (e !== STOP) throw e;
    }
  }
}

/** Measure what parsing `text` expands to, in one linear pass (see the module comment). */
export function measureBibtex(text: string, opts: MeasureOptions = {}): BibtexSize {
  const sc = new Scanner(text, opts.cap ?? BIBTEX_MAX_VALUE_CHARS, opts.maxSteps ?? BIBTEX_MAX_SCAN_STEPS, opts.macros);
  sc.run();
  let heaviest: BibtexSize["heaviest"] = null;
  for (const u of sc.uses.values()) if (!heaviest || u.chars > heaviest.chars) heaviest = u;
  return {
    expanded: sc.expanded,
    over: sc.over,
    tooManySteps: sc.tooManySteps,
    errors: sc.errors,
    heaviest,
    macros: sc.macros,
    used: [...sc.uses.values()].map((u) => u.name),
    parts: sc.parts,
    steps: sc.steps,
  };
}

const fmt = (n: number) => n.toLocaleString("en-US");

/**
 * Refuse BibTeX whose parse would exceed the request's CPU budget, before parsing: a value over
 * BIBTEX_MAX_VALUE_CHARS (named), expanded values over the budget (naming the macro that adds the
 * most), or more than BIBTEX_MAX_SCAN_STEPS of rescanning after syntax errors. 413 `too_large`.
 */
export function bibtexWithinBudget(
  text: string,
  field = "text",
  macros?: ReadonlyMap<string, number>,
): Result<BibtexSize> {
  const m = measureBibtex(text, macros ? { macros } : {});
  if (m.over)
    return fail(
      "too_large",
      `${m.over.what} expands to ${fmt(m.over.chars)} characters; one BibTeX value may expand to at most ${fmt(BIBTEX_MAX_VALUE_CHARS)} (what one request may parse within its ${fmt(CPU_BUDGET_MS)} ms CPU budget)`,
      field,
      "write the value out, or define the macro without repeating other macros (`a # a` doubles a)",
    );
  if (m.tooManySteps)
    return fail(
      "too_large",
      `this BibTeX file has ${fmt(m.errors)}+ syntax errors, and the parser rescans the file after each one: over ${fmt(BIBTEX_MAX_SCAN_STEPS)} characters of scanning, more than one request's ${fmt(CPU_BUDGET_MS)} ms CPU budget`,
      field,
      "fix the unbalanced braces or quotes (the first broken entry swallows the rest of the file), or send fewer entries per request",
    );
  const heavy = m.heaviest && m.heaviest.chars > 0 ? m.heaviest : null;
  const budget = withinCpuBudget(
    [["bibtex", Math.max(text.length, m.expanded)]],
    `parsing this BibTeX file (its values expand to ${fmt(m.expanded)} characters${heavy ? `, ${fmt(heavy.chars)} of them from ${fmt(heavy.uses)} uses of @string ${heavy.name}` : ""})`,
    field,
    "send fewer entries per request (`npx paperguru import` splits files), or use shorter macros",
  );
  return budget.ok ? ok(m) : budget;
}

/** One piece of a BibTeX file to parse on its own: its text and the macros defined before it. */
export interface BibtexPiece {
  text: string;
  /** The file's @string macros at the piece's start, as the parser's `strings` option takes them. */
  strings: Record<string, string>;
}

/**
 * Characters of expanded values per piece: about 45 ms of the parser (CPU_MS_PER_MB.bibtex) on the
 * development machine, so a file is parsed in slices short enough to let other requests in.
 */
export const BIBTEX_PIECE_CHARS = 20_000;

/**
 * Cut a BibTeX file into pieces that the parser reads exactly as it reads the whole file, so that
 * parsing them one after the other (with pauses between) gives the same entries, errors and macros.
 * Pieces are cut before an item (an `@`-directive where the parser starts one); each piece carries
 * the raw values of the macros defined before it (the `strings` option) and the file's @preamble
 * items (whose commands the parser registers before reading any entry); its own @preambles are left
 * out so they register in file order. Returns the reason instead when the whole file must be parsed
 * at once: syntax errors (their messages name a line of the whole file, and a broken value reads
 * on past the cut), crossref inheritance (across pieces), a command defined outside a @preamble or
 * spelled by joining parts (the parser keeps it for later entries), a @preamble that uses a macro,
 * an @string defined empty (the parser then falls back to its built-in value of that name, which a
 * piece's `strings` would hide) or twice (the parser decodes only the last value), or a value over
 * the budget. One piece when the file is small.
 */
export function planBibtexPieces(
  text: string,
  target = BIBTEX_PIECE_CHARS,
): { pieces: BibtexPiece[] } | { whole: string } {
  const sc = new Scanner(text, BIBTEX_MAX_VALUE_CHARS, BIBTEX_MAX_SCAN_STEPS, undefined);
  const c = new PieceCollector(target);
  sc.pieces = c;
  sc.run();
  if (sc.over || sc.tooManySteps) return { whole: "over the budget" };
  if (sc.errors > 0) return { whole: "syntax errors" };
  if (c.hazards.length > 0) return { whole: c.hazards.join("; ") };
  if (c.cuts.length === 0) return { pieces: [{ text, strings: {} }] };
  const span = (i: number) => text.slice(c.items[i]?.start ?? text.length, c.items[i + 1]?.start ?? text.length);
  let preambles = "";
  for (const [i, item] of c.items.entries()) if (item.kind === "preamble") preambles += span(i);
  const bounds = [{ item: 0, strings: {} as Record<string, string> }, ...c.cuts];
  const pieces: BibtexPiece[] = [];
  for (const [k, b] of bounds.entries()) {
    const to = bounds[k + 1]?.item ?? c.items.length;
    let body = "";
    for (let i = b.item; i < to; i++) if (c.items[i]?.kind !== "preamble") body += span(i);
    pieces.push({ text: preambles + body, strings: b.strings });
  }
  return { pieces };
}
