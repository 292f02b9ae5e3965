/** `npm start` on a busy port says how to pick another one, before starting anything. */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { expect, it } from "vitest";

it("exits 1 with a PORT= hint when the port is taken", async () => {
  const taken = createServer();
  await new Promise<void>((r) => taken.listen(0, "127.0.0.1", () => r()));
  const port = (taken.address() as { port: number }).port;
  try {
    const child = spawn(process.execPath, [join(import.meta.dirname, "..", "..", "scripts", "start.mjs")], {
      cwd: join(import.meta.dirname, "..", ".."),
      env: { ...process.env, PORT: String(port), HOST: "127.0.0.1" },
    });
    let err = "";
    child.stderr.on("data", (d) => {
      err += String(d);
    });
    const code = await new Promise<number | null>((r) => child.on("exit", r));
    expect(code).toBe(1);
    expect(err).toContain(`port ${port} on 127.0.0.1 is in use`);
    expect(err).toContain(`PORT=${port + 1} npm start`);
  } finally {
    taken.close();
  }
}, 30_000);
