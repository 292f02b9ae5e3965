/** TypeScript / JavaScript declarations over blanked code (see code/symbols.ts for what is extracted). */
import type { Scan } from "./scan";
import {
  type CodeSymbol,
  headerEnd,
  type Lines,
  lineEnd,
  lineIndex,
  lineTable,
  matchBracket,
  type SymbolKind,
  SymbolTable,
  splitEntries,
} from "./table";

const ID = "[A-Za-z_$][\\w$]*";
const RE_TS_DECL = new RegExp(
  `^(export\\s+(?:default\\s+)?)?(?:declare\\s+)?(?:` +
    `(?:abstract\\s+)?class\\b\\s*(${ID})?` + // 2 class
    `|(?:async\\s+)?function\\b\\s*\\*?\\s*(${ID})?` + // 3 function
    `|interface\\s+(${ID})` + // 4
    `|type\\s+(${ID})\\s*(?:<|=)` + // 5
    `|(?:const\\s+)?enum\\s+(${ID})` + // 6
    `|(?:const|let|var)\\s+(${ID})` + // 7
    `)`,
);
const RE_EXPORT_LIST = /^export\s+(?:type\s+)?\{/;
const RE_EXPORT_DEFAULT_EXPR = /^export\s+(?:default|=)\s+/;
const RE_CJS_MODULE = /^module\.exports\s*=\s*/;
const RE_CJS_PROP = new RegExp(`^(?:module\\.)?exports\\.(${ID})\\s*=(?!=)\\s*`);
const RE_MEMBER = new RegExp(
  `^((?:(?:public|protected|private|static|async|override|readonly|abstract|declare|accessor|get|set)\\s+)*)\\*?\\s*(#?${ID})\\s*(\\?|!)?\\s*(?:<.*?>)?\\s*(\\(|<\\s*$|(?::[^=;]*)?=\\s*(?:async\\s*)?(?:<|\\(|${ID}\\s*=>|function\\b))`,
);
// Every keyword is a legal method name (`catch()`, `delete()`); only the constructor is not a method of the API.
const NOT_METHOD = new Set(["constructor"]);

/** What a value expression starting at `at` is: a function, a class, a bare identifier, or something else. */
function valueKind(code: string, at: number): { kind: "function" | "class" | "ident" | "other"; ident?: string } {
  const rest = code.slice(at, at + 400);
  if (/^(?:async\s+)?function\b/.test(rest)) return { kind: "function" };
  if (/^class\b/.test(rest)) return { kind: "class" };
  const id = new RegExp(`^(${ID})\\s*(=>)?`).exec(rest);
  if (id?.[2] || (id?.[1] === "async" && /^async\s*(?:\(|[\w$]+\s*=>)/.test(rest))) return { kind: "function" };
  const paren = /^(?:async\s*)?(?:<[^>]*>\s*)?\(/.exec(rest);
  if (paren) {
    const close = matchBracket(code, at + paren[0].length - 1);
    if (close >= 0 && /^\s*(?::[^;{}=]*?)?=>/.test(code.slice(close + 1, close + 300))) return { kind: "function" };
  }
  if (id?.[1] && new RegExp(`^${ID}\\s*(?:;|$|\\n)`).test(rest)) return { kind: "ident", ident: id[1] };
  return { kind: "other" };
}

export function extractJs(content: string, scan: Scan): CodeSymbol[] {
  const code = scan.code;
  const lines = lineTable(code);
  const table = new SymbolTable(content, code, lines, false, scan.comments);
  const exportMarks: Array<{ local: string; name: string; at: number }> = [];
  // every top-level class with the offset just after its name; methods are added once it is exported
  const classes: Array<{ name: string; at: number }> = [];

  for (let li = 0; li < lines.starts.length; li++) {
    if ((lines.depth[li] ?? 0) !== 0) continue;
    const ls = lines.starts[li] ?? 0;
    const le = lineEnd(code, ls);
    const raw = code.slice(ls, le);
    const indent = raw.length - raw.trimStart().length;
    const t = raw.slice(indent);
    if (!t) continue;
    const at = ls + indent;

    const d = RE_TS_DECL.exec(t);
    if (d) {
      const exported = d[1] !== undefined;
      const isDefault = /default/.test(d[1] ?? "");
      if (/^(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:abstract\s+)?class\b/.test(t)) {
        const own = d[2] === "extends" || d[2] === "implements" ? undefined : d[2];
        const name = own ?? (isDefault ? "default" : null);
        if (name) {
          table.add(name, "class", at, exported, false);
          classes.push({ name, at: at + d[0].length });
        }
      } else if (d[4]) table.add(d[4], "interface", at, exported, false);
      else if (d[5]) table.add(d[5], "type", at, exported, true);
      else if (d[6]) table.add(d[6], "enum", at, exported, false);
      else if (d[7]) {
        const after = at + d[0].length;
        const m = /^\s*(:[^=]*)?=(?![=>])\s*/.exec(code.slice(after, after + 400));
        let kind: SymbolKind = "const";
        if (m?.[1]?.includes("=>")) kind = "function";
        else if (m) {
          const v = valueKind(code, after + m[0].length);
          if (v.kind === "function") kind = "function";
          else if (v.kind === "class") kind = "class";
        }
        table.add(d[7], kind, at, exported, kind === "const");
      } else {
        const name = d[3] ?? (isDefault ? "default" : null);
        if (name) table.add(name, "function", at, exported, false);
      }
      continue;
    }
    if (RE_EXPORT_LIST.test(t)) {
      const open = at + t.indexOf("{");
      const close = matchBracket(code, open);
      if (close < 0) continue;
      if (/^\s*from\b/.test(code.slice(close + 1, close + 40))) continue; // re-export of another file
      for (const [s, e] of splitEntries(code, open + 1, close)) {
        const m = new RegExp(`^(?:type\\s+)?(${ID})(?:\\s+as\\s+(${ID}))?$`).exec(code.slice(s, e));
        if (m?.[1]) exportMarks.push({ local: m[1], name: m[2] ?? m[1], at: s });
      }
      continue;
    }
    const ed = RE_EXPORT_DEFAULT_EXPR.exec(t);
    if (ed) {
      const v = valueKind(code, at + ed[0].length);
      if (v.kind === "ident" && v.ident) exportMarks.push({ local: v.ident, name: "default", at });
      else table.add("default", v.kind === "function" ? "function" : "const", at, true, true);
      continue;
    }
    const cm = RE_CJS_MODULE.exec(t);
    if (cm) {
      const vAt = at + cm[0].length;
      const rest = code.slice(vAt, vAt + 200);
      if (rest.startsWith("{")) {
        const close = matchBracket(code, vAt);
        if (close < 0) continue;
        for (const [s, e] of splitEntries(code, vAt + 1, close)) {
          const entry = code.slice(s, e);
          const key = new RegExp(`^(?:async\\s+)?\\*?\\s*(${ID})`).exec(entry);
          if (!key?.[1] || entry.startsWith("...")) continue;
          const name = key[1];
          const colon = new RegExp(`^${ID}\\s*:\\s*`).exec(entry);
          if (colon) {
            const v = valueKind(code, s + colon[0].length);
            if (v.kind === "ident" && v.ident) exportMarks.push({ local: v.ident, name, at: s });
            else
              table.add(
                name,
                v.kind === "function" ? "function" : v.kind === "class" ? "class" : "const",
                s,
                true,
                true,
              );
          } else if (new RegExp(`^(?:async\\s+)?\\*?\\s*${ID}\\s*\\(`).test(entry)) {
            table.add(name, "function", s, true, false);
          } else exportMarks.push({ local: name, name, at: s });
        }
      } else {
        const fn = new RegExp(`^(?:async\\s+)?function\\b\\s*\\*?\\s*(${ID})?`).exec(rest);
        const cls = new RegExp(`^class\\b\\s*(?!extends\\b)(${ID})?`).exec(rest);
        const v = valueKind(code, vAt);
        if (fn) table.add(fn[1] ?? "default", "function", at, true, false);
        else if (cls) {
          table.add(cls[1] ?? "default", "class", at, true, false);
          classes.push({ name: cls[1] ?? "default", at: vAt + cls[0].length });
        } else if (v.kind === "ident" && v.ident) exportMarks.push({ local: v.ident, name: "default", at });
        else if (!/^require\s*\(/.test(rest))
          table.add("default", v.kind === "function" ? "function" : "const", at, true, true);
      }
      continue;
    }
    const cp = RE_CJS_PROP.exec(t);
    if (cp?.[1]) {
      const v = valueKind(code, at + cp[0].length);
      if (v.kind === "ident" && v.ident) exportMarks.push({ local: v.ident, name: cp[1], at });
      else
        table.add(cp[1], v.kind === "function" ? "function" : v.kind === "class" ? "class" : "const", at, true, true);
    }
  }

  for (const m of exportMarks) {
    const local = table.get(m.local);
    if (local) {
      if (m.name === m.local || m.name === "default") local.exported = true;
      else table.alias(m.name, local, m.at);
    }
  }
  for (const c of classes) if (table.get(c.name)?.exported) addJsMethods(table, code, lines, c.name, c.at);
  return table.all();
}

function addJsMethods(table: SymbolTable, code: string, lines: Lines, cls: string, from: number): void {
  const open = headerEnd(code, from, false, false);
  if (code[open] !== "{") return;
  const close = matchBracket(code, open);
  if (close < 0) return;
  const baseDepth = depthAt(code, lines, open) + 1;
  for (let li = lineIndex(lines, open) + 1; li < lines.starts.length; li++) {
    const ls = lines.starts[li] ?? 0;
    if (ls >= close) break;
    if ((lines.depth[li] ?? 0) !== baseDepth) continue;
    const le = lineEnd(code, ls);
    const raw = code.slice(ls, Math.min(le, close));
    const t = raw.trimStart();
    const m = RE_MEMBER.exec(t);
    if (!m?.[2]) continue;
    const name = m[2];
    if (name.startsWith("#") || NOT_METHOD.has(name) || /\b(?:private|protected)\b/.test(m[1] ?? "")) continue;
    table.add(`${cls}.${name}`, "method", ls + (raw.length - t.length), true, false);
  }
}

/** Bracket depth just before the character at `pos` (line start depth + the line's prefix). */
function depthAt(code: string, lines: Lines, pos: number): number {
  const li = lineIndex(lines, pos);
  let d = lines.depth[li] ?? 0;
  for (let i = lines.starts[li] ?? 0; i < pos; i++) {
    const c = code[i];
    if (c === "{" || c === "(" || c === "[") d++;
    else if (c === "}" || c === ")" || c === "]") d = Math.max(0, d - 1);
  }
  return d;
}
