/**
 * Long-term memory: structured facts of one user within one tenant, with
 * provenance, trust, expiry and supersession; the `save_fact` and
 * `recall_facts` tools; hybrid recall with a pluggable embedder. The store
 * interface is `MemoryStore` (core); its backends are in store/.
 *
 * @module
 */
export type {
  FactOwner,
  FactSource,
  FactSourceKind,
  MemoryFact,
  MemoryStore,
  RecalledFact,
  RecallRequest,
  SaveFactRequest,
} from '../core/memory-store.js';
export {
  conversationFromSessions,
  createMemoryTools,
  DEFAULT_SENSITIVE_FACT_KEYS,
  type MemoryToolsOptions,
  type RecallFactsArgs,
  type SaveFactArgs,
  type SaveFactResult,
} from './create-memory-tools.js';
export { cosineSimilarity, createHashingEmbedder, createOpenAiEmbedder, type Embedder } from './embedder.js';
export { exportFacts, type FactExport } from './export-facts.js';
export { keepRecalledFacts, RECALL_FACTS_TOOL } from './keep-recalled-facts.js';
export { recallMemory, VECTOR_CANDIDATES } from './recall-memory.js';
