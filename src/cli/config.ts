/**
 * CLI settings: flags override the environment (PAPERGURU_URL, PAPERGURU_KEY, PAPERGURU_ADMIN_KEY,
 * PAPERGURU_ARCHIVE), which overrides the config file ($PAPERGURU_CONFIG or
 * ~/.config/paperguru/config.json, mode 0600), which overrides the defaults (the local `npm start`).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { UsageError } from "./io";

export const DEFAULT_URL = "http://127.0.0.1:8787";

export const CONFIG_KEYS = ["url", "key", "archive", "admin-key"] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

export interface ConfigFile {
  url?: string;
  key?: string;
  archive?: string;
  admin_key?: string;
}

const FIELD: Record<ConfigKey, keyof ConfigFile> = {
  url: "url",
  key: "key",
  archive: "archive",
  "admin-key": "admin_key",
};
const ENV: Record<ConfigKey, string> = {
  url: "PAPERGURU_URL",
  key: "PAPERGURU_KEY",
  archive: "PAPERGURU_ARCHIVE",
  "admin-key": "PAPERGURU_ADMIN_KEY",
};

export function configPath(env: Record<string, string | undefined>): string {
  return env.PAPERGURU_CONFIG || join(env.HOME || homedir(), ".config", "paperguru", "config.json");
}

export function loadConfig(path: string): ConfigFile {
  if (!existsSync(path)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new UsageError(`config file ${path} is not valid JSON (${(e as Error).message}); fix or delete it`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw new UsageError(`config file ${path} must hold a JSON object`);
  const out: ConfigFile = {};
  for (const k of Object.values(FIELD)) {
    const v = (parsed as Record<string, unknown>)[k];
    if (typeof v === "string" && v) out[k] = v;
  }
  return out;
}

/** Written to a temporary file then renamed, mode 0600 (it holds keys); the directory is 0700. */
export function saveConfig(path: string, cfg: ConfigFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(cfg, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

export function setConfigValue(cfg: ConfigFile, key: ConfigKey, value: string | undefined): ConfigFile {
  if (key === "url" && value !== undefined) checkUrl(value);
  const next = { ...cfg };
  if (value === undefined) delete next[FIELD[key]];
  else next[FIELD[key]] = value;
  return next;
}

export function checkUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`not a URL: ${url}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new UsageError(`the URL must be http(s): ${url}`);
  return url.replace(/\/+$/, "");
}

export type Origin = "flag" | "env" | "config" | "default" | "unset";

export interface Setting {
  value: string | undefined;
  origin: Origin;
  /** The flag, variable or file it came from, for messages. */
  from: string;
}

export interface Settings {
  path: string;
  file: ConfigFile;
  url: Setting;
  key: Setting;
  archive: Setting;
  adminKey: Setting;
}

export interface SettingFlags {
  url?: string | undefined;
  key?: string | undefined;
  archive?: string | undefined;
  "admin-key"?: string | undefined;
}

export function resolveSettings(env: Record<string, string | undefined>, flags: SettingFlags): Settings {
  const path = configPath(env);
  const file = loadConfig(path);
  const pick = (k: ConfigKey, fallback?: string): Setting => {
    if (flags[k]) return { value: flags[k], origin: "flag", from: `--${k}` };
    const e = env[ENV[k]];
    if (e) return { value: e, origin: "env", from: ENV[k] };
    const f = file[FIELD[k]];
    if (f) return { value: f, origin: "config", from: path };
    if (fallback) return { value: fallback, origin: "default", from: "default" };
    return { value: undefined, origin: "unset", from: "" };
  };
  const url = pick("url", DEFAULT_URL);
  if (url.value) url.value = checkUrl(url.value);
  return { path, file, url, key: pick("key"), archive: pick("archive"), adminKey: pick("admin-key") };
}
