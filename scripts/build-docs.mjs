#!/usr/bin/env node
// Render the reference pages (docs/*.md and README.md) to HTML fragments for `/docs/{page}`:
// build/docs/pages.json.txt, which the Worker entry imports as a text module. marked (GFM tables,
// fenced code) does the Markdown; github-slugger gives each heading the id GitHub gives it, so a
// link written for GitHub (`kernel.md#local-diffusion`) works on the served page as well.
// Links between the pages become `/docs/<name>#anchor`; a link to any other file of the repository
// (source, scripts) is shown as its path in code, since the Worker does not serve the repository.
// wrangler's [build] command runs this before `wrangler dev` and deploy; the Workers test project
// runs it in its global setup. A file is replaced by rename and left alone when unchanged.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import GithubSlugger from "github-slugger";
import { Marked } from "marked";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "build", "docs");

function writeIfChanged(path, text) {
  if (existsSync(path) && readFileSync(path, "utf8") === text) return;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

const escapeHtml = (s) =>
  s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);

/** The page a repository path names (`docs/kernel.md` -> kernel, `README.md` -> readme), or null. */
function pageOf(repoPath) {
  if (repoPath === "README.md") return "readme";
  const m = /^docs\/([a-z0-9-]+)\.md$/.exec(repoPath);
  return m ? m[1] : null;
}

/** Where a link written in `from` (a repository path) points on the served pages, or null for a repository file. */
export function servedHref(from, href) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("#") || href.startsWith("/")) return href;
  const [path, hash] = href.split("#", 2);
  const target = posix.normalize(posix.join(posix.dirname(from), path));
  const page = pageOf(target);
  if (page === null) return null;
  return `/docs/${page}${hash === undefined ? "" : `#${hash}`}`;
}

/** One page: its title (the first heading) and its HTML. */
export function renderPage(from, markdown) {
  const slugger = new GithubSlugger();
  let title = null;
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading({ tokens, depth, text }) {
        const id = slugger.slug(text);
        if (title === null) title = text;
        return `<h${depth} id="${escapeHtml(id)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      link({ href, title: linkTitle, tokens, text }) {
        const inner = this.parser.parseInline(tokens);
        const served = servedHref(from, href);
        if (served === null)
          return `<code title="${escapeHtml(href)}">${inner === text ? escapeHtml(text) : inner}</code>`;
        const t = linkTitle ? ` title="${escapeHtml(linkTitle)}"` : "";
        return `<a href="${escapeHtml(served)}"${t}>${inner}</a>`;
      },
    },
  });
  const html = marked.parse(markdown, { async: false });
  return { title: title ?? from, html };
}

export function buildDocs({ quiet = false } = {}) {
  mkdirSync(OUT, { recursive: true });
  const files = [
    "README.md",
    ...readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => `docs/${f}`),
  ];
  const pages = files.map((from) => {
    const { title, html } = renderPage(from, readFileSync(join(ROOT, from), "utf8"));
    return { name: pageOf(from), title, html };
  });
  const text = JSON.stringify({ pages });
  writeIfChanged(join(OUT, "pages.json.txt"), text);
  if (!quiet)
    console.log(`build/docs/pages.json.txt: ${pages.length} pages, ${(Buffer.byteLength(text) / 1024).toFixed(1)} KiB`);
  return pages;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildDocs({ quiet: process.argv.includes("--quiet") });
