#!/usr/bin/env node
// Build the explorer page's assets (src/explorer -> build/explorer/app.js.txt and app.css.txt) with
// esbuild: preact and cytoscape are bundled in, minified, with no runtime fetch of anything. The
// Worker entry imports both files as text modules. wrangler's [build] command runs this before
// `wrangler dev` and `wrangler deploy`; the Workers test project runs it in its global setup.
// Prints the sizes (raw and gzip; also written to build/explorer/sizes.json).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SRC = join(ROOT, "src", "explorer");
const OUT = join(ROOT, "build", "explorer");

// Several builds may run at once (each `wrangler dev` of the test suite runs this, and the Workers
// test project too): a file is replaced by rename, never seen half written, and left alone when its
// text is unchanged, so a running `wrangler dev` that imports it does not reload its Worker.
function writeIfChanged(path, text) {
  if (existsSync(path) && readFileSync(path, "utf8") === text) return;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export async function buildExplorer({ quiet = false } = {}) {
  mkdirSync(OUT, { recursive: true });
  const js = await build({
    entryPoints: [join(SRC, "main.tsx")],
    bundle: true,
    minify: true,
    format: "iife",
    target: ["es2020"],
    platform: "browser",
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "none",
    write: false,
    logLevel: "warning",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  const css = await build({
    entryPoints: [join(SRC, "app.css")],
    bundle: true,
    minify: true,
    write: false,
    logLevel: "warning",
  });
  const jsText = js.outputFiles[0].text;
  const cssText = css.outputFiles[0].text;
  writeIfChanged(join(OUT, "app.js.txt"), jsText);
  writeIfChanged(join(OUT, "app.css.txt"), cssText);
  const sizes = {
    js: { bytes: Buffer.byteLength(jsText), gzip: gzipSync(jsText).length },
    css: { bytes: Buffer.byteLength(cssText), gzip: gzipSync(cssText).length },
  };
  writeIfChanged(join(OUT, "sizes.json"), `${JSON.stringify(sizes, null, 2)}\n`);
  if (!quiet)
    console.log(
      `explorer: app.js ${(sizes.js.bytes / 1024).toFixed(1)} KiB (gzip ${(sizes.js.gzip / 1024).toFixed(1)} KiB), app.css ${(sizes.css.bytes / 1024).toFixed(1)} KiB (gzip ${(sizes.css.gzip / 1024).toFixed(1)} KiB)`,
    );
  return sizes;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  await buildExplorer({ quiet: process.argv.includes("--quiet") });
