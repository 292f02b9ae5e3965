/** Operations on an archive's capital chunk (admin key). */
import * as S from "../../contract";
import { json } from "../common";
import { errors } from "../docs";
import { endpoint, resourceApp } from "../route";

export const operationsRoutes = resourceApp();

endpoint(
  operationsRoutes,
  "admin",
  {
    method: "post",
    path: "/v1/archives/{archive}/admin/snapshot",
    tags: ["operations"],
    summary: "Checkpoint the capital chunk",
    description:
      "Admin key. Checkpoints the capital chunk now: its heap snapshot, its buffered tables and the change-log position, in one transaction of the Durable Object's own storage. Rebuilds start from the latest checkpoint and replay the change log after it.",
    request: { params: S.ArchiveParam },
    responses: { 200: json(S.Snapshot), ...errors(400, 401, 403, 404) },
  },
  async (c) => {
    return c.json(await c.var.app.archives.snapshot(c.req.valid("param").archive), 200);
  },
);

endpoint(
  operationsRoutes,
  "admin",
  {
    method: "post",
    path: "/v1/archives/{archive}/admin/evict",
    tags: ["operations"],
    summary: "Evict the capital chunk",
    description: "Admin key. Drops the in-memory copy, as an eviction would; the next call rebuilds it.",
    request: { params: S.ArchiveParam },
    responses: { 200: json(S.Evicted), ...errors(400, 401, 403, 404) },
  },
  async (c) => {
    return c.json(await c.var.app.archives.evict(c.req.valid("param").archive), 200);
  },
);
