/** The wire contract: zod schemas for every request and response, by resource. */

export * from "./access";
export * from "./annotations";
export * from "./archives";
export * from "./artifacts";
export * from "./browse";
export * from "./code";
export * from "./common";
export * from "./discovery";
export * from "./embedding";
export * from "./events";
export * from "./exports";
export * from "./forget";
export * from "./paperbench";
export * from "./papers";
export * from "./project";
export * from "./projectguard";
export * from "./proposals";
export * from "./query";
export * from "./research";
export * from "./review";
export * from "./reviewers";
export * from "./rewrite";
export * from "./sgmc";
export * from "./world";
