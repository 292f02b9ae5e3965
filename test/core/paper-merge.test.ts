/**
 * Two records of one work merged field by field (src/core/formats/paper.ts): what the winner states
 * stays, what it lacks comes from the other record, merging again takes nothing, and a record's text
 * is recognised in its stored version whatever the order in which merges appended lines to it.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  idsOfLines,
  mergePaperContent,
  mergePaperFields,
  type PaperFields,
  restatePaperContent,
} from "../../src/core/formats/paper";
import type { EntityInput } from "../../src/core/types";

const person = (name: string): EntityInput => ({ type: "person", name });
const venue = (name: string): EntityInput => ({ type: "venue", id: `venue:${name.toLowerCase()}`, name });

describe("mergePaperFields", () => {
  it("takes the authors, venue, year, type and keywords the winner lacks, never one it states", () => {
    const notes: PaperFields = {
      entities: [{ type: "paper", id: "doi:10.1/x", name: "X" }, venue("ICML")],
      boundaries: ["year:unknown"],
    };
    const entry: PaperFields = {
      entities: [{ type: "paper", id: "doi:10.1/x", name: "X" }, person("Mara Hale"), venue("NeurIPS")],
      boundaries: ["bibtex:inproceedings", "year:2021", "keyword:owls"],
    };
    const m = mergePaperFields(notes, entry);
    expect(m.entities).toEqual([person("Mara Hale")]);
    // The year replaces year:unknown; the winner's venue stays.
    expect(m.boundaries.sort()).toEqual(["bibtex:inproceedings", "keyword:owls", "year:2021"]);
    expect(m.added).toEqual(["person:", "year:", "bibtex:", "keyword:"]);
    // The entry as the winner keeps its own venue and year and takes nothing (the notes state no more).
    expect(mergePaperFields(entry, notes)).toEqual({ entities: [], boundaries: entry.boundaries, added: [] });
    // year:unknown is no year: it never replaces one, nor joins a record that has none.
    expect(mergePaperFields({ entities: [], boundaries: [] }, notes)).toMatchObject({
      boundaries: [],
      added: ["venue:"],
    });
  });

  const fields = fc.record({
    entities: fc.subarray([person("Mara Hale"), person("Kofi Osei"), venue("NeurIPS"), venue("ICML")]),
    boundaries: fc.subarray([
      "year:2021",
      "year:2020",
      "year:unknown",
      "bibtex:article",
      "keyword:owls",
      "open-access",
    ]),
  });
  const applied = (w: PaperFields, o: PaperFields): PaperFields => {
    const m = mergePaperFields(w, o);
    return { entities: [...w.entities, ...m.entities], boundaries: m.boundaries };
  };

  it("property: merging the result with either record again takes nothing", () => {
    fc.assert(
      fc.property(fields, fields, (w, o) => {
        const once = applied(w, o);
        expect(mergePaperFields(once, o).added).toEqual([]);
        expect(mergePaperFields(once, w).added).toEqual([]);
        // A record merged with its merged version gives that version's fields again.
        const again = applied(w, once);
        expect(new Set(again.entities)).toEqual(new Set(once.entities));
        expect(new Set(again.boundaries)).toEqual(new Set(once.boundaries));
      }),
    );
  });
});

describe("restatePaperContent", () => {
  const record = "Owls\nAuthors: Mara Hale\nType: @misc; citation key: k\n";
  it("gives the stored text back when merges only appended lines the record lacks, in any order", () => {
    const v2 = mergePaperContent(record, "Owls\nKeywords: owls\nDOI: 10.5555/owls.2021").content;
    const v3 = mergePaperContent(v2, "Owls\nIn: NeurIPS\nDate: 2021").content;
    // Lines in the order the merges came (DOI, Keywords, then In, Date), not the labels' order.
    expect(v3).toBe(`${record}\nDOI: 10.5555/owls.2021\nKeywords: owls\nIn: NeurIPS\nDate: 2021`);
    expect(mergePaperContent(record, v3).content).not.toBe(v3);
    expect(restatePaperContent(record, v3)).toEqual({ content: v3, added: ["DOI", "Keywords", "In", "Date"] });
    expect(idsOfLines(v3, ["DOI"])).toEqual(["doi:10.5555/owls.2021"]);
  });

  it("is mergePaperContent when the record changed or states a line the stored text holds", () => {
    const stored = `${record}\nIn: NeurIPS`;
    const changed = record.replace("Owls", "Owls at night");
    expect(restatePaperContent(changed, stored)).toEqual(mergePaperContent(changed, stored));
    const withVenue = `${record}In: ICML\n`;
    expect(restatePaperContent(withVenue, stored)).toEqual(mergePaperContent(withVenue, stored));
    expect(restatePaperContent(withVenue, stored).content).not.toContain("NeurIPS");
  });
});
