/** Python declarations over blanked code (see code/symbols.ts for what is extracted). */
import type { Scan } from "./scan";
import { type CodeSymbol, type Lines, lineEnd, linesInString, lineTable, matchBracket, SymbolTable } from "./table";

const PY_ID = "[A-Za-z_][A-Za-z0-9_]*";
const RE_PY_DEF = new RegExp(`^(?:async\\s+)?def\\s+(${PY_ID})\\s*[([]`);
const RE_PY_CLASS = new RegExp(`^class\\s+(${PY_ID})\\s*[(:[]`);
const RE_PY_TYPE = new RegExp(`^type\\s+(${PY_ID})\\s*(?:\\[[^\\]]*\\])?\\s*=`);
const RE_PY_ASSIGN = new RegExp(`^(${PY_ID})\\s*(?::[^=\\n]*)?=(?!=)`);
const RE_PY_ALL = /^__all__\s*(?::[^=\n]*)?\+?=\s*([[(])/;

/** Names listed in `__all__` (all assignments and `+=` at top level), or null when absent. */
function pythonAll(content: string, code: string, lines: Lines): Set<string> | null {
  let all: Set<string> | null = null;
  for (let li = 0; li < lines.starts.length; li++) {
    if ((lines.depth[li] ?? 0) !== 0 || lines.cont[li]) continue;
    const ls = lines.starts[li] ?? 0;
    const m = RE_PY_ALL.exec(code.slice(ls, ls + 200));
    if (!m) continue;
    const open = ls + m[0].length - 1;
    const close = matchBracket(code, open);
    if (close < 0) continue;
    all ??= new Set();
    for (const s of content.slice(open, close).matchAll(/(['"])([A-Za-z_][A-Za-z0-9_]*)\1/g)) if (s[2]) all.add(s[2]);
  }
  return all;
}

export function isPyLineStart(lines: Lines, li: number): boolean {
  return (lines.depth[li] ?? 0) === 0 && !lines.cont[li] && !lines.inString?.[li];
}

export function extractPython(content: string, scan: Scan): CodeSymbol[] {
  const code = scan.code;
  const lines = lineTable(code);
  lines.inString = linesInString(lines, scan.strings);
  const table = new SymbolTable(content, code, lines, true, scan.comments);
  const all = pythonAll(content, code, lines);
  const isPublic = (name: string) => !name.startsWith("_") || (all?.has(name) ?? false);

  for (let li = 0; li < lines.starts.length; li++) {
    if (!isPyLineStart(lines, li)) continue;
    const ls = lines.starts[li] ?? 0;
    const t = code.slice(ls, lineEnd(code, ls));
    if (!t || /^\s/.test(t)) continue;
    const def = RE_PY_DEF.exec(t);
    if (def?.[1]) {
      table.add(def[1], "function", ls, isPublic(def[1]), false);
      continue;
    }
    const cls = RE_PY_CLASS.exec(t);
    if (cls?.[1]) {
      const exported = isPublic(cls[1]);
      table.add(cls[1], "class", ls, exported, false);
      if (exported) addPyMethods(table, code, lines, li, cls[1]);
      continue;
    }
    const ty = RE_PY_TYPE.exec(t);
    if (ty?.[1]) {
      table.add(ty[1], "type", ls, isPublic(ty[1]), true);
      continue;
    }
    const asg = RE_PY_ASSIGN.exec(t);
    if (asg?.[1] && asg[1] !== "__all__" && (/^[A-Z][A-Z0-9_]*$/.test(asg[1]) || all?.has(asg[1]))) {
      table.add(asg[1], "const", ls, isPublic(asg[1]), true);
    }
  }
  return table.all();
}

function addPyMethods(table: SymbolTable, code: string, lines: Lines, classLine: number, cls: string): void {
  let bodyIndent = -1;
  for (let li = classLine + 1; li < lines.starts.length; li++) {
    if (!isPyLineStart(lines, li)) continue;
    const ls = lines.starts[li] ?? 0;
    const raw = code.slice(ls, lineEnd(code, ls));
    const t = raw.trimStart();
    if (!t) continue; // blank, comment-only or docstring-only line
    const indent = raw.length - t.length;
    if (bodyIndent < 0) {
      if (indent === 0) return; // one-line class (`class A: pass`) or empty body
      bodyIndent = indent;
    }
    if (indent < bodyIndent) return;
    if (indent !== bodyIndent) continue;
    const def = RE_PY_DEF.exec(t);
    if (def?.[1] && !def[1].startsWith("_")) table.add(`${cls}.${def[1]}`, "method", ls + indent, true, false);
  }
}
