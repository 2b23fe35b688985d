import { createMemoryJournal, type RunJournal } from '../core/run-journal.js';
import type { EventBus } from '../events/event-bus.js';
import { runLine, stepLine, type TraceLine } from './trace-line.js';
import { TraceRecorder } from './trace-recorder.js';

/** Where trace lines go: a function given each line, or a writable stream (a newline is added). */
export type TraceSink = ((line: string) => void) | { write(chunk: string): unknown };

export interface TraceWriter {
  /**
   * A journal to pass to `runAgent` (wrapping the run's own, if any) so the
   * trace also carries each result's digest: the events do not include
   * results.
   */
  journal(inner?: RunJournal): RunJournal;
  /** Stops listening. Runs still in progress write nothing more. */
  stop(): void;
}

/**
 * Writes a JSONL trace of every run on the bus: one `step` line per model
 * call (model, input and output tokens, finish reason, and for each tool
 * call its name, argument digest, gate decision, result digest, outcome and
 * elapsed ms), then one `run` line (stop reason, steps, tokens, duration).
 * Arguments and results appear only as sha256 digests, so a trace can be
 * kept and shared without the conversation's data.
 *
 * @example
 * const trace = createTraceWriter({ bus, write: createWriteStream('.arbiter/traces.jsonl', { flags: 'a' }) });
 * await runAgent({ model, tools, messages, events: bus, journal: trace.journal() });
 * trace.stop();
 */
export function createTraceWriter({ bus, write }: { bus: EventBus; write: TraceSink }): TraceWriter {
  const emit = (line: TraceLine) => {
    const text = JSON.stringify(line);
    if (typeof write === 'function') write(text);
    else write.write(`${text}\n`);
  };
  const recorder = new TraceRecorder({
    onStep: (run, step) => emit(stepLine(run, step)),
    onRun: (run) => {
      const line = runLine(run);
      if (line !== undefined) emit(line);
    },
  });
  const unsubscribe = bus.subscribe((event) => recorder.record(event));
  return {
    journal(inner = createMemoryJournal()) {
      return {
        findToolResult: (runId, toolCallId) => inner.findToolResult(runId, toolCallId),
        recordToolResult: (runId, result) => {
          recorder.noteResult(runId, result.toolCallId, result.content);
          return inner.recordToolResult(runId, result);
        },
        commitStep: (commit) => inner.commitStep(commit),
      };
    },
    stop: unsubscribe,
  };
}
