/**
 * Graph exports (Paper Circle §3.6): the offline graph page of a paper's or a collection's graph
 * (inline SVG, no script, no URL but stored data, its own CSP), and review statuses in GraphML and
 * Mermaid; through REST, MCP and as of a time.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { connect, ok as mcpOk } from "./mcp-client";
import { WORKER } from "./worker";

const open: Client[] = [];
afterAll(async () => {
  for (const c of open) await c.close();
});

async function get(path: string, key: string) {
  const res = await WORKER.fetch(`http://paperguru.test${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const STORED_URL = "https://example.org/stored-by-the-user";

async function build() {
  const a = await newArchive("gexp");
  const art = (id: string, kind: string, title: string, extra: Record<string, unknown> = {}) => ({
    id,
    kind,
    title,
    content: `${title}. It is described here with enough words to be a chunk.`,
    valid_from: "2024-01-01",
    ...extra,
  });
  const res = await api(
    "POST",
    `/v1/archives/${a.id}/ingest`,
    {
      artifacts: [
        art("paper:alpha", "paper", "Alpha retrieval with graphs"),
        art("paper:beta", "paper", `Beta <script>alert(1)</script> & co`),
        art("paper:gamma", "paper", "Gamma summaries"),
        art("section:alpha-1", "section", "Alpha method", {
          edges: [
            { type: "part-of", target: "paper:alpha" },
            { type: "cites", target: "paper:gamma" },
          ],
        }),
        art("section:alpha-1.1", "section", "Alpha method details", {
          edges: [{ type: "part-of", target: "section:alpha-1" }],
        }),
        art("note:reading", "note", `Reading list (see ${STORED_URL})`, {
          edges: [
            { type: "cites", target: "paper:alpha" },
            { type: "cites", target: "paper:beta" },
          ],
        }),
      ],
    },
    a.key,
  );
  expect(res.status).toBe(200);
  const review = async (b: Record<string, unknown>) =>
    expect((await api("POST", `/v1/archives/${a.id}/review`, b, a.key)).status).toBe(201);
  await review({ op: "verify", chunk: "paper:alpha", at: "2024-03-01" });
  await review({ op: "flag", chunk: "paper:beta", reason: "garbled title", at: "2024-03-01" });
  await review({
    op: "flag",
    edge: { from: "note:reading", type: "cites", to: "paper:beta" },
    reason: "off topic",
    at: "2024-03-01",
  });
  await review({
    op: "verify",
    edge: { from: "section:alpha-1", type: "part-of", to: "paper:alpha" },
    at: "2024-03-01",
  });
  return a;
}

/** Every http(s) URL in a text. */
const urls = (t: string) => t.match(/https?:\/\/[^\s"'<>)]+/gi) ?? [];

describe("graph page (format=graph-html)", () => {
  it("draws a paper's graph offline: inline SVG, no script, no URL, its own CSP, escaped texts", async () => {
    const a = await build();
    const r = await get(`/v1/archives/${a.id}/export?format=graph-html&within=paper%3Aalpha`, a.key);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/html/);
    expect(r.headers.get("content-disposition")).toContain(".graph.html");
    const page = r.text;
    // Offline: nothing to fetch, nothing to run.
    expect(urls(page)).toEqual([]);
    expect(page).not.toMatch(/<script|<link|<img|<iframe|@import|src=/i);
    expect(page).not.toMatch(/xmlns/);
    const csp = r.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(page).toContain(`content="${csp.replace(/'/g, "&#39;")}"`);
    // The style the CSP allows is the page's only style, by its hash.
    const style = /<style>([\s\S]*?)<\/style>/.exec(page)?.[1] ?? "";
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(style));
    expect(csp).toContain(`'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`);
    expect(page.match(/<style>/g)).toHaveLength(1);
    // The paper, its nested sections, and what they cite; not the reading note that cites the paper.
    const svg = /<svg class="g"[\s\S]*<\/svg>/.exec(page)?.[0] ?? "";
    expect(svg).toContain("<rect");
    expect(svg).toContain("<path");
    for (const id of ["paper:alpha", "section:alpha-1", "section:alpha-1.1", "paper:gamma"]) expect(page).toContain(id);
    expect(page).not.toContain("note:reading");
    // Statuses: the verified paper and part-of edge are drawn green; the table names them.
    expect(page).toMatch(/Alpha retrieval with graphs · paper:alpha@v1 · paper · human-verified/);
    expect(svg).toMatch(/<path [^>]*stroke="#1e8e3e"[^>]*><title>section:alpha-1 part-of paper:alpha · human-verified/);
    expect(page).toMatch(/<code>paper:alpha<\/code>.*s-human-verified/);
    expect(page).toMatch(/<code>paper:gamma<\/code>.*s-auto-generated/);
  });

  it("draws a collection's graph with flagged members and edges; stored URLs are the only URLs", async () => {
    const a = await build();
    const page = (await get(`/v1/archives/${a.id}/export?format=graph-html&collection=note%3Areading`, a.key)).text;
    expect(page).toContain("collection note:reading (2 members)");
    expect(page).toMatch(
      /<path [^>]*stroke="#d93025"[^>]*stroke-dasharray[^>]*><title>note:reading cites paper:beta · flagged/,
    );
    // The hostile title is text, not markup.
    expect(page).not.toContain("<script>");
    expect(page).toContain("Beta &#60;script&#62;alert(1)&#60;/script&#62; &#38; co");
    // The note's title holds a URL the user stored: it is the only one on the page.
    const found = urls(page);
    expect(found).toContain(STORED_URL);
    // Any other is the same stored URL in a clipped label.
    for (const u of found) expect(STORED_URL.startsWith(u.replace(/…$/, ""))).toBe(true);
    // As of before the reviews: every status auto-generated.
    const early = (
      await get(`/v1/archives/${a.id}/export?format=graph-html&collection=note%3Areading&as_of=2024-02-01`, a.key)
    ).text;
    expect(early).not.toMatch(/class="s s-(flagged|human-verified)"/);
    expect(early).toContain(`class="s s-auto-generated"`);
  });

  it("the whole archive, and bad scopes answer 4xx naming the field", async () => {
    const a = await build();
    const all = await get(`/v1/archives/${a.id}/export?format=graph-html`, a.key);
    expect(all.status).toBe(200);
    expect(all.text).toContain("note:reading");
    const nope = await get(`/v1/archives/${a.id}/export?format=graph-html&within=paper%3Anope`, a.key);
    expect(nope.status).toBe(404);
    expect(JSON.parse(nope.text).error.field).toBe("within");
    const both = await get(
      `/v1/archives/${a.id}/export?format=graph-html&within=paper%3Aalpha&collection=note%3Areading`,
      a.key,
    );
    expect(both.status).toBe(400);
  });
});

