import type { Locale } from '../core/locale.js';
import type { AgentEvent } from '../events/agent-event.js';
import { batchDeltas } from '../events/batch-deltas.js';
import { createEventProjector } from '../events/create-event-projector.js';
import { createTypingIndicator } from '../events/create-typing-indicator.js';
import type { EventListener } from '../events/event-bus.js';
import type { ExternalEvent } from '../events/external-event.js';
import { eventTexts, type ProgressTable } from '../events/progress-texts.js';
import type { ToolSet } from '../tools/tool-registry.js';

/** A bus subscriber that writes to a terminal or a pipe. */
export interface EventPrinter {
  /** Subscribe this: `bus.subscribe(printer.listener)`. */
  readonly listener: EventListener;
  /** Writes anything held back, clears the typing line and stops the timers. Call before printing anything else. */
  close(): Promise<void>;
}

export interface ProgressPrinterOptions {
  /** Raw output, e.g. `(text) => process.stdout.write(text)`; lines end with `\n`. */
  readonly write: (text: string) => void;
  readonly locale?: Locale;
  /** Draw the typing indicator (a line rewritten in place); pass `process.stdout.isTTY`. */
  readonly tty?: boolean;
  /** The run's tools, for their `progress` sentences. */
  readonly tools?: Pick<ToolSet, 'get'>;
  readonly progressTable?: ProgressTable;
  /** Also print the answer as it streams. Default false. */
  readonly streamAnswer?: boolean;
  /** Typing clears itself when no event came for this long. Default 15 s. */
  readonly typingTimeoutMs?: number;
}

const clearLine = '\r\x1b[2K';

/**
 * Prints a run's progress as it happens, before the answer: one line per
 * step a person cares about ("Looking up your order…", "Waiting for
 * approval…"), and on a TTY a typing indicator that is cleared before the
 * next output and after the run ends (or goes silent).
 *
 * @example
 * const printer = createProgressPrinter({
 *   write: (text) => process.stdout.write(text),
 *   locale: 'zh-CN',
 *   tty: process.stdout.isTTY === true,
 *   tools: registry,
 * });
 * const stop = bus.subscribe(printer.listener);
 * await runAgent({ model, tools: registry, messages, events: bus });
 * await bus.idle();
 * await printer.close();
 * stop();
 */
export function createProgressPrinter({
  write,
  locale = 'en',
  tty = false,
  tools,
  progressTable,
  streamAnswer = false,
  typingTimeoutMs = 15_000,
}: ProgressPrinterOptions): EventPrinter {
  const project = createEventProjector({
    locale,
    ...(tools === undefined ? {} : { tools }),
    ...(progressTable === undefined ? {} : { progressTable }),
  });
  const texts = eventTexts(locale);
  let indicatorShown = false;
  let midLine = false;

  const hideIndicator = () => {
    if (!indicatorShown) return;
    write(clearLine);
    indicatorShown = false;
  };
  const showIndicator = () => {
    if (!tty || indicatorShown || midLine || !typing.typing) return;
    write(`${texts.typing} `);
    indicatorShown = true;
  };
  const typing = createTypingIndicator({
    timeoutMs: typingTimeoutMs,
    onChange: (on) => (on ? showIndicator() : hideIndicator()),
  });
  const endLine = () => {
    if (!midLine) return;
    write('\n');
    midLine = false;
  };
  const printLine = (text: string) => {
    hideIndicator();
    endLine();
    write(`  › ${text}\n`);
  };

  const print = (event: ExternalEvent) => {
    switch (event.type) {
      case 'model:delta':
        if (!streamAnswer || event.text === '') return;
        hideIndicator();
        write(event.text);
        midLine = !event.text.endsWith('\n');
        return;
      case 'tool:start':
      case 'tool:error':
      case 'approval:required':
      case 'approval:resolved':
      case 'run:error':
      case 'gap':
        printLine(event.text);
        return;
      case 'run:end':
        hideIndicator();
        endLine();
        return;
      default:
        return;
    }
  };

  return {
    listener: (event: AgentEvent) => {
      print(project(event));
      typing.handle(event);
      showIndicator();
    },
    close: async () => {
      typing.dispose();
      hideIndicator();
      endLine();
    },
  };
}

/**
 * Prints the external event stream as NDJSON, one projected event a line
 * (`arbiter demo --events ndjson`): what an SSE client would receive, with
 * deltas merged per `deltaWindowMs` (0 to print every one).
 *
 * @example
 * const printer = createNdjsonPrinter({ write: (text) => process.stdout.write(text), tools: registry });
 * bus.subscribe(printer.listener);
 */
export function createNdjsonPrinter({
  write,
  tools,
  locale = 'en',
  deltaWindowMs = 50,
}: {
  write: (text: string) => void;
  tools?: Pick<ToolSet, 'get'>;
  locale?: Locale;
  deltaWindowMs?: number;
}): EventPrinter {
  const project = createEventProjector({ locale, ...(tools === undefined ? {} : { tools }) });
  const listener = batchDeltas((event) => write(`${JSON.stringify(project(event))}\n`), { windowMs: deltaWindowMs });
  return {
    listener,
    close: async () => {
      await listener.flush();
      listener.dispose();
    },
  };
}
