/**
 * Repository files as `code_unit` artifacts: one chunk per file (id `gh:owner/repo/path`), its content
 * the exact file text, with public symbols, signatures, imports resolved against the known paths,
 * test mirrors and paper citations as edges; a README becomes a `note` linked to the paper it
 * describes. Pure: no I/O.
 */
import { extractImports, extractSymbols, type Language, languageOf, scanSource } from "../code/symbols";
import { LIMITS } from "../formats/common";
import { paperIdentity } from "../formats/paper";
import type { ImportPlan } from "../formats/types";
import { findIdentifiers } from "../ids";
import type { ArtifactInput, EdgeInput, EntityInput } from "../ingest";
import { whyNotIndexable } from "./github";
import { encodePath, fileChunkId, shorten } from "./github-common";
import { isReadme, type ReadmePaper, readmePaper } from "./readme";

/** Paper citations read from one file's comments: more is a bibliography, not an implementation. */
const MAX_PAPER_EDGES = 20;

/** Exported names listed in a derived synopsis (the head stays small: ~40 names ≈ 120 tokens). */
const SYNOPSIS_NAMES = 40;

// ---------------------------------------------------------------------------------------------
// Files -> code_unit artifacts

export interface CodeFile {
  path: string;
  /** The file's text at `commit`. */
  content: string;
  commit: string;
  /** epoch ms of the commit. */
  at: number;
}

const JS_EXTS = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".d.ts"];
/** TS ESM imports name the emitted file (`./x.js` for x.ts). */
const EMITTED: Record<string, string[]> = {
  ".js": [".ts", ".tsx"],
  ".jsx": [".tsx"],
  ".mjs": [".mts"],
  ".cjs": [".cts"],
};

function dirname(p: string): string {
  const i = p.lastIndexOf("/");
  return i < 0 ? "" : p.slice(0, i);
}

function basename(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}

/** Join and normalise; null when `..` climbs above the repository root. */
function joinPath(dir: string, rel: string): string | null {
  const out = dir ? dir.split("/") : [];
  for (const seg of rel.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (!out.length) return null;
      out.pop();
    } else out.push(seg);
  }
  return out.join("/");
}

const TEST_DIRS = new Set(["test", "tests", "__tests__", "spec", "specs"]);

export function isTestPath(path: string): boolean {
  const base = basename(path);
  if (/\.(?:test|spec)\.[cm]?[jt]sx?$/.test(base)) return true;
  if (/^test_.*\.pyi?$/.test(base) || /_test\.pyi?$/.test(base) || base === "conftest.py") return true;
  return dirname(path)
    .split("/")
    .some((s) => TEST_DIRS.has(s));
}

/** The module name a test mirrors: foo.test.ts -> foo, test_foo.py / foo_test.py -> foo, tests/foo.ts -> foo. */
function testStem(path: string): string | null {
  const base = basename(path);
  const js = /^(.+?)\.(?:test|spec)\.[cm]?[jt]sx?$/.exec(base);
  if (js?.[1]) return js[1];
  const py = /^test_(.+)\.pyi?$/.exec(base) ?? /^(.+)_test\.pyi?$/.exec(base);
  if (py?.[1]) return py[1];
  const plain = /^(.+?)\.[^.]+$/.exec(base)?.[1];
  return plain && plain !== "conftest" && plain !== "index" && plain !== "__init__" ? plain : null;
}

function stemOf(path: string): string {
  const base = basename(path).replace(/\.d\.ts$/, "");
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(0, dot) : base;
}

const family = (l: Language | null): string => (l === "python" ? "py" : l ? "js" : "");

/** Resolution of import specifiers and test mirrors against the set of known repository paths. */
class PathIndex {
  private stems: Map<string, string[]> | null = null;
  private pySuffixes: Map<string, string[]> | null = null;
  constructor(readonly known: Set<string>) {}

