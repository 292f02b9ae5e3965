import { SELF } from "cloudflare:test";

export const ADMIN = "test-admin-key";

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected structurally in tests
export async function api<T = any>(
  method: string,
  path: string,
  body?: unknown,
  key: string | null = ADMIN,
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await SELF.fetch(`http://paperguru.test${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // leave as text
  }
  return { status: res.status, body: parsed as T };
}

let counter = 0;
/** Storage is per test file, so archive ids must be unique per test. */
export async function newArchive(prefix = "t"): Promise<{ id: string; key: string }> {
  const id = `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
  const res = await api("POST", "/v1/archives", { id, name: `test ${id}` });
  if (res.status !== 201) throw new Error(`archive create failed: ${JSON.stringify(res.body)}`);
  return { id, key: res.body.key.secret as string };
}
