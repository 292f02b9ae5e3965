/** Generated xKG files for measuring how long an import holds the Worker. */

/**
 * An xKG paper object (src/core/formats/xkg.ts) of about `kb` KB (at least what its techniques take)
 * holding by default close to the most records one import takes (2,000): 660 techniques, each with
 * an implementation and a test (1 + 3 x 660 = 1,981 chunks), then references up to the size.
 */
export function xkgPaper(kb: number, count = 660): Record<string, unknown> {
  const techniques = Array.from({ length: count }, (_, i) => ({
    name: `T${i}`,
    description: "Scales x.",
    code: { implementation: `def f${i}(x): return ${i} * x`, test: `assert f${i}(1) == ${i}` },
  }));
  const paper: Record<string, unknown> = {
    paper_title: "Discovering Latent Knowledge in Language Models Without Supervision",
    paper_abstract: "We find latent knowledge inside the internal activations of a language model, unsupervised.",
    arxiv_id: "2212.03827",
    paper_references: [] as string[],
    findings: ["CCS Outperforms Zero-Shot Prompting: accuracy improves by 4% on average."],
    techniques,
  };
  const refs = paper.paper_references as string[];
  for (let i = 0; JSON.stringify(paper).length < kb * 1024; i++)
    refs.push(`A study of latent representations number ${i} in large language models`);
  return paper;
}
