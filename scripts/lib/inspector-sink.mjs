// wrangler dev's inspector proxy (wrangler 4.86, templates/startDevWorker/InspectorProxyWorker.ts)
// enables the runtime's Network domain and keeps every message the runtime sends in memory until a
// DevTools client connects. Measured with 200-passage ingests: each ingest sends ~13
// Network.loadingFinished messages of ~40 KB, so with no client attached the proxy's workerd grew
// by ~0.7 MB an ingest and died at its 1.4 GB heap limit after ~1,100 ingests (226,000 passages;
// issue 38). `keepInspectorQuiet` attaches now and then, turns the Network domain off (a reload
// turns it on again), takes whatever was kept, and lets go: the proxy admits one client at a time,
// so a DevTools window opened meanwhile is only refused while this holds the slot (under 2 s).
import WebSocket from "ws";

const EVERY_MS = 10_000;
const HOLD_MS = 2_000;

/** True once the Network domain was turned off (false: the inspector is not up yet). */
async function quietOnce(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) return false;
  let off = false;
  const ws = new WebSocket(url.replace("localhost", "127.0.0.1"), { maxPayload: 2 ** 31 - 1 });
  await new Promise((resolve) => {
    const done = setTimeout(() => ws.terminate(), HOLD_MS);
    ws.once("open", () => ws.send(JSON.stringify({ id: 1, method: "Network.disable" })));
    ws.on("message", (m) => {
      if (JSON.parse(String(m)).id !== 1) return;
      off = true;
      ws.close();
    });
    ws.once("close", () => {
      clearTimeout(done);
      resolve();
    });
    ws.once("error", () => {
      clearTimeout(done);
      resolve();
    });
  });
  return off;
}

/**
 * Keep the Network domain of the Worker's inspector on `port` off until the returned function is
 * called: every second until the inspector answers (so little is kept before), then every `everyMs`.
 */
export function keepInspectorQuiet(port, everyMs = EVERY_MS) {
  let timer;
  let stopped = false;
  const tick = () =>
    quietOnce(port)
      .catch(() => false)
      .then((off) => {
        if (!stopped) timer = setTimeout(tick, off ? everyMs : 1_000).unref();
      });
  timer = setTimeout(tick, 1_000).unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
