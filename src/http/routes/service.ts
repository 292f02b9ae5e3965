/** The health check. */
import * as S from "../../contract";
import { json } from "../common";
import { endpoint, resourceApp } from "../route";

export const serviceRoutes = resourceApp();

endpoint(
  serviceRoutes,
  "none",
  {
    method: "get",
    path: "/healthz",
    tags: ["service"],
    summary: "Health check",
    description: "Answers without a key and without touching storage.",
    responses: { 200: json(S.Healthz) },
  },
  async (c) => {
    return c.json({ ok: true, service: "paperguru" }, 200);
  },
);
