// Local D1 migrations for `npm start` and the harness's throwaway servers. The state directory
// records the migrations last applied to it (a sha256 of migrations/*.sql, beside the local D1
// database), so a restart with the same migrations skips `wrangler d1 migrations apply`: a process
// that takes ~5 s of a 2-core machine to find nothing to do. A new or changed migration applies again.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** sha256 of the names and contents of `<root>/migrations/*.sql`, in name order. */
export function migrationsHash(root) {
  const dir = join(root, "migrations");
  const h = createHash("sha256");
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith(".sql"))
    .sort())
    h.update(f)
      .update("\0")
      .update(readFileSync(join(dir, f)))
      .update("\0");
  return h.digest("hex");
}

/**
 * Apply the migrations to the local D1 database under `state` (wrangler's --persist-to; its default
 * .wrangler/state when null) unless its marker names these migrations. Returns wrangler's exit status
 * (0 when nothing was to do).
 */
export function applyLocalMigrations({ root, state, env, quiet }) {
  const dir = join(resolve(root, state ?? ".wrangler/state"), "v3", "d1");
  const marker = join(dir, "paperguru-migrations.sha256");
  const hash = migrationsHash(root);
  if (existsSync(marker) && readFileSync(marker, "utf8").trim() === hash) return 0;
  const local = join(root, "node_modules", ".bin", "wrangler");
  const wrangler = existsSync(local) ? local : "wrangler";
  const mig = spawnSync(
    wrangler,
    ["d1", "migrations", "apply", "DB", "--local", ...(state ? ["--persist-to", state] : [])],
    {
      cwd: root,
      env,
      stdio: quiet ? "ignore" : "inherit",
    },
  );
  if (mig.status !== 0) return mig.status ?? 1;
  writeFileSync(marker, `${hash}\n`);
  return 0;
}
