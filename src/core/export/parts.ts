/**
 * A rendered document as its parts in order and the separator they are joined with. The renderers
 * produce their parts lazily, so an export can send a large document as it is made (a stream of a
 * MiB at a time, src/app/exports/common.ts) instead of building it whole: 50,000 chunks as HTML are
 * ~30 MB of text and ~90 MB of heap as one string and its parts. joinParts gives the whole text.
 */
export interface Parts {
  parts: Iterable<string>;
  sep: string;
}

export function joinParts(doc: Parts): string {
  return [...doc.parts].join(doc.sep);
}

/** The parts of JSON.stringify(items, null, 2) followed by a line break, one item per part. */
export function jsonArrayParts(items: readonly unknown[]): Parts {
  function* parts(): Generator<string, void, undefined> {
    if (items.length === 0) {
      yield "[]";
      yield "";
      return;
    }
    yield "[";
    // An item one level in: JSON.stringify's own lines, each indented by the gap once more.
    for (const [i, x] of items.entries())
      yield `  ${JSON.stringify(x, null, 2).replace(/\n/g, "\n  ")}${i < items.length - 1 ? "," : ""}`;
    yield "]";
    yield "";
  }
  return { parts: parts(), sep: "\n" };
}
