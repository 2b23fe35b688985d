import type { Locale } from '../core/locale.js';
import type { AgentEvent } from '../events/agent-event.js';
import type { ProgressTable } from '../events/progress-texts.js';
import type { ToolSet } from '../tools/tool-registry.js';
import { createProgressPrinter, type EventPrinter } from './progress-printer.js';

/** Progress lines held back until the transcript reaches the tool call they belong to. */
export interface ProgressCollector extends EventPrinter {
  /** The lines of one tool call so far (`  › Looking up your order…`), removed from the collector. */
  take(toolCallId: string): string[];
  /** The lines that belong to no tool call (a run error, a gap in the stream) and those never taken. */
  takeRest(): string[];
}

/**
 * The progress printer's lines (the same events, the same sentences) for a
 * transcript printed after the run, where nobody watches live (stdout is a
 * pipe or a file): each line waits for the transcript to print the call it
 * is about, so it lands beside that call instead of above the whole run.
 *
 * @example
 * const progress = createProgressCollector({ locale: 'en', tools: registry });
 * const stop = bus.subscribe(progress.listener);
 * await runAgent({ model, tools: registry, messages, events: bus });
 * await bus.idle();
 * await progress.close();
 * stop();
 * for (const call of calls) console.log([`model calls ${call.name}`, ...progress.take(call.id)].join('\n'));
 */
export function createProgressCollector({
  locale = 'en',
  tools,
  progressTable,
}: {
  locale?: Locale;
  tools?: Pick<ToolSet, 'get'>;
  progressTable?: ProgressTable;
}): ProgressCollector {
  const byCall = new Map<string, string[]>();
  const rest: string[] = [];
  let current: string | undefined;
  // The printer writes each event's line while it handles the event: that event's tool call is the line's.
  const printer = createProgressPrinter({
    locale,
    ...(tools === undefined ? {} : { tools }),
    ...(progressTable === undefined ? {} : { progressTable }),
    write: (text) => {
      for (const line of text.split('\n')) {
        if (line === '') continue;
        if (current === undefined) {
          rest.push(line);
          continue;
        }
        const lines = byCall.get(current) ?? [];
        lines.push(line);
        byCall.set(current, lines);
      }
    },
  });
  return {
    listener: (event: AgentEvent) => {
      current = 'toolCallId' in event ? event.toolCallId : undefined;
      try {
        printer.listener(event);
      } finally {
        current = undefined;
      }
    },
    close: () => printer.close(),
    take: (toolCallId) => {
      const lines = byCall.get(toolCallId) ?? [];
      byCall.delete(toolCallId);
      return lines;
    },
    takeRest: () => {
      const lines = [...rest, ...[...byCall.values()].flat()];
      rest.length = 0;
      byCall.clear();
      return lines;
    },
  };
}
