/**
 * Every relative link in README.md and docs/*.md names a file that exists, and a `#section` names a
 * heading of that page (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens,
 * repeated headings numbered -1, -2).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(__dirname, "../..");
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor for each heading of a Markdown page (code blocks skipped). */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = (m[1] as string)
      .replace(/<[^>]+>/g, "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Links of a page that point inside the repository: [text](target), code blocks and spans skipped. */
function localLinks(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  const out: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1] as string;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    if (target.startsWith("/")) continue; // a route of the running service (/docs, /openapi.json)
    out.push(target);
  }
  return out;
}

/** What is wrong with each local link of the page at `path` (empty when all resolve). */
function broken(path: string): string[] {
  const text = readFileSync(join(ROOT, path), "utf8");
  const out: string[] = [];
  for (const link of localLinks(text)) {
    const [file = "", section] = link.split("#", 2);
    const target = file === "" ? join(ROOT, path) : resolve(dirname(join(ROOT, path)), decodeURI(file));
    if (!existsSync(target)) {
      out.push(`${path}: ${link} (no ${relative(ROOT, target)})`);
      continue;
    }
    if (section !== undefined && target.endsWith(".md") && !anchors(readFileSync(target, "utf8")).has(section))
      out.push(`${path}: ${link} (no section #${section} in ${relative(ROOT, target)})`);
  }
  return out;
}

describe("documentation links", () => {
  it("every relative link in README.md and docs/ names an existing file and section", () => {
    expect(PAGES.length).toBeGreaterThan(5);
    expect(PAGES.flatMap(broken)).toEqual([]);
  });

  it("finds a missing page and a missing section", () => {
    const page = "# Title\n\n## Two words\n\nSee [a](missing.md), [b](#two-words), [c](#nowhere), `[d](x.md)`.\n";
    expect(localLinks(page)).toEqual(["missing.md", "#two-words", "#nowhere"]);
    expect([...anchors(page)]).toEqual(["title", "two-words"]);
    expect(anchors("## A: b (c)\n## A: b (c)\n")).toEqual(new Set(["a-b-c", "a-b-c-1"]));
  });
});
