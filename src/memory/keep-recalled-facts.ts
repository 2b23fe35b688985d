/** The name of the memory tool whose results are recalled facts. */
export const RECALL_FACTS_TOOL = 'recall_facts';

/**
 * Wraps a context manager's `isWriteTool` so that `recall_facts` results
 * are kept verbatim by compression, like the results of calls that changed
 * something: facts recalled mid-conversation stay pinned where they were
 * read (never stubbed, never dropped with a middle turn, never folded into
 * a summary), and keep counting against the window.
 *
 * @example
 * new ContextManager({ windowTokens: 128_000, isWriteTool: keepRecalledFacts(isWriteToolIn(registry)) });
 */
export function keepRecalledFacts(isWriteTool: (name: string) => boolean): (name: string) => boolean {
  return (name) => name === RECALL_FACTS_TOOL || isWriteTool(name);
}
