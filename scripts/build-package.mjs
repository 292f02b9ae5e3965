#!/usr/bin/env node
/**
 * Builds what `npm pack` ships (runs as `prepack`): the `paperguru` CLI and the typed client as
 * bundled ES modules for Node 20 (dist/pkg/cli.mjs, dist/pkg/client.mjs) and the client's type
 * declarations (dist/pkg/types). Installed from the tarball, `paperguru` runs the bundle; inside the
 * checkout bin/paperguru.mjs runs the TypeScript sources through tsx instead.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "pkg");
rmSync(out, { recursive: true, force: true });

const common = {
  bundle: true,
  format: "esm",
  target: "node20",
  logLevel: "warning",
  legalComments: "none",
};
// CommonJS dependencies (cli-progress) call require(): give the ES module bundle one.
const requireShim =
  "import { createRequire as __pgCreateRequire } from 'node:module'; const require = __pgCreateRequire(import.meta.url);";

await build({
  ...common,
  entryPoints: [join(root, "src", "cli", "main.ts")],
  outfile: join(out, "cli.mjs"),
  platform: "node",
  banner: { js: requireShim },
});
await build({
  ...common,
  entryPoints: [join(root, "src", "client.ts")],
  outfile: join(out, "client.mjs"),
  platform: "neutral",
});
execFileSync(
  process.execPath,
  [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(root, "tsconfig.package.json")],
  {
    stdio: "inherit",
  },
);
// The sources import without extensions (moduleResolution Bundler); consumers on node16/nodenext need
// them in declarations: "./contract" -> "./contract/index.js", "./core/types" -> "./core/types.js".
function fixSpecifiers(dir) {
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) {
      fixSpecifiers(file);
      continue;
    }
    if (!file.endsWith(".d.ts")) continue;
    const text = readFileSync(file, "utf8").replace(
      /(from |import\()(["'])(\.{1,2}\/[^"']+)\2/g,
      (m, lead, q, spec) => {
        if (/\.(js|mjs|cjs|json)$/.test(spec)) return m;
        const base = resolve(dirname(file), spec);
        if (existsSync(`${base}.d.ts`)) return `${lead}${q}${spec}.js${q}`;
        if (existsSync(join(base, "index.d.ts"))) return `${lead}${q}${spec}/index.js${q}`;
        throw new Error(`${file}: cannot resolve ${spec}`);
      },
    );
    writeFileSync(file, text);
  }
}
fixSpecifiers(join(out, "types"));
console.log(`built ${out}`);
