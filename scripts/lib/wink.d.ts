/** Types for the two untyped wink packages the evaluation's BM25 baseline uses. */
declare module "wink-bm25-text-search" {
  type PrepTask = (input: never) => unknown;
  interface WinkBM25 {
    defineConfig(cfg: {
      fldWeights: Record<string, number>;
      bm25Params?: { k1?: number; b?: number; k?: number };
      ovFieldNames?: string[];
    }): boolean;
    definePrepTasks(tasks: PrepTask[], field?: string): number;
    addDoc(doc: Record<string, string>, id: string | number): number;
    consolidate(fp?: number): boolean;
    search(text: string, limit?: number): Array<[string, number]>;
  }
  function bm25(): WinkBM25;
  export default bm25;
}

declare module "wink-nlp-utils" {
  const utils: {
    string: { lowerCase(s: string): string; tokenize0(s: string): string[] };
    tokens: { removeWords(t: string[]): string[]; stem(t: string[]): string[] };
  };
  export default utils;
}
