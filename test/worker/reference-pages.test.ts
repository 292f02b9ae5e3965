/**
 * `/docs` and `/docs/{page}`: README.md and every docs/*.md page, served by the Worker as it was
 * built (scripts/build-docs.mjs), with the links between them kept on this server and every link to
 * a page's section landing on a heading that exists.
 */
import { describe, expect, it } from "vitest";
import { WORKER } from "./worker";

/** Every page of docs/ by name (the Workers runtime cannot list the directory; a page missing here fails the link test). */
const PAGES = [
  "readme",
  "api",
  "cli",
  "coding-agents",
  "examples",
  "explorer",
  "ingest",
  "interfaces",
  "kernel",
  "models",
  "performance",
  "quality",
  "research",
  "sharding",
  "storage",
];

async function get(path: string): Promise<{ status: number; html: string; csp: string | null }> {
  const res = await WORKER.fetch(`https://paperguru.test${path}`);
  return { status: res.status, html: await res.text(), csp: res.headers.get("content-security-policy") };
}

describe("reference pages", () => {
  it("/docs links every page, and every page is served as HTML without script", async () => {
    const index = await get("/docs");
    expect(index.status).toBe(200);
    for (const name of PAGES) expect(index.html).toContain(`href="/docs/${name}"`);
    for (const name of PAGES) {
      const p = await get(`/docs/${name}`);
      expect(p.status, name).toBe(200);
      expect(p.csp).toContain("default-src 'none'");
      expect(p.csp).not.toContain("script-src");
      expect(p.html).not.toMatch(/<script/i);
      expect(p.html).toMatch(/<h1 id="[a-z0-9-]+">/);
    }
  });

  it("every link between pages lands on a page and a heading that exist", async () => {
    const ids = new Map<string, Set<string>>();
    const links: Array<{ from: string; page: string; hash: string | undefined }> = [];
    for (const name of PAGES) {
      const { html } = await get(`/docs/${name}`);
      ids.set(name, new Set([...html.matchAll(/<h[1-6] id="([^"]+)"/g)].map((m) => m[1] as string)));
      for (const m of html.matchAll(/href="\/docs\/([a-z0-9-]+)(?:#([^"]*))?"/g))
        links.push({ from: name, page: m[1] as string, hash: m[2] });
      // No link is left pointing at a Markdown file: those are rewritten or shown as a path.
      expect(html, name).not.toMatch(/href="[^"]*\.md(#[^"]*)?"/);
    }
    expect(links.filter((l) => l.from === "readme").length).toBeGreaterThan(5);
    const broken = links.filter((l) => !ids.has(l.page) || (l.hash !== undefined && !ids.get(l.page)?.has(l.hash)));
    expect(broken).toEqual([]);
  });

  it("/docs lists exactly the built pages", async () => {
    const index = await get("/docs");
    const listed = [...index.html.matchAll(/href="\/docs\/([a-z0-9-]+)"/g)].map((m) => m[1]);
    expect(new Set(listed)).toEqual(new Set(PAGES));
  });

  it("a malformed page name is a 400 naming the field", async () => {
    const res = await WORKER.fetch("https://paperguru.test/docs/Kernel.md");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { field?: string } }).error.field).toBe("page");
  });

  it("an unknown page is a 404 naming the field and the pages", async () => {
    const res = await WORKER.fetch("https://paperguru.test/docs/no-such-page");
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { type: string; message: string; field?: string } };
    expect(body.error.type).toBe("not_found");
    expect(body.error.field).toBe("page");
    expect(body.error.message).toContain("kernel");
  });
});
