/**
 * Builders for the JSON Schemas of model answers (structured outputs). A closed object lists every
 * property as required and allows no other, which strict structured outputs ask for; the builders
 * write the keys in the order the schemas have always had, so a prompt's schema text is unchanged.
 */
import type { JsonSchema } from "./ports/models";

/** An object whose every property is required and which allows no other. */
export function closedObject(properties: Record<string, JsonSchema>): JsonSchema {
  return { type: "object", additionalProperties: false, required: Object.keys(properties), properties };
}

/** A list of `items`, with its bounds and description when given. */
export function arrayOf(
  items: JsonSchema,
  opts: { minItems?: number; maxItems?: number; description?: string } = {},
): JsonSchema {
  return {
    type: "array",
    ...(opts.minItems === undefined ? {} : { minItems: opts.minItems }),
    ...(opts.maxItems === undefined ? {} : { maxItems: opts.maxItems }),
    ...(opts.description === undefined ? {} : { description: opts.description }),
    items,
  };
}

/** A string property with its description. */
export function text(description: string): JsonSchema {
  return { type: "string", description };
}

/** A quote of a listed source: the source's id under `idKey`, and words copied from it. */
export function quoteOf(idKey: string, idDescription: string, quoteDescription: string): JsonSchema {
  return closedObject({ [idKey]: text(idDescription), quote: text(quoteDescription) });
}
