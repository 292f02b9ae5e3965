import { MemoryBlobStore } from "../../src/adapters/local/memory-blob";
import { MemoryVectorIndex } from "../../src/adapters/local/memory-vectors";
import { blobStoreContract } from "../contracts/blob.contract";
import { vectorIndexContract } from "../contracts/vector.contract";

blobStoreContract("memory", () => new MemoryBlobStore());
vectorIndexContract("memory (exact cosine)", () => new MemoryVectorIndex());
