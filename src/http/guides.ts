/**
 * The reference pages at `/docs/{page}`: README.md and docs/*.md, rendered to HTML at build time by
 * scripts/build-docs.mjs (marked, github-slugger anchors) and handed in by the Worker entry as the
 * text of build/docs/pages.json.txt. The Worker only wraps a fragment in a page and a navigation; the
 * page runs no script, and its policy allows only its inline style.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { escapeHtml } from "../core/export/html";
import { type AppEnv, errorBody } from "./common";
import { AUTH, errorResponse } from "./docs";

export interface Guide {
  name: string;
  title: string;
  html: string;
}

/** The policy of a reference page: no script at all, its own inline style, same-origin images. */
export const GUIDE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const CSS = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--mut:#5b636d;--line:#d8dde3;--code:#f3f5f7;--acc:#0b5cad}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--bg:#14171a;--mut:#9aa3ad;--line:#2f353b;--code:#1d2125;--acc:#6fb0ff}}
*{box-sizing:border-box}body{margin:0;font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--acc)}header,main{max-width:60rem;margin:0 auto;padding:0 1rem}header{padding-top:1rem;border-bottom:1px solid var(--line)}
nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:14px}nav [aria-current]{font-weight:700;color:var(--fg)}
code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}code{background:var(--code);padding:0 .25em;border-radius:3px}
pre{background:var(--code);padding:.6rem .8rem;border-radius:6px;overflow:auto}pre code{padding:0;background:none}
table{border-collapse:collapse;display:block;overflow:auto;margin:.5rem 0}th,td{border:1px solid var(--line);padding:.25rem .5rem;text-align:left;vertical-align:top}
h1,h2{border-bottom:1px solid var(--line);padding-bottom:.2rem}blockquote{margin:0;padding:0 1rem;color:var(--mut);border-left:3px solid var(--line)}
`;

/** The navigation shared by `/docs` and every page: the API reference first, then the pages in build order. */
export function guidesNav(guides: readonly Pick<Guide, "name" | "title">[], current: string | null): string {
  const item = (href: string, label: string, here: boolean) =>
    `<li><a href="${href}"${here ? ' aria-current="page"' : ""}>${escapeHtml(label)}</a></li>`;
  return `<nav aria-label="Reference pages"><ul>${item("/docs", "API reference", current === null)}${guides
    .map((g) => item(`/docs/${g.name}`, g.name === "readme" ? "Overview" : g.title, g.name === current))
    .join("")}</ul></nav>`;
}

function page(guides: readonly Guide[], g: Guide): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(g.title)} · PaperGuru</title>
<style>${CSS}</style>
</head>
<body>
<header>${guidesNav(guides, g.name)}</header>
<main>
${g.html}
</main>
</body>
</html>
`;
}

/** The built pages, or [] when the Worker was built without them (tests of the document). */
export function parseGuides(text: string | null): Guide[] {
  if (text === null) return [];
  const parsed = JSON.parse(text) as { pages: Guide[] };
  return parsed.pages;
}

const PAGE_NAME = /^[a-z0-9-]{1,64}$/;

/** Register `GET /docs/{page}`, documented like the other public routes. */
export function mountGuides(app: OpenAPIHono<AppEnv>, guides: readonly Guide[]): void {
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/docs/{page}",
    tags: ["service"],
    summary: "A reference page",
    description:
      "README.md (`readme`) and each page of docs/ (`api`, `kernel`, `performance`, …) as HTML, rendered when the Worker is built; the links between them stay on this server. An unknown page answers 404 with the list.",
    security: AUTH.none,
    request: {
      params: z.object({
        page: z
          .string()
          .regex(PAGE_NAME)
          .openapi({ description: "The page: `readme` or a docs/ file's name without `.md`", example: "kernel" }),
      }),
    },
    responses: {
      200: {
        description: "OK",
        content: { "text/html": { schema: { type: "string" }, example: "<!doctype html>..." } },
      },
      400: errorResponse(400, "The page name is not lower-case letters, digits and hyphens"),
      404: errorResponse(404, "No such page; the message lists the pages"),
    },
  });
  const byName = new Map(guides.map((g) => [g.name, g]));
  const rendered = new Map<string, string>();
  app.get("/docs/:page", (c) => {
    const name = c.req.param("page");
    if (!PAGE_NAME.test(name))
      return c.json(
        errorBody({
          kind: "validation",
          message: "page must be 1-64 lower-case letters, digits or hyphens",
          field: "page",
          hint: "see /docs for the list",
        }),
        400,
      );
    const g = byName.get(name);
    if (!g)
      return c.json(
        errorBody({
          kind: "not_found",
          message: guides.length
            ? `no reference page "${name.slice(0, 64)}"; the pages are ${guides.map((x) => x.name).join(", ")}`
            : "the reference pages were not built into this Worker",
          field: "page",
          hint: guides.length ? "see /docs for the list" : "run node scripts/build-docs.mjs before wrangler dev",
        }),
        404,
      );
    let html = rendered.get(name);
    if (html === undefined) {
      html = page(guides, g);
      rendered.set(name, html);
    }
    c.header("content-security-policy", GUIDE_CSP);
    c.header("referrer-policy", "no-referrer");
    c.header("cache-control", "no-cache");
    return c.html(html);
  });
}
