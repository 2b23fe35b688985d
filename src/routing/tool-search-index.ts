import type { JsonSchema } from '../core/json-schema.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { tokenizeForSearch } from './tokenize-for-search.js';

/** How much a term counts by where in a tool's definition it stands: the name says most. */
export const FIELD_WEIGHTS = {
  name: 3,
  description: 1,
  parameterName: 1.5,
  parameterText: 0.6,
} as const;

/** BM25's term-frequency saturation and length normalisation, the usual values. */
const k1 = 1.2;
const b = 0.75;
/** How deep nested parameter objects are read for names and descriptions. */
const maxSchemaDepth = 4;

/** One part of a query and how much it counts (the latest user message 1, the task less). */
export interface QueryPart {
  readonly text: string;
  readonly weight: number;
}

/** A tool's place in the index (its position in the given specs) and its BM25 score. */
export interface ToolScore {
  readonly index: number;
  readonly name: string;
  readonly score: number;
}

/**
 * A BM25 index over tool definitions: names (split at `_` and camelCase),
 * descriptions, parameter names and parameter descriptions and enum values,
 * each field weighted (`FIELD_WEIGHTS`). Built once per set of specs;
 * each tool's terms are cached by its spec object, so re-mounting the same
 * tools in another group costs little.
 *
 * @example
 * const index = new ToolSearchIndex(registry.specs);
 * index.search([{ text: 'I want my money back for order SO20260901', weight: 1 }]).slice(0, 5);
 */
export class ToolSearchIndex {
  readonly names: readonly string[];
  readonly #postings = new Map<string, { docs: number[]; frequencies: number[] }>();
  readonly #lengths: Float64Array;
  readonly #averageLength: number;

  constructor(specs: readonly ToolSpec[]) {
    this.names = specs.map((spec) => spec.function.name);
    this.#lengths = new Float64Array(specs.length);
    let total = 0;
    for (const [index, spec] of specs.entries()) {
      const document = documentOf(spec);
      this.#lengths[index] = document.length;
      total += document.length;
      for (const [term, frequency] of document.terms) {
        let posting = this.#postings.get(term);
        if (posting === undefined) {
          posting = { docs: [], frequencies: [] };
          this.#postings.set(term, posting);
        }
        posting.docs.push(index);
        posting.frequencies.push(frequency);
      }
    }
    this.#averageLength = specs.length === 0 ? 1 : total / specs.length || 1;
  }

  /**
   * Every tool that shares a term with the query, best first; equal scores
   * keep the order of the specs. Tools sharing no term are left out, and so
   * are query parts whose weight is not a positive finite number.
   */
  search(query: readonly QueryPart[]): ToolScore[] {
    const weights = new Map<string, number>();
    for (const part of query) {
      if (!(part.weight > 0 && Number.isFinite(part.weight))) continue;
      for (const term of tokenizeForSearch(part.text)) {
        weights.set(term, Math.min((weights.get(term) ?? 0) + part.weight, Number.MAX_VALUE));
      }
    }
    const count = this.names.length;
    const scores = new Float64Array(count);
    const touched: number[] = [];
    for (const [term, queryWeight] of weights) {
      const posting = this.#postings.get(term);
      if (posting === undefined) continue;
      const documentFrequency = posting.docs.length;
      const idf = Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
      // A repeated query term counts, but with diminishing returns.
      const weight = queryWeight <= 1 ? queryWeight : 1 + Math.log(queryWeight);
      for (let position = 0; position < documentFrequency; position += 1) {
        const doc = posting.docs[position] as number;
        const frequency = posting.frequencies[position] as number;
        const norm = k1 * (1 - b + (b * (this.#lengths[doc] as number)) / this.#averageLength);
        if (scores[doc] === 0) touched.push(doc);
        scores[doc] = (scores[doc] as number) + weight * idf * ((frequency * (k1 + 1)) / (frequency + norm));
      }
    }
    touched.sort((left, right) => (scores[right] as number) - (scores[left] as number) || left - right);
    return touched.map((index) => ({ index, name: this.names[index] as string, score: scores[index] as number }));
  }
}

interface ToolDocument {
  readonly terms: ReadonlyMap<string, number>;
  readonly length: number;
}

const documents = new WeakMap<ToolSpec, ToolDocument>();

function documentOf(spec: ToolSpec): ToolDocument {
  const cached = documents.get(spec);
  if (cached !== undefined) return cached;
  const terms = new Map<string, number>();
  let length = 0;
  const add = (text: string, weight: number) => {
    for (const term of tokenizeForSearch(text)) {
      terms.set(term, (terms.get(term) ?? 0) + weight);
      length += weight;
    }
  };
  add(spec.function.name, FIELD_WEIGHTS.name);
  add(spec.function.description, FIELD_WEIGHTS.description);
  addSchema(spec.function.parameters, add, 0);
  const document = { terms, length };
  documents.set(spec, document);
  return document;
}

function addSchema(schema: JsonSchema, add: (text: string, weight: number) => void, depth: number): void {
  if (depth > maxSchemaDepth) return;
  const properties = schema['properties'];
  if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
    for (const [name, property] of Object.entries(properties as Record<string, unknown>)) {
      add(name, FIELD_WEIGHTS.parameterName);
      if (typeof property === 'object' && property !== null && !Array.isArray(property)) {
        addSchemaText(property as JsonSchema, add);
        addSchema(property as JsonSchema, add, depth + 1);
      }
    }
  }
  const items = schema['items'];
  if (typeof items === 'object' && items !== null && !Array.isArray(items))
    addSchema(items as JsonSchema, add, depth + 1);
}

function addSchemaText(property: JsonSchema, add: (text: string, weight: number) => void): void {
  const description = property['description'];
  if (typeof description === 'string') add(description, FIELD_WEIGHTS.parameterText);
  const values = property['enum'];
  if (Array.isArray(values)) {
    for (const value of values) if (typeof value === 'string') add(value, FIELD_WEIGHTS.parameterText);
  }
}
