/**
 * A DevTools-protocol client for the Worker's isolate of a local server started with
 * `inspectorPort` (scripts/lib/server.ts), and what a CPU profile says about blocking: the longest
 * stretches of samples with JavaScript (or the runtime) on the thread, and the functions those
 * stretches spent their time in. Used by scripts/probe-heavy.ts --profile.
 */
import WebSocket from "ws";

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface DevTools {
  send(method: string, params?: object): Promise<unknown>;
  close(): void;
}

export async function devtools(port: number): Promise<DevTools> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no DevTools target on port ${port}`);
  const ws = new WebSocket(url.replace("localhost", "127.0.0.1"), { maxPayload: 1024 * 1024 * 1024 });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  let next = 0;
  const pending = new Map<number, (v: unknown) => void>();
  ws.on("message", (m) => {
    const d = JSON.parse(String(m)) as { id?: number; result?: unknown };
    if (d.id === undefined) return;
    pending.get(d.id)?.(d.result);
    pending.delete(d.id);
  });
  const send = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      const id = ++next;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}

/** One stretch of consecutive busy samples (anything but "(idle)"). */
export interface BusyStretch {
  /** Milliseconds from the profile's start. */
  startMs: number;
  ms: number;
  /** Self time by function (`name url:line`), largest first. */
  self: Array<{ fn: string; ms: number }>;
  /** Time under each function (inclusive, counted once per sample), largest first. */
  inclusive: Array<{ fn: string; ms: number }>;
}

const label = (n: ProfileNode) => {
  const f = n.callFrame;
  const file = f.url.split("/").slice(-1)[0] ?? "";
  return `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}`;
};

/**
 * The `top` longest busy stretches of a profile, each with its `fns` heaviest functions. A stretch
 * ends at the first idle gap of at least `gapMs` (a sample or two of idle between two slices of
 * work does not let a waiting request in when both are microtasks; a real yield shows as idle).
 * A sample counts for at most `maxSampleMs` (samples come irregularly under load). Locally a
 * stretch without JavaScript (the simulated D1 and R2 answering in-process) can hold other
 * requests too, so the /healthz waits, not these stretches, are the measure; the stretches say
 * where the JavaScript time went.
 */
export function busyStretches(p: CpuProfile, top = 3, fns = 15, gapMs = 1, maxSampleMs = 10): BusyStretch[] {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of p.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const idle = new Set(p.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  const stretches: Array<{ from: number; to: number; startMs: number; ms: number }> = [];
  let t = 0;
  let cur: { from: number; to: number; startMs: number; ms: number } | null = null;
  let idleRun = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    t += dt;
    const busy = !idle.has(p.samples[i] as number);
    if (busy) {
      if (!cur) cur = { from: i, to: i, startMs: t, ms: 0 };
      cur.to = i;
      cur.ms += Math.min(dt, maxSampleMs) + idleRun;
      idleRun = 0;
    } else if (cur) {
      idleRun += dt;
      if (idleRun >= gapMs) {
        stretches.push(cur);
        cur = null;
        idleRun = 0;
      }
    }
  }
  if (cur) stretches.push(cur);
  stretches.sort((a, b) => b.ms - a.ms);
  return stretches.slice(0, top).map((s) => {
    const self = new Map<string, number>();
    const incl = new Map<string, number>();
    for (let i = s.from; i <= s.to; i++) {
      const id = p.samples[i] as number;
      if (idle.has(id)) continue;
      const dt = Math.min((p.timeDeltas[i] ?? 0) / 1000, maxSampleMs);
      const node = byId.get(id);
      if (!node) continue;
      const own = label(node);
      self.set(own, (self.get(own) ?? 0) + dt);
      const seen = new Set<string>();
      for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) {
        const n = byId.get(x);
        if (!n) break;
        const l = label(n);
        if (seen.has(l)) continue;
        seen.add(l);
        incl.set(l, (incl.get(l) ?? 0) + dt);
      }
    }
    const sorted = (m: Map<string, number>) =>
      [...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, fns)
        .map(([fn, ms]) => ({ fn, ms: Math.round(ms * 10) / 10 }));
    return { startMs: Math.round(s.startMs), ms: Math.round(s.ms), self: sorted(self), inclusive: sorted(incl) };
  });
}
