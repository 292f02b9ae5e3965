// The local server's front door: a Node HTTP server on the public port that forwards each request to
// `wrangler dev` on an internal port.
//
// Why: workerd closes a kept-alive connection after 5 s idle (kj's pipeline timeout, not
// configurable through wrangler) and says nothing about it in the response. A client whose event
// loop is busy for more than 5 s between two requests (Node's fetch while a harness scores a run)
// then sends its next request on a connection the server has already closed and gets "fetch
// failed: other side closed". This server keeps idle connections for IDLE_MS and says so
// (`Keep-Alive: timeout=600`). Its own connections to workerd are pooled but closed after 2 s idle,
// well inside workerd's 5 s, by this process, whose event loop does nothing else. Production is unaffected: Cloudflare's
// edge holds the client connections there.
import { Agent, createServer, request as httpRequest } from "node:http";

/** How long an idle client connection stays open (10 min; Node's default is 5 s). */
export const IDLE_MS = 600_000;

/**
 * Serve `host:port`, forwarding to the Worker at 127.0.0.1:`upstreamPort`. Bodies stream both
 * ways; the Host header is kept, so URLs the Worker builds from its request name the public port.
 * Resolves with the listening server.
 */
export function startFront({ host, port, upstreamPort }) {
  // `timeout` applies to idle pooled sockets only (an active request is never cut by it).
  const agent = new Agent({ keepAlive: true, timeout: 2_000 });
  const server = createServer((req, res) => {
    const headers = { ...req.headers };
    delete headers.connection;
    delete headers["keep-alive"];
    const upstream = httpRequest(
      { host: "127.0.0.1", port: upstreamPort, method: req.method, path: req.url, headers, agent },
      (up) => {
        const out = { ...up.headers };
        delete out.connection;
        delete out["keep-alive"];
        res.writeHead(up.statusCode ?? 502, up.statusMessage, out);
        up.pipe(res);
        up.on("error", () => res.destroy());
      },
    );
    upstream.on("error", (e) => {
      if (res.headersSent) return res.destroy();
      // The Worker is not listening yet, or restarting after a change to src/.
      res.writeHead(503, { "content-type": "application/json", "retry-after": "1" });
      res.end(
        JSON.stringify({
          error: { type: "unavailable", message: `the local Worker is not answering (${e.code ?? e.message}); retry` },
        }),
      );
    });
    // A client that goes away mid-request cancels the forwarded request.
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = IDLE_MS;
  // Imports of large files may take minutes; the Worker bounds its own work.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(Number(port), host, () => resolve(server));
  });
}

/** A free TCP port on the loopback interface. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
