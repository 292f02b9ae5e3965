/**
 * The installable package: `npm pack` (which builds dist/pkg through `prepack`) makes a tarball that,
 * installed into an empty folder, provides the `paperguru` command and `import { PaperGuruClient }
 * from "paperguru"` with types. Both run against a local worker. The install resolves the package's
 * two dependencies (zod and @hono/zod-openapi, for the client's types) from the npm cache or registry.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

let server: Server;
let tmp: string;
let app: string;

beforeAll(async () => {
  server = await startServer({ fresh: true });
  tmp = mkdtempSync(join(tmpdir(), "paperguru-pkg-"));
  await run(NPM, ["pack", "--pack-destination", tmp], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  const tarball = readdirSync(tmp).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack made no tarball");
  app = join(tmp, "app");
  await run("mkdir", ["-p", app]);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  await run(NPM, ["install", "--prefer-offline", "--no-audit", "--no-fund", join(tmp, tarball)], {
    cwd: app,
    maxBuffer: 16 * 1024 * 1024,
  });
}, 300_000);

afterAll(() => {
  server?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("npm pack -> npm install", () => {
  it("installs the paperguru command, which works against a server", async () => {
    const bin = join(app, "node_modules", ".bin", "paperguru");
    const env = { ...process.env, PAPERGURU_URL: server.url, PAPERGURU_ADMIN_KEY: server.adminKey, HOME: tmp };
    expect((await run(bin, ["--version"], { env })).stdout.trim()).toBe("paperguru 0.1.0");
    const created = JSON.parse((await run(bin, ["archives", "create", "pkg-test", "--json"], { env })).stdout);
    const key = created.key.secret as string;
    const as = { ...env, PAPERGURU_KEY: key, PAPERGURU_ARCHIVE: "pkg-test" };
    const note = await run(bin, ["note", "Installed from the tarball: the damping stays at 0.85."], { env: as });
    expect(note.stdout).toMatch(/^note:[0-9a-f]{12}: created \(version 1\)/);
    const ctx = await run(bin, ["context", "damping", "--json"], { env: as });
    expect(JSON.parse(ctx.stdout).cards[0].claim_boundary).toContain("0.85");
    // The bundle, not the sources: the package has no src/ folder and no tsx.
    expect(readdirSync(join(app, "node_modules", "paperguru")).sort()).toEqual([
      "README.md",
      "bin",
      "dist",
      "package.json",
    ]);
  });

  it("exports the typed client: it runs, and the types catch mistakes", async () => {
    writeFileSync(
      join(app, "use.mjs"),
      `import { PaperGuruClient } from "paperguru";
const c = new PaperGuruClient(process.env.U, process.env.K);
const page = await c.chunks("pkg-test", { kind: "note" });
const id = page.chunks[0].id;
await c.annotate("pkg-test", id, { key: "status", value: "committed" });
const status = (await c.annotations("pkg-test", id)).values.status.value;
const brief = await c.brief("pkg-test", { request: "anything" });
console.log(JSON.stringify({ ids: page.chunks.map((x) => x.id), status, tokens: brief.tokens > 0 }));`,
    );
    const created = JSON.parse(
      (
        await run(
          join(app, "node_modules", ".bin", "paperguru"),
          ["keys", "create", "--archive", "pkg-test", "--json"],
          {
            env: { ...process.env, PAPERGURU_URL: server.url, PAPERGURU_ADMIN_KEY: server.adminKey, HOME: tmp },
          },
        )
      ).stdout,
    );
    const out = await run(process.execPath, ["use.mjs"], {
      cwd: app,
      env: { ...process.env, U: server.url, K: created.secret },
    });
    expect(JSON.parse(out.stdout)).toMatchObject({ status: "committed", tokens: true });
    expect(JSON.parse(out.stdout).ids).toHaveLength(1);

    writeFileSync(
      join(app, "good.ts"),
      `import { PaperGuruClient, type ChunkPage, type ContextResponse } from "paperguru";
const c = new PaperGuruClient("http://127.0.0.1:1", "k");
const page: Promise<ChunkPage> = c.chunks("a", { kind: "paper", limit: 5 });
const ctx: Promise<ContextResponse> = c.context("a", { query: "q" });
void page.then((p) => p.chunks.map((x) => x.title.toUpperCase()));
void ctx.then((r) => r.cards[0]?.anchored_spans[0]?.start);
`,
    );
    writeFileSync(
      join(app, "bad.ts"),
      `import { PaperGuruClient } from "paperguru";
const c = new PaperGuruClient("http://127.0.0.1:1", "k");
void c.chunks("a", { kind: "poem" });
void c.chunks("a").then((p) => p.chunks[0]?.no_such_field);
`,
    );
    const tsc = (file: string, resolution: "nodenext" | "bundler") =>
      run(
        process.execPath,
        [
          TSC,
          "--noEmit",
          "--strict",
          "--target",
          "es2022",
          "--module",
          resolution === "nodenext" ? "nodenext" : "es2022",
          "--moduleResolution",
          resolution,
          "--typeRoots",
          join(ROOT, "node_modules", "@types"),
          "--types",
          "node",
          file,
        ],
        { cwd: app },
      ).then(
        () => "",
        (e: { stdout: string }) => e.stdout,
      );
    for (const resolution of ["nodenext", "bundler"] as const) {
      expect(await tsc("good.ts", resolution), resolution).toBe("");
      const errors = await tsc("bad.ts", resolution);
      expect(errors).toContain(`Type '"poem"' is not assignable`);
      expect(errors).toContain("Property 'no_such_field' does not exist");
    }
    // Four full tsc passes over the installed package's .d.ts (no skipLibCheck): ~15 s of CPU each on
    // this 2-core machine (14.0 s at 9b513fa, 15.4 s with the review contract), so 60 s was the edge.
  }, 180_000);
});
