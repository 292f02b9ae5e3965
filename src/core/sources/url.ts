/**
 * The url source: one URL answering the feed JSON format (the body POST /webhooks/feed takes),
 * fetched with conditional headers and read by the application's feed reader.
 */
import { fail } from "../errors";
import { conditionalHeaders, type SourceDefinition } from "./types";

export const urlSource: SourceDefinition = {
  rateLimit: { minIntervalMs: 1_000, note: "no published limit; 1 request/second courtesy default" },
  check: ({ location }, checkUrl) => {
    if (!location)
      return { field: "location", message: "a url source needs a URL", hint: "e.g. https://example.org/notes.md" };
    const bad = checkUrl(location);
    return bad
      ? {
          field: "location",
          message: `location ${bad}`,
          hint: "use an https URL on a public host (local hosts only through OUTBOUND_ALLOW_HOSTS)",
        }
      : null;
  },
  fetch: {
    via: "http",
    request: (spec, cond) => ({
      url: spec.location,
      headers: conditionalHeaders(cond, { Accept: "application/json", "User-Agent": "paperguru" }),
    }),
    parse: (body, { feed }) => {
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        return fail("validation", "response is not JSON", "body", "the URL must return the feed JSON format");
      }
      return feed(json);
    },
  },
};
