import { MemoryBlobStore } from "../../src/adapters/local/memory-blob";
import { MemoryVectorIndex } from "../../src/adapters/local/memory-vectors";
import { objectStoreContract, packedContentContract } from "../contracts/blob.contract";
import { vectorIndexContract } from "../contracts/vector.contract";

objectStoreContract("memory", () => new MemoryBlobStore());
packedContentContract("memory", () => new MemoryBlobStore());
vectorIndexContract("memory (exact cosine)", () => new MemoryVectorIndex());
