/**
 * The explorer: a page at `/` and `/explore` that reads one archive through the public REST API
 * with a key the person pastes (kept in sessionStorage by the page). The page is static HTML; its
 * script and stylesheet are built from src/explorer by scripts/build-explorer.mjs (esbuild, preact,
 * cytoscape) and handed in by the Worker entry as text, so the Worker serves them itself: no CDN,
 * no remote origin, and a policy that allows only this origin's script (checked by its SHA-256
 * through `integrity`) and stylesheet.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { type AppEnv, errorBody } from "./common";
import { AUTH } from "./docs";

/** The built page assets (text); null when the Worker was built without them (tests of the document). */
export interface ExplorerAssets {
  js: string;
  css: string;
}

/** The policy of the page and its assets: same-origin script, style and fetches only. */
export const EXPLORER_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

async function sha256(text: string): Promise<{ hex: string; b64: string }> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return {
    hex: [...d].map((b) => b.toString(16).padStart(2, "0")).join(""),
    b64: btoa(String.fromCharCode(...d)),
  };
}

/**
 * The stylesheet link carries the id cytoscape looks for before it inserts its own inline <style>
 * (which this policy would refuse); app.css holds that one rule instead.
 */
function page(js: { hex: string; b64: string }, css: { hex: string; b64: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>PaperGuru explorer</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" id="__________cytoscape_stylesheet" href="/explore/app.css?v=${css.hex.slice(0, 16)}" integrity="sha256-${css.b64}">
<script defer src="/explore/app.js?v=${js.hex.slice(0, 16)}" integrity="sha256-${js.b64}"></script>
</head>
<body>
<div id="app">
<noscript><p>The explorer needs JavaScript. The API reference is at <a href="/docs">/docs</a>, the OpenAPI document at
<a href="/openapi.json">/openapi.json</a>, MCP at <code>/mcp</code>, the health check at <a href="/healthz">/healthz</a>.</p></noscript>
</div>
</body>
</html>
`;
}

const MISSING = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>PaperGuru</title></head><body>
<p>The explorer was not built into this Worker (run <code>node scripts/build-explorer.mjs</code>). The API reference is at
<a href="/docs">/docs</a>.</p></body></html>`;

const HTML_DOC = {
  200: {
    description: "OK",
    content: { "text/html": { schema: { type: "string" as const }, example: "<!doctype html>..." } },
  },
};

/** Register `/`, `/explore` and the two assets on the root app, documented like the other public routes. */
export function mountExplorer(app: OpenAPIHono<AppEnv>, assets: ExplorerAssets | null): void {
  let built: Promise<{ html: string; jsPath: string; cssPath: string }> | null = null;
  const build = () => {
    built ??= (async () => {
      if (!assets) return { html: MISSING, jsPath: "", cssPath: "" };
      const [js, css] = await Promise.all([sha256(assets.js), sha256(assets.css)]);
      return { html: page(js, css), jsPath: js.hex.slice(0, 16), cssPath: css.hex.slice(0, 16) };
    })();
    return built;
  };
  for (const path of ["/", "/explore"]) {
    app.openAPIRegistry.registerPath({
      method: "get",
      path,
      tags: ["service"],
      summary: path === "/" ? "The explorer (landing page)" : "The explorer",
      description:
        "A page for people: paste an archive key (kept in sessionStorage only), then ask (cards, anchors verified against the exact version), see the route (mentions, seeds, diffusion, router steps as a graph, moving as_of), browse chunks, versions, diffs, entities and neighbours, and operate (ingest log, sources, webhook deliveries and event dead letters with replay for write keys, counts). It calls only the REST API below; its script and stylesheet come from this Worker under a strict Content-Security-Policy.",
      security: AUTH.none,
      responses: HTML_DOC,
    });
    app.get(path, async (c) => {
      const b = await build();
      c.header("content-security-policy", EXPLORER_CSP);
      c.header("cache-control", "no-cache");
      c.header("referrer-policy", "no-referrer");
      return c.html(b.html);
    });
  }
  const asset = (path: string, type: string, example: string, pick: (a: ExplorerAssets) => string) => {
    app.openAPIRegistry.registerPath({
      method: "get",
      path,
      tags: ["service"],
      summary: `The explorer's ${type === "text/css" ? "stylesheet" : "script"}`,
      description:
        "Built into the Worker from src/explorer (no remote origin). `?v=` is the first 16 hex digits of its SHA-256; a matching `v` is cached for a year.",
      security: AUTH.none,
      responses: { 200: { description: "OK", content: { [type]: { schema: { type: "string" as const }, example } } } },
    });
    app.get(path, async (c) => {
      const b = await build();
      if (!assets)
        return c.json(
          errorBody({ kind: "not_found", message: "the explorer was not built into this Worker", hint: "see /docs" }),
          404,
        );
      const v = c.req.query("v");
      const current = type === "text/css" ? b.cssPath : b.jsPath;
      c.header("content-type", `${type}; charset=utf-8`);
      c.header("content-security-policy", EXPLORER_CSP);
      c.header("cache-control", v === current ? "public, max-age=31536000, immutable" : "no-cache");
      return c.body(pick(assets));
    });
  };
  asset("/explore/app.js", "text/javascript", '"use strict";(()=>{...})();', (a) => a.js);
  asset("/explore/app.css", "text/css", ":root{color-scheme:light dark}...", (a) => a.css);
}
