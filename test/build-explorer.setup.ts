/**
 * vitest global setup: build the explorer's assets (build/explorer/*.txt) and the reference pages
 * (build/docs/pages.json.txt) before the Worker is loaded, since src/index.ts imports them as text
 * modules. `wrangler dev` builds them itself
 * (the [build] command in wrangler.toml); the Workers test pool does not.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export default function setup(): void {
  const root = join(import.meta.dirname, "..");
  for (const script of ["build-explorer.mjs", "build-docs.mjs"])
    execFileSync(process.execPath, [join(root, "scripts", script), "--quiet"], { cwd: root, stdio: "inherit" });
}
