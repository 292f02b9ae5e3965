/**
 * HTML export: one self-contained page (no script, no external resource: the style is inline and
 * allowed by its SHA-256 in the page's own Content-Security-Policy, `default-src 'none'`), so it opens
 * from disk or behind a strict CSP alike. Every stored text is escaped (& < > " '), so a title such as
 * `<script>` renders as text. Chunks are grouped by kind with their version, validity, deprecation and
 * review status; edges (valid at the export time) with theirs.
 */
import { joinParts, type Parts } from "./parts";
import { byKind, type ChunkRecord, type GraphEdge, iso } from "./types";

export const HTML_STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}code{font-size:.85em}
.s{border-radius:.6rem;padding:0 .45rem;font-size:.8em;white-space:nowrap;background:#eee}
.s-human-verified{background:#d8f0d8}.s-human-edited{background:#dde6fb}.s-flagged{background:#fbd9d3}
.dep{color:#8a3b12}p.syn{margin:.2rem 0 0;color:#444}`;

/** Text for element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function sha256Base64(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return btoa(String.fromCharCode(...new Uint8Array(d)));
}

/** A CSP allowing nothing but this inline style, by hash. */
export async function styleCsp(style: string): Promise<string> {
  return `default-src 'none'; style-src 'sha256-${await sha256Base64(style)}'; base-uri 'none'; form-action 'none'`;
}

/** The CSP the page carries (and the route sends): nothing but the inline style, by hash. */
export function htmlCsp(): Promise<string> {
  return styleCsp(HTML_STYLE);
}

const status = (s: string | undefined) => {
  const v = s ?? "auto-generated";
  return `<span class="s s-${escapeHtml(v)}">${escapeHtml(v)}</span>`;
};

export async function renderHtml(
  archive: { id: string; name: string },
  records: ChunkRecord[],
  edges: GraphEdge[],
  opts: { asOf: number; exportedAt: number; scope?: string | undefined },
): Promise<string> {
  return joinParts(htmlParts(archive, records, edges, opts, await htmlCsp()));
}

/** renderHtml's lines with its CSP (htmlCsp()), one part each (joined with line breaks). */
export function htmlParts(
  archive: { id: string; name: string },
  records: ChunkRecord[],
  edges: GraphEdge[],
  opts: { asOf: number; exportedAt: number; scope?: string | undefined },
  csp: string,
): Parts {
  const e = escapeHtml;
  function* lines(): Generator<string, void, undefined> {
    yield "<!doctype html>";
    yield `<html lang="en"><head><meta charset="utf-8">`;
    yield `<meta http-equiv="Content-Security-Policy" content="${e(csp)}">`;
    yield `<meta name="viewport" content="width=device-width, initial-scale=1">`;
    yield `<title>${e(archive.name)} - PaperGuru export</title>`;
    yield `<style>${HTML_STYLE}</style></head><body>`;
    yield `<h1>${e(archive.name)} <code>${e(archive.id)}</code></h1>`;
    yield `<p>${records.length} chunk${records.length === 1 ? "" : "s"} and ${edges.length} edge${edges.length === 1 ? "" : "s"} as of ${e(iso(opts.asOf))}${opts.scope ? `, ${e(opts.scope)}` : ""}; exported ${e(iso(opts.exportedAt))}.</p>`;
    for (const [kind, rows] of byKind(records)) {
      yield `<h2>${e(kind)} (${rows.length})</h2>`;
      yield "<table><thead><tr>";
      yield "<th>id</th><th>version</th><th>title</th><th>valid from</th><th>review</th></tr></thead><tbody>";
      for (const r of rows) {
        const dep =
          r.deprecatedAt !== null
            ? `<div class="dep">deprecated ${e(iso(r.deprecatedAt))}${r.deprecatedBy ? ` by <code>${e(r.deprecatedBy)}</code>` : ""}</div>`
            : "";
        const ver = `v${r.version}${r.version !== r.latestVersion ? ` of ${r.latestVersion}` : ""}`;
        const syn = r.synopsis ? `<p class="syn">${e(r.synopsis)}</p>` : "";
        yield `<tr id="${e(r.id)}"><td><code>${e(r.id)}</code></td><td>${ver}</td><td>${e(r.title)}${syn}${dep}</td><td>${e(iso(r.validFrom))}</td><td>${status(r.reviewStatus)}</td></tr>`;
      }
      yield "</tbody></table>";
    }
    if (edges.length) {
      yield `<h2>Edges (${edges.length})</h2>`;
      yield "<table><thead><tr>";
      yield "<th>from</th><th>type</th><th>to</th><th>weight</th><th>valid from</th><th>review</th></tr></thead><tbody>";
      for (const g of edges)
        yield `<tr><td><code>${e(g.src)}</code></td><td>${e(g.type)}</td><td><code>${e(g.dst)}</code></td><td>${Number(g.weight.toPrecision(4))}</td><td>${e(iso(g.validFrom))}</td><td>${status(g.reviewStatus)}</td></tr>`;
      yield "</tbody></table>";
    }
    yield "</body></html>";
    yield "";
  }
  return { parts: lines(), sep: "\n" };
}