  resolve(from: string, spec: string): string | null {
    const lang = languageOf(from);
    if (lang === "python") return this.resolvePy(from, spec);
    if (!spec.startsWith(".")) return null;
    const base = joinPath(dirname(from), spec);
    if (base === null) return null;
    const cands: string[] = [base];
    for (const [ext, repl] of Object.entries(EMITTED))
      if (base.endsWith(ext)) for (const r of repl) cands.push(base.slice(0, -ext.length) + r);
    for (const ext of JS_EXTS) cands.push(base + ext);
    for (const ext of JS_EXTS) cands.push(`${base}/index${ext}`);
    return cands.find((c) => c !== from && this.known.has(c) && languageOf(c) !== null) ?? null;
  }

  private resolvePy(from: string, spec: string): string | null {
    const dots = /^\.*/.exec(spec)?.[0].length ?? 0;
    const mod = spec.slice(dots);
    const attempt = (m: string): string | null => {
      const rel = m ? m.split(".").join("/") : "";
      if (dots > 0) {
        let dir: string | null = dirname(from);
        for (let k = 1; k < dots && dir !== null; k++) dir = dir ? dirname(dir) : null;
        if (dir === null) return null;
        const base = rel ? (dir ? `${dir}/${rel}` : rel) : dir;
        return this.firstPy(rel ? [`${base}.py`, `${base}.pyi`, `${base}/__init__.py`] : [`${base}/__init__.py`], from);
      }
      if (!rel) return null;
      const cands = [`${rel}.py`, `${rel}/__init__.py`, `${rel}.pyi`];
      // from the root, then the importer's directory (scripts run from there), then a unique suffix (src/ layouts)
      const local = dirname(from);
      const direct = this.firstPy([...cands, ...(local ? cands.map((c) => `${local}/${c}`) : [])], from);
      if (direct) return direct;
      for (const c of cands) {
        const hits =
          this.suffixIndex()
            .get(c)
            ?.filter((p) => p !== from) ?? [];
        if (hits.length === 1) return hits[0] ?? null;
      }
      return null;
    };
    const hit = attempt(mod);
    if (hit || !mod) return hit;
    // `import a.b.c` of a name inside a.b, or `from . import name` of a function: the parent module
    const parent = mod.includes(".") ? mod.slice(0, mod.lastIndexOf(".")) : dots > 0 ? "" : null;
    return parent === null ? null : attempt(parent);
  }

  private firstPy(cands: string[], from: string): string | null {
    return cands.find((c) => c !== from && this.known.has(c)) ?? null;
  }

  private suffixIndex(): Map<string, string[]> {
    if (this.pySuffixes) return this.pySuffixes;
    const idx = new Map<string, string[]>();
    for (const p of [...this.known].sort()) {
      if (languageOf(p) !== "python") continue;
      const segs = p.split("/");
      for (let k = 1; k < segs.length; k++) {
        const key = segs.slice(k).join("/");
        const list = idx.get(key);
        if (list) list.push(p);
        else idx.set(key, [p]);
      }
    }
    this.pySuffixes = idx;
    return idx;
  }

  /** The non-test module a test file mirrors by name: same directory first, else the best unique match. */
  mirror(testPath: string): string | null {
    const stem = testStem(testPath);
    if (!stem) return null;
    if (!this.stems) {
      this.stems = new Map();
      for (const p of [...this.known].sort()) {
        if (!languageOf(p) || isTestPath(p)) continue;
        const s = stemOf(p);
        const list = this.stems.get(s);
        if (list) list.push(p);
        else this.stems.set(s, [p]);
      }
    }
    const fam = family(languageOf(testPath));
    const cands = (this.stems.get(stem) ?? []).filter((p) => family(languageOf(p)) === fam && p !== testPath);
    if (cands.length <= 1) return cands[0] ?? null;
    // score = shared trailing directory segments (tests/pkg/test_a.py <-> src/pkg/a.py share "pkg")
    const tdir = dirname(testPath)
      .split("/")
      .filter((s) => !TEST_DIRS.has(s));
    const score = (p: string) => {
      if (dirname(p) === dirname(testPath)) return 1000;
      const d = dirname(p).split("/");
      let k = 0;
      while (k < d.length && k < tdir.length && d[d.length - 1 - k] === tdir[tdir.length - 1 - k]) k++;
      return k;
    };
    const ranked = cands.map((p) => ({ p, s: score(p) })).sort((a, b) => b.s - a.s);
    const [first, second] = ranked;
    return first && (!second || first.s > second.s) ? first.p : null;
  }
}