describe("review status in GraphML and Mermaid", () => {
  it("GraphML carries review_status on nodes and edges as of the export time", async () => {
    const a = await build();
    const xml = (await get(`/v1/archives/${a.id}/export?format=graphml`, a.key)).text;
    expect(xml).toContain('<key id="n_review_status" for="node" attr.name="review_status" attr.type="string"/>');
    expect(xml).toContain('<key id="e_review_status" for="edge" attr.name="review_status" attr.type="string"/>');
    expect(xml).toMatch(/<node id="paper:alpha">[\s\S]*?<data key="n_review_status">human-verified<\/data>/);
    expect(xml).toMatch(/<node id="paper:beta">[\s\S]*?<data key="n_review_status">flagged<\/data>/);
    expect(xml).toMatch(/<node id="paper:gamma">[\s\S]*?<data key="n_review_status">auto-generated<\/data>/);
    expect(xml).toMatch(
      /source="note:reading" target="paper:beta">\s*<data key="e_type">cites<\/data>[\s\S]*?<data key="e_review_status">flagged<\/data>/,
    );
    const early = (await get(`/v1/archives/${a.id}/export?format=graphml&as_of=2024-02-01`, a.key)).text;
    expect(early).not.toMatch(/>(flagged|human-verified)</);
  });

  it("Mermaid labels, classes and link styles show the statuses", async () => {
    const a = await build();
    const mmd = (await get(`/v1/archives/${a.id}/export?format=mermaid`, a.key)).text;
    expect(mmd).toMatch(/n\d+\["Alpha retrieval with graphs · paper:alpha@v1 · human-verified"\]/);
    const beta = /(n\d+)\["Beta[^"]*paper:beta@v1 · flagged"\]/.exec(mmd)?.[1];
    expect(beta).toBeDefined();
    expect(mmd).toMatch(new RegExp(`classDef r_flagged stroke:#d93025[^\\n]*\\n  class ${beta} r_flagged`));
    const lines = mmd.split("\n");
    const edgeLines = lines.filter((l) => /^ {2}n\d+ -->/.test(l));
    const flagged = edgeLines.findIndex((l) => l.includes("|cites · flagged|"));
    expect(flagged).toBeGreaterThanOrEqual(0);
    expect(lines).toContain(`  linkStyle ${flagged} stroke:#d93025,stroke-width:2px,stroke-dasharray:5 3`);
    expect(edgeLines.some((l) => l.includes("|part-of · human-verified|"))).toBe(true);
  });

  it("the MCP export tool renders the graph page of a paper", async () => {
    const a = await build();
    const client = await connect(a.key, open);
    const r = await mcpOk(client, "export", { archive: a.id, format: "graph-html", within: "paper:alpha" });
    expect(r.truncated).toBe(false);
    expect(r.text).toContain("<svg");
    expect(r.text).toContain("section:alpha-1.1");
    expect(r.text).not.toContain("note:reading");
  });
});
