import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "../../src/config";

const ROOT = resolve(__dirname, "../..");

describe("configuration", () => {
  it("defaults to the local implementations and reads the secrets", () => {
    expect(readConfig({ ADMIN_KEY: "k" })).toEqual({
      embedder: "local",
      vectorIndex: "local",
      distiller: "extractive",
      adminKey: "k",
      githubToken: null,
      contactEmail: null,
      allowHosts: [],
      dnsResolver: "https://cloudflare-dns.com/dns-query",
    });
    expect(readConfig({ DNS_RESOLVER: "none" }).dnsResolver).toBeNull();
    expect(readConfig({ DNS_RESOLVER: "https://dns.google/resolve" }).dnsResolver).toBe("https://dns.google/resolve");
    expect(readConfig({ OUTBOUND_ALLOW_HOSTS: " localhost, 127.0.0.1 ," }).allowHosts).toEqual([
      "localhost",
      "127.0.0.1",
    ]);
  });

  it("names the variable, the bad value and the allowed values instead of falling back", () => {
    expect(() => readConfig({ EMBEDDER: "workers_ai" })).toThrow(
      'EMBEDDER="workers_ai" is not one of: local, workers-ai',
    );
    expect(() => readConfig({ VECTOR_INDEX: "vectorise" })).toThrow(ConfigError);
    expect(() => readConfig({ DISTILLER: "llm" })).toThrow("DISTILLER");
    expect(() => readConfig({ DNS_RESOLVER: "http://10.0.0.1/dns-query" })).toThrow('DNS_RESOLVER="http://10.0.0.1');
    expect(() => readConfig({ DNS_RESOLVER: "1.1.1.1" })).toThrow(ConfigError);
  });

  it("refuses a choice whose binding is missing", () => {
    expect(() => readConfig({ EMBEDDER: "workers-ai" })).toThrow("needs the AI binding");
    expect(() => readConfig({ VECTOR_INDEX: "vectorize" })).toThrow("needs the VECTORS binding");
    expect(readConfig({ VECTOR_INDEX: "none" }).vectorIndex).toBe("none");
    expect(readConfig({ EMBEDDER: "workers-ai", AI: {} }).embedder).toBe("workers-ai");
  });

  it("the generated Env (worker-configuration.d.ts) matches wrangler.toml, and the check can fail", () => {
    const check = (config: string) =>
      spawnSync(
        process.execPath,
        [
          join(ROOT, "node_modules/wrangler/bin/wrangler.js"),
          "types",
          "--include-runtime=false",
          "--env-file",
          ".dev.vars.example",
          "--check",
          "-c",
          config,
        ],
        { cwd: ROOT, env: { ...process.env, WRANGLER_SEND_METRICS: "false" }, encoding: "utf8" },
      ).status;
    // wrangler's --check regenerates from .dev.vars, not from the --env-file the header names; a
    // fresh clone has none until `npm start` copies the example, so do what `npm start` does.
    if (!existsSync(join(ROOT, ".dev.vars"))) copyFileSync(join(ROOT, ".dev.vars.example"), join(ROOT, ".dev.vars"));
    expect(check("wrangler.toml")).toBe(0);
    const stale = join(ROOT, "wrangler.stale-check.toml");
    copyFileSync(join(ROOT, "wrangler.toml"), stale);
    try {
      writeFileSync(
        stale,
        readFileSync(stale, "utf8").replace('DISTILLER = "extractive"', 'DISTILLER = "extractive"\nEXTRA = "x"'),
      );
      expect(check(stale)).not.toBe(0);
    } finally {
      rmSync(stale, { force: true });
    }
  }, 60_000);
});