const LICENSE_RE = /copyright|licen[cs]e|spdx|all rights reserved/i;
const DIRECTIVE_RE =
  /^\s*(?:@ts-|eslint|biome-ignore|prettier-ignore|#region|jshint|global\s|type:\s*ignore|noqa|pylint|-\*-)/i;

function cleanComment(raw: string): string {
  return raw
    .replace(/^\/\*+!?|\*+\/$/g, "")
    .split("\n")
    .map((l) => l.replace(/^\s*(?:\/\/+|\*+|#+)\s?/, ""))
    .filter((l) => !/^\s*@\w+/.test(l)) // JSDoc block tags (@module, @packageDocumentation, @param)
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * The file's own description: the Python module docstring, else the leading comment (licenses and
 * tool directives skipped), else the comment directly above the first exported declaration (files
 * that start with imports and document their main export).
 */
function leadingDoc(path: string, content: string, firstExport: number | null): string {
  const scan = scanSource(path, content);
  if (!scan) return "";
  const py = languageOf(path) === "python";
  const firstCode = scan.code.search(/\S/);
  if (py) {
    const doc = scan.strings.find((s) => s.start >= 0 && /^\s*[rRuU]?$/.test(scan.code.slice(0, s.start)));
    if (doc && (firstCode < 0 || firstCode >= doc.start - 1)) {
      const q = doc.triple ? 3 : 1;
      const text = content
        .slice(doc.start + q, Math.max(doc.start + q, doc.end - q))
        .replace(/\s+/g, " ")
        .trim();
      if (text) return text;
    }
  }
  // comments before the first code token, grouped into blocks; the first block that is neither a license nor a directive
  const parts: string[] = [];
  for (const [s, e] of scan.comments) {
    if (firstCode >= 0 && s > firstCode) break;
    const raw = content.slice(s, e);
    if (raw.startsWith("#!")) continue;
    const text = cleanComment(raw);
    if (!text || LICENSE_RE.test(text) || DIRECTIVE_RE.test(text)) {
      if (parts.length) break;
      continue;
    }
    parts.push(text);
  }
  if (parts.length || firstExport === null) return parts.join(" ").trim();
  const above: string[] = [];
  let end = firstExport;
  for (let k = scan.comments.length - 1; k >= 0; k--) {
    const [s, e] = scan.comments[k] ?? [0, 0];
    if (e > end) continue;
    if (content.slice(e, end).trim()) break; // code between the comment and the declaration
    above.unshift(cleanComment(content.slice(s, e)));
    end = s;
  }
  const text = above.join(" ").trim();
  return LICENSE_RE.test(text) || DIRECTIVE_RE.test(text) ? "" : text;
}

/** Cut at a word boundary at most `max` characters long. */
function cutWords(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max - 1);
  const sp = cut.lastIndexOf(" ");
  return `${sp > max / 2 ? cut.slice(0, sp) : cut}…`;
}

function synopsisOf(path: string, doc: string, exported: string[], defined: string[]): string {
  const list = (names: string[]) =>
    names.length > SYNOPSIS_NAMES
      ? `${names.slice(0, SYNOPSIS_NAMES).join(", ")} and ${names.length - SYNOPSIS_NAMES} more`
      : names.join(", ");
  const names = exported.length ? `exports ${list(exported)}` : defined.length ? `defines ${list(defined)}` : "";
  if (!doc) return cutWords(names ? `Module ${path} ${names}.` : `Module ${path}.`, LIMITS.synopsis);
  const tail = names ? ` ${names[0]?.toUpperCase()}${names.slice(1)}.` : "";
  const room = LIMITS.synopsis - tail.length;
  return cutWords(`${cutWords(doc, Math.max(200, Math.min(1200, room)))}${tail}`, LIMITS.synopsis);
}

/** Names in `class X … implements A, B<T>, ns.C {` clauses (TypeScript). */
function implementedNames(code: string): string[] {
  const out = new Set<string>();
  for (const m of code.matchAll(/\bclass\s+[A-Za-z_$][\w$]*[^{;]*?\bimplements\s+([^{;]+)\{/g)) {
    let depth = 0;
    let cur = "";
    const parts: string[] = [];
    for (const ch of m[1] ?? "") {
      if (ch === "<") depth++;
      else if (ch === ">") depth--;
      else if (ch === "," && depth === 0) {
        parts.push(cur);
        cur = "";
      } else if (depth === 0) cur += ch;
    }
    parts.push(cur);
    for (const p of parts) {
      const name = p.trim().split(".").pop()?.trim();
      if (name && /^[A-Za-z_$][\w$]*$/.test(name)) out.add(name);
    }
  }
  return [...out];
}

/** Text of comments (and Python docstrings / triple-quoted strings) where a file cites what it implements. */
function citationText(path: string, content: string): string {
  const scan = scanSource(path, content);
  if (!scan) return "";
  const parts = scan.comments.map(([s, e]) => content.slice(s, e));
  for (const s of scan.strings) if (s.triple) parts.push(content.slice(s.start, s.end));
  return parts.join("\n").slice(0, 200_000);
}

interface Analysed {
  file: CodeFile;
  lang: Language;
  id: string;
  symbols: ReturnType<typeof extractSymbols>;
}

/** One record per path: the latest commit wins (prepareBatch rejects a repeated id); repeats are noted in `skipped`. */
function latestByPath(files: CodeFile[], skipped: ImportPlan["skipped"]): Map<string, CodeFile> {
  const byPath = new Map<string, CodeFile>();
  for (const f of files) {
    const path = f.path.replace(/^\/+/, "");
    const prev = byPath.get(path);
    if (prev) {
      skipped.push({ ref: path, reason: "the same path was given twice; the later commit is kept" });
      if (prev.at > f.at) continue;
    }
    byPath.set(path, { ...f, path });
  }
  return byPath;
}

/** The `symbol` entities of one file's symbols: aliases are the bare name (for `A.b`) and `path#name`. */
function symbolEntities(repo: string, path: string, symbols: Analysed["symbols"]): EntityInput[] {
  return symbols.map((s) => {
    const bare = s.name.slice(s.name.lastIndexOf(".") + 1);
    const aliases = [
      ...(bare !== s.name && bare !== "default" ? [bare] : []),
      shorten(`${path}#${s.name}`, LIMITS.entityName),
    ];
    return {
      type: "symbol",
      id: shorten(`symbol:${repo}/${path}#${s.name}`, LIMITS.entityId),
      name: shorten(s.name, LIMITS.entityName),
      aliases,
    };
  });
}

/**
 * One `code_unit` artifact per file (see the module comment). Edges, where derivable:
 * - `depends-on`: relative TS/JS imports and Python imports resolved to a known path
 *   (files ∪ knownPaths): `./x` -> x.ts/.tsx/.js/…, `./x.js` -> x.ts, `./dir` -> dir/index.ts;
 *   Python `.mod` / `pkg.mod` -> mod.py or mod/__init__.py (root, importer's directory, unique suffix);
 * - `tests`: from a test file to each non-test module it imports (weight 0.5) and to the module its
 *   name mirrors (foo.test.ts -> foo.ts, tests/test_foo.py -> foo.py; weight 1);
 * - `implements`: to a paper (arXiv id / DOI cited in a comment or docstring; the paper's chunk id as
 *   paperIdentity gives it) and from `class X implements Y` to the file in this batch exporting Y.
 * Edges depend on which paths are known: pass the full tree listing as knownPaths so that an
 * unchanged file re-pushed later plans the same edges (and stays a no-op).
 */
export function codeArtifacts(
  repo: string,
  files: CodeFile[],
  opts: { knownPaths?: Iterable<string> } = {},
): ImportPlan {
  const plan: ImportPlan = { artifacts: [], deprecations: [], skipped: [] };
  const byPath = latestByPath(files, plan.skipped);
  const known = new Set<string>([...(opts.knownPaths ?? []), ...byPath.keys()]);
  const index = new PathIndex(known);

  const analysed: Analysed[] = [];
  const readmes: Array<{ artifact: ArtifactInput; paper: ReadmePaper | null; seen: string[] }> = [];
  for (const path of [...byPath.keys()].sort()) {
    const file = byPath.get(path);
    if (!file) continue;
    if (isReadme(path) && !whyNotIndexable(path, file.content.length) && file.content.trim()) {
      readmes.push(readmeArtifact(repo, file));
      continue;
    }
    const lang = languageOf(path);
    const why = whyNotIndexable(path, file.content.length);
    if (!lang || why) {
      plan.skipped.push({ ref: path, reason: why ?? "unsupported language" });
      continue;
    }
    if (file.content.includes("\u0000")) {
      plan.skipped.push({ ref: path, reason: "binary content (NUL bytes)" });
      continue;
    }
    if (!file.content.trim()) {
      plan.skipped.push({ ref: path, reason: "empty file" });
      continue;
    }
    analysed.push({ file, lang, id: fileChunkId(repo, path), symbols: extractSymbols(path, file.content) });
  }

  // who exports which interface/class/type, for `implements` edges
  const exporters = new Map<string, string[]>();
  for (const a of analysed)
    for (const s of a.symbols)
      if (s.exported && (s.kind === "interface" || s.kind === "class" || s.kind === "type")) {
        const list = exporters.get(s.name);
        if (list) list.push(a.file.path);
        else exporters.set(s.name, [a.file.path]);
      }

  for (const a of analysed) {
    const { file, lang, id } = a;
    const path = file.path;
    const isTest = isTestPath(path);
    const edges = new Map<string, EdgeInput>();
    const addEdge = (type: EdgeInput["type"], targetPath: string | null, weight: number) => {
      if (!targetPath) return;
      const target = fileChunkId(repo, targetPath);
      if (target === id) return;
      const key = `${type}\u0000${target}`;
      const prev = edges.get(key);
      if (!prev || (prev.weight ?? 1) < weight) edges.set(key, { type, target, weight });
    };
    const imported: string[] = [];
    for (const spec of extractImports(path, file.content)) {
      const target = index.resolve(path, spec);
      if (target && !imported.includes(target)) imported.push(target);
    }
    const mirrored = isTest ? index.mirror(path) : null;
    for (const t of imported) {
      if (isTest && !isTestPath(t)) addEdge("tests", t, t === mirrored ? 1 : 0.5);
      else addEdge("depends-on", t, 1);
    }
    if (mirrored) addEdge("tests", mirrored, 1);

    // implements: papers cited in comments/docstrings
    let papers = 0;
    for (const { id: pid } of findIdentifiers(citationText(path, file.content))) {
      const paper = paperIdentity([pid], "");
      if (!paper || papers >= MAX_PAPER_EDGES) continue;
      const key = `implements\u0000${paper.id}`;
      if (!edges.has(key) && paper.id !== id) {
        edges.set(key, { type: "implements", target: paper.id, weight: 1 });
        papers++;
      }
    }
    // implements: TS `class X implements Y` -> the file exporting Y (an imported one first, else a unique one)
    if (lang === "typescript") {
      const code = scanSource(path, file.content)?.code ?? "";
      for (const name of implementedNames(code)) {
        const owners = (exporters.get(name) ?? []).filter((p) => p !== path);
        const owner = owners.find((p) => imported.includes(p)) ?? (owners.length === 1 ? owners[0] : undefined);
        if (owner) addEdge("implements", owner, 1);
      }
    }

    // entities: exported symbols first, then the file's other declarations (not plain values), capped
    const exported = a.symbols.filter((s) => s.exported);
    const internal = a.symbols.filter((s) => !s.exported && s.kind !== "const");
    const ordered = [...exported, ...internal];
    if (ordered.length > LIMITS.entities)
      plan.skipped.push({
        ref: id,
        reason: `kept ${LIMITS.entities} of ${ordered.length} symbols as entities (the ingest limit)`,
      });
    const entities = symbolEntities(repo, path, ordered.slice(0, LIMITS.entities));

    const edgeList = [...edges.values()].sort((x, y) =>
      x.type + x.target < y.type + y.target ? -1 : x.type + x.target > y.type + y.target ? 1 : 0,
    );
    if (edgeList.length > LIMITS.edges)
      plan.skipped.push({ ref: id, reason: `kept ${LIMITS.edges} of ${edgeList.length} edges (the ingest limit)` });

    const artifact: ArtifactInput = {
      id,
      kind: "code_unit",
      title: shorten(path, LIMITS.title),
      synopsis: synopsisOf(
        path,
        leadingDoc(path, file.content, exported[0]?.start ?? null),
        exported.map((s) => s.name).filter((n) => !n.includes(".")),
        internal.map((s) => s.name),
      ),
      content: file.content,
      entities,
      boundaries: [`lang:${lang}`, `repo:${repo}`, ...(isTest ? ["role:test"] : [])],
      edges: edgeList.slice(0, LIMITS.edges),
      valid_from: file.at,
      source: shorten(`https://github.com/${repo}/blob/${file.commit}/${encodePath(path)}`, LIMITS.source),
    };
    plan.artifacts.push(artifact);
  }
  for (const r of readmes) {
    plan.artifacts.push(r.artifact);
    if (!r.paper && r.seen.length > 1)
      plan.skipped.push({
        ref: r.artifact.id,
        reason: `names ${r.seen.length} papers (${r.seen.slice(0, 5).join(", ")}) and says of none that it is this repository's paper: no implements edge`,
      });
  }
  return plan;
}

/**
 * A README as a note of the repository (boundaries `repo:<repo>`, `role:readme`) that `implements`
 * the paper it names as the repository's own (readmePaper): by its identifiers, else by its title
 * (`paper:<title slug>`); the applier lands either on the archive's chunk of that work when one
 * carries the identifier or the title as an alias (resolveEdgeTargets in src/app/intake/apply.ts).
 */
function readmeArtifact(
  repo: string,
  file: CodeFile,
): { artifact: ArtifactInput; paper: ReadmePaper | null; seen: string[] } {
  const { paper, seen } = readmePaper(file.content);
  const target = paper ? paperIdentity(paper.ids, paper.title ?? "") : null;
  const heading = /^#\s+(.+)$/m.exec(file.content)?.[1]?.trim();
  const artifact: ArtifactInput = {
    id: fileChunkId(repo, file.path),
    kind: "note",
    title: shorten(heading ? `${repo}: ${heading}` : `${repo} ${file.path}`, LIMITS.title),
    content: file.content,
    boundaries: [`repo:${repo}`, "role:readme"],
    edges: target ? [{ type: "implements", target: target.id, weight: 1 }] : [],
    valid_from: file.at,
    source: shorten(`https://github.com/${repo}/blob/${file.commit}/${encodePath(file.path)}`, LIMITS.source),
  };
  return { artifact, paper, seen };
}
