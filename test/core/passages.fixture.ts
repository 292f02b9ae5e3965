/**
 * 24 encyclopaedia-style passages of 458-514 characters, 476 on average (HotpotQA's passages have
 * a median of ~500), built from 8 texts with 3 subjects each, for budget-capacity tests. Fixed: the
 * card counts measured on it are quoted in test/core/cards.test.ts.
 */
const TEXTS: Array<(s: string, n: number) => string> = [
  (s, n) =>
    `${s} is a retrieval system that builds a knowledge graph from a corpus with open information extraction. ` +
    `Noun phrases become nodes, and synonymy edges join phrases whose embeddings are close. At query time, ` +
    `Personalized PageRank spreads probability from the entities named in the question over the graph, and ` +
    `passages are ranked by the mass of their nodes. ${s} was evaluated on MuSiQue and 2WikiMultiHopQA in ${n}, where it beat dense retrievers on multi-hop recall at a fraction of their indexing cost.`,
  (s, n) =>
    `The ${s} Bridge is a suspension bridge that carries a four-lane road across the estuary. Construction began ` +
    `in ${n} and took six years, interrupted twice by floods that destroyed the temporary piers. Its main span ` +
    `is 1,210 metres long, which made it the longest in the region when it opened. The towers are built of ` +
    `reinforced concrete, and the deck was assembled from 88 steel segments lifted from barges. Tolls were abolished in 2004 after a long local campaign.`,
  (s, n) =>
    `${s} is an American novelist whose first book, a family saga set in a mining town, won a national prize in ` +
    `${n}. She studied chemistry before turning to fiction, and her later novels often follow scientists who ` +
    `leave their laboratories for rural communities. Critics have praised her precise prose; some have found ` +
    `the endings abrupt. She teaches creative writing at a state university and lives with her two daughters and an old dog in a farmhouse outside the city.`,
  (s, n) =>
    `The ${s} is a species of freshwater fish found in slow rivers and shallow lakes. Adults reach a length of ` +
    `about 30 centimetres and feed mainly on insect larvae and small crustaceans. Spawning takes place in ` +
    `spring, when the females lay up to 4,000 eggs among submerged plants. The population declined sharply ` +
    `after ${n} because of dams and drainage, and the species is now protected in several countries. Anglers who catch it must release it at once.`,
  (s, n) =>
    `${s} FC is a football club that plays in the third tier of the national league. Founded in ${n} by railway ` +
    `workers, the club spent most of its history in regional competitions before a run of three promotions in ` +
    `the 1990s. Its stadium holds 9,800 spectators and stands next to the old locomotive depot. The club's ` +
    `colours, green and black, were taken from the uniforms of the railway company that owned the land. Its supporters call it the Depot, and the away end is still unroofed.`,
  (s, n) =>
    `${s} is a programming language designed for numerical computing, first released in ${n}. It combines ` +
    `dynamic typing with just-in-time compilation, so that loops written in plain code run close to the speed ` +
    `of C. Multiple dispatch is its central paradigm: a function is chosen by the types of all its arguments. ` +
    `The language has a built-in package manager, and its standard library covers linear algebra and statistics. Its compiler is written in itself and targets LLVM.`,
  (s, n) =>
    `The Battle of ${s} was fought in ${n} between two rival coalitions of city states. Although the attacking ` +
    `army was larger, it was caught crossing a river and lost most of its cavalry in the first hour. The ` +
    `defeat ended the war within a year, and the peace treaty redrew the borders of the valley for a century. ` +
    `Historians disagree about the number of soldiers involved; estimates range from 12,000 to 30,000. A chapel marks the ford today, with a list of the fallen.`,
  (s, n) =>
    `${s} is a village and civil parish in the north of the county, about eight miles from the market town. ` +
    `Its parish church dates from the twelfth century and has a rare Norman font carved with fishes. The ` +
    `population was 1,412 at the census of ${n}, most of it employed in farming and in the quarry that supplies ` +
    `building stone to the region. A weekly market has been held on the green since the Middle Ages. The village school closed in 1971 and is now a library.`,
];

const SUBJECTS = [
  ["HippoRAG", "Ardmore", "Elena Varga", "bluefin dace", "Ashford Rail", "Quill", "Karsa", "Little Wenham"],
  ["GraphMem", "Caldbeck", "Maria Osei", "silver loach", "Bramley Town", "Fathom", "Olmero", "Great Tey"],
  ["RecallNet", "Kestrel", "Nora Lindqvist", "spotted minnow", "Harwood United", "Lattice", "Tiraz", "Wix Green"],
];

export interface Passage {
  id: string;
  title: string;
  text: string;
}

export const PASSAGES: Passage[] = SUBJECTS.flatMap((row, r) =>
  TEXTS.map((t, i) => {
    const subject = row[i] as string;
    return { id: `passage:${r}-${i}`, title: subject, text: t(subject, 1990 + 7 * r + i) };
  }),
);

/** A query that matches a few passages well and most of them a little. */
export const PASSAGE_QUERY = "Which retrieval graph system was evaluated in the league and when was it founded?";
