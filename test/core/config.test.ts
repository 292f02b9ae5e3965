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
      extractor: "none",
      llm: null,
      embedding: null,
      rerank: null,
      adminKey: "k",
      githubToken: null,
      contactEmail: null,
      allowHosts: [],
      dnsResolver: "https://cloudflare-dns.com/dns-query",
    });
    expect(readConfig({ DNS_RESOLVER: "none" }).dnsResolver).toBeNull();
    // A reranker is off unless named; a named one needs its endpoint (and a model unless TEI).
    expect(
      readConfig({ RERANKER: "cohere", RERANK_BASE_URL: "https://rerank.example.com/v1", RERANK_MODEL: "m" }).rerank,
    ).toEqual({ provider: "cohere", baseUrl: "https://rerank.example.com/v1", model: "m", apiKey: null });
    expect(() => readConfig({ RERANKER: "jina", RERANK_BASE_URL: "https://rerank.example.com/v1" })).toThrow(
      /RERANK_MODEL/,
    );
    expect(() => readConfig({ RERANKER: "tei" })).toThrow(/RERANK_BASE_URL/);
    expect(() => readConfig({ RERANKER: "nope" })).toThrow(/RERANKER/);
    expect(readConfig({ DNS_RESOLVER: "https://dns.google/resolve" }).dnsResolver).toBe("https://dns.google/resolve");
    expect(readConfig({ OUTBOUND_ALLOW_HOSTS: " localhost, 127.0.0.1 ," }).allowHosts).toEqual([
      "localhost",
      "127.0.0.1",
    ]);
  });

  it("names the variable, the bad value and the allowed values instead of falling back", () => {
    expect(() => readConfig({ EMBEDDER: "workers_ai" })).toThrow(
      'EMBEDDER="workers_ai" is not one of: local, workers-ai, openai',
    );
    expect(() => readConfig({ VECTOR_INDEX: "vectorise" })).toThrow(ConfigError);
    expect(() => readConfig({ DISTILLER: "llm" })).toThrow("DISTILLER");
    expect(() => readConfig({ DNS_RESOLVER: "http://10.0.0.1/dns-query" })).toThrow('DNS_RESOLVER="http://10.0.0.1');
    expect(() => readConfig({ DNS_RESOLVER: "1.1.1.1" })).toThrow(ConfigError);
  });

  it("reads a model endpoint and refuses one it may not reach, naming the variable", () => {
    const local = { DISTILLER: "openai", LLM_BASE_URL: "http://127.0.0.1:8788/v1/", LLM_MODEL: "m" };
    expect(readConfig({ ...local, OUTBOUND_ALLOW_HOSTS: "127.0.0.1" }).llm).toEqual({
      provider: "openai",
      baseUrl: "http://127.0.0.1:8788/v1",
      model: "m",
      apiKey: null,
      maxTokensPerQuery: 60_000,
    });
    // A loopback model server is refused unless the deployment allows its host.
    expect(() => readConfig(local)).toThrow(
      /LLM_BASE_URL="http:\/\/127\.0\.0\.1:8788\/v1\/".*OUTBOUND_ALLOW_HOSTS=127\.0\.0\.1/,
    );
    expect(() => readConfig({ ...local, LLM_BASE_URL: "https://169.254.169.254/v1" })).toThrow("LLM_BASE_URL");
    expect(() => readConfig({ ...local, LLM_BASE_URL: "https://u:p@api.example.com/v1" })).toThrow("LLM_BASE_URL");
    expect(() => readConfig({ DISTILLER: "openai", LLM_MODEL: "m" })).toThrow("LLM_BASE_URL is not set");
    expect(() => readConfig({ DISTILLER: "openai", LLM_BASE_URL: "https://api.openai.com/v1" })).toThrow(
      "LLM_MODEL is not set",
    );
    expect(() => readConfig({ DISTILLER: "anthropic", LLM_MODEL: "claude" })).toThrow("LLM_API_KEY is not set");
    const anthropic = readConfig({ EXTRACTOR: "anthropic", LLM_MODEL: "claude", LLM_API_KEY: "sk" });
    expect(anthropic.llm?.baseUrl).toBe("https://api.anthropic.com/v1");
    expect(anthropic.distiller).toBe("extractive");
    expect(() => readConfig({ DISTILLER: "openai", EXTRACTOR: "anthropic" })).toThrow("name one");
    expect(() => readConfig({ DISTILLER: "workers-ai" })).toThrow("needs the AI binding");
    expect(readConfig({ DISTILLER: "workers-ai", AI: {} }).llm?.model).toBe("@cf/meta/llama-3.1-8b-instruct");
    expect(() => readConfig({ ...local, OUTBOUND_ALLOW_HOSTS: "127.0.0.1", LLM_MAX_TOKENS_PER_QUERY: "lots" })).toThrow(
      'LLM_MAX_TOKENS_PER_QUERY="lots"',
    );
    const emb = { EMBEDDER: "openai", EMBEDDING_BASE_URL: "https://api.openai.com/v1", EMBEDDING_MODEL: "e" };
    expect(() => readConfig(emb)).toThrow("EMBEDDING_DIMS is not set");
    expect(readConfig({ ...emb, EMBEDDING_DIMS: "1536" }).embedding).toEqual({
      baseUrl: "https://api.openai.com/v1",
      model: "e",
      apiKey: null,
      dims: 1536,
    });
    expect(() => readConfig({ ...emb, EMBEDDING_DIMS: "0" })).toThrow('EMBEDDING_DIMS="0"');
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
