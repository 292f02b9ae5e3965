import { WORKER } from "./worker";

export const ADMIN = "test-admin-key";

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
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
  const res = await WORKER.fetch(`http://paperguru.test${path}`, {
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
  return { status: res.status, body: parsed as T, headers: res.headers };
}

let counter = 0;
/** One runtime and its storage serve many test files in turn (setup.ts), so archive ids are unique per runtime. */
export async function newArchive(prefix = "t"): Promise<{ id: string; key: string }> {
  const id = `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
  const res = await api("POST", "/v1/archives", { id, name: `test ${id}` });
  if (res.status !== 201) throw new Error(`archive create failed: ${JSON.stringify(res.body)}`);
  return { id, key: res.body.key.secret as string };
}

/** A dump without what may differ between archives: ids, record times, event sequence numbers. */
// biome-ignore lint/suspicious/noExplicitAny: structural comparison of dumps
export function comparableDump(d: any) {
  return {
    chunks: d.chunks.map(
      (c: { versions: Array<Record<string, unknown>>; annotations?: Array<Record<string, unknown>> }) => ({
        ...c,
        versions: c.versions.map(({ recorded_at: _r, ...v }) => v),
        ...(c.annotations ? { annotations: c.annotations.map(({ seq: _s, event_id: _e, ...a }) => a) } : {}),
      }),
    ),
    entities: d.entities.map(
      // biome-ignore lint/suspicious/noExplicitAny: see above
      (e: any) => ({
        ...e,
        created: e.created ? { name: e.created.name, at: e.created.at } : null,
        // biome-ignore lint/suspicious/noExplicitAny: see above
        ops: e.ops.map(({ recorded_at: _r, seq: _s, ...o }: any) => o),
      }),
    ),
    deprecations: d.deprecations.map(({ recorded_at: _r, ...x }: Record<string, unknown>) => x),
    edges: [...d.edges].map((e) => JSON.stringify(e)).sort(),
  };
}
