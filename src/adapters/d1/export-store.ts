/**
 * ExportStore: the export reads under their name from before the adapters were split by aggregate;
 * the reads themselves are D1ExportReader's (export-reader.ts).
 */
import { D1ExportReader } from "./export-reader";
import { d1Db } from "./queries";

export class ExportStore extends D1ExportReader {
  static of(d1: D1Database): ExportStore {
    return new ExportStore(d1Db(d1));
  }
}
