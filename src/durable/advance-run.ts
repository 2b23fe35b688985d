import { randomUUID } from 'node:crypto';
import { EngineReplayError } from '../errors/engine-replay-error.js';
import type { EventLog } from '../events/event-log.js';
import type { EngineStepRecords, RecordedEntry } from './engine-step-records.js';
import { approvalSignalTopic } from './run-durable-agent.js';
import {
  type DurableRunInput,
  type DurableRunSummary,
  type EngineAgentOptions,
  type EnginePrimitives,
  runInEngine,
} from './run-in-engine.js';

/** What the engine's workflow asks of one activity: plain JSON, small (no message, no tool result). */
export interface AdvanceRequest {
  readonly runId: string;
  /** The run's input, on the workflow's first request only: recorded at position 0. */
  readonly input?: DurableRunInput;
  /** How the wait the previous request stopped at ended: the signal came, or its deadline passed. */
  readonly wake?: { readonly position: number; readonly signalled: boolean };
}

/** A step's result in arbiter's store, as the workflow's history names it. */
export interface StepReference {
  readonly name: string;
  /** Where the step's result is recorded: (run id, position) in `EngineStepRecords`. */
  readonly position: number;
  /** The recorded entry's size in bytes (JSON), kept in arbiter's store instead of the history. */
  readonly bytes: number;
}

/** What one activity tells the workflow: a reference into arbiter's store, a wait, or the end. Plain JSON, small. */
export type RunAdvance =
  | ({ readonly kind: 'step' } & StepReference)
  | {
      readonly kind: 'wait';
      readonly topic: string;
      readonly timeoutMs: number;
      /** Where the wait's outcome is recorded, once the workflow tells it (`AdvanceRequest.wake`). */
      readonly position: number;
      /** The step this activity ran before the wait (the call that asked for a person). */
      readonly step?: StepReference;
    }
  | {
      readonly kind: 'done';
      readonly summary: DurableRunSummary;
      /** The step this activity ran before the run ended (its last, `arbiter:finish-run`). */
      readonly step?: StepReference;
    };

const pending = new Promise<never>(() => {});

/**
 * Advances a run by one step, for an engine whose workflow code cannot run
 * arbiter's loop itself (Temporal's sandbox: no database, no model client):
 * runs the loop (`runInEngine`) from the start, handing back every recorded
 * step, clock read, id and signal from `records` without running it (no
 * model call, no tool, the events already in the log not written again),
 * until it reaches a step not recorded yet. That step runs once, its
 * result is recorded, and the loop goes on to what follows: the next step
 * ends the activity unrun (the loop is left waiting for good, and
 * collected), a wait for a signal ends it for the workflow to wait on, the
 * run's end returns its summary. A step that throws fails the activity
 * (the engine retries it), never the loop.
 * Every decision stays inside the step: validation, gate, approval,
 * idempotency claim and reconcile, audit, events.
 *
 * @example
 * const advance = await advanceRun({ engine: 'temporal', agent, records, request: { runId, input } });
 */
export async function advanceRun({
  engine,
  agent,
  records,
  request,
}: {
  engine: string;
  agent: EngineAgentOptions;
  records: EngineStepRecords;
  request: AdvanceRequest;
}): Promise<RunAdvance> {
  const { runId } = request;
  const entries: RecordedEntry[] = [...(await records.read(runId))];
  if (entries.length === 0) {
    if (request.input === undefined)
      throw new EngineReplayError({ runId, position: 0, recorded: 'nothing', asked: 'the input' });
    entries.push(await records.write({ runId, position: 0, entry: { kind: 'input', value: request.input } }));
  }
  const first = entries[0];
  if (first?.kind !== 'input')
    throw new EngineReplayError({ runId, position: 0, recorded: describe(first), asked: 'the input' });
  let cursor = 1;
  /** The one step this activity ran: the loop goes on to what follows it (a wait, the end) and stops at the next step. */
  let ran: StepReference | undefined;
  let settle!: (advance: RunAdvance) => void;
  let fail!: (error: unknown) => void;
  const outcome = new Promise<RunAdvance>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  /** The recorded entry at the cursor, checked against what the loop asks there; undefined past the record's end. */
  const replay = <Kind extends RecordedEntry['kind']>(kind: Kind, name?: string) => {
    const entry = entries[cursor];
    if (entry === undefined) return undefined;
    const asked = name === undefined ? kind : `${kind}:${name}`;
    if (entry.kind !== kind || (entry.kind === 'step' && entry.name !== name))
      throw new EngineReplayError({ runId, position: cursor, recorded: describe(entry), asked });
    cursor += 1;
    return entry as Extract<RecordedEntry, { kind: Kind }>;
  };
  const record = async <Entry extends RecordedEntry>(entry: Entry): Promise<Entry> => {
    const position = cursor;
    const stored = (await records.write({ runId, position, entry })) as Entry;
    entries[position] = stored;
    cursor += 1;
    return stored;
  };
  /** Whatever goes wrong in the engine's primitives fails the activity, and the loop never hears of it. */
  const guarded =
    <Arguments extends unknown[], Result>(body: (...args: Arguments) => Promise<Result>) =>
    async (...args: Arguments): Promise<Result> => {
      try {
        return await body(...args);
      } catch (error) {
        fail(error);
        return pending;
      }
    };
  const primitives: EnginePrimitives = {
    step: guarded(async <Result>(name: string, run: () => Promise<Result>): Promise<Result> => {
      const recorded = replay('step', name);
      if (recorded !== undefined) return recorded.value as Result;
      if (ran !== undefined) {
        // The next step is the next activity's: stop before it.
        settle({ kind: 'step', ...ran });
        return pending;
      }
      const position = cursor;
      const stored = await record({ kind: 'step', name, value: await run() });
      ran = { name, position, bytes: Buffer.byteLength(JSON.stringify(stored)) };
      return stored.value as Result;
    }) as EnginePrimitives['step'],
    now: guarded(async () => (replay('now') ?? (await record({ kind: 'now', value: Date.now() }))).value),
    newId: guarded(async () => (replay('id') ?? (await record({ kind: 'id', value: randomUUID() }))).value),
    waitForSignal: guarded(async <Payload>({ topic, timeoutMs }: { topic: string; timeoutMs: number }) => {
      const recorded = replay('signal');
      if (recorded !== undefined) return (recorded.value ?? undefined) as Payload | undefined;
      const position = cursor;
      if (request.wake?.position === position) {
        const value = request.wake.signalled && topic === approvalSignalTopic ? { runId } : null;
        return ((await record({ kind: 'signal', topic, value })).value ?? undefined) as Payload | undefined;
      }
      settle({ kind: 'wait', topic, timeoutMs, position, ...(ran === undefined ? {} : { step: ran }) });
      return pending;
    }) as EnginePrimitives['waitForSignal'],
  };
  const log = await logAfterPublished(agent.log, runId);
  const finished = runInEngine({ engine, input: first.value, agent: { ...agent, log }, primitives }).then(
    (summary): RunAdvance => ({ kind: 'done', summary, ...(ran === undefined ? {} : { step: ran }) }),
  );
  return Promise.race([outcome, finished]);
}

/** The run's event log, less what the replay emits again: every event up to the log's last seq is already there. */
async function logAfterPublished(log: EventLog, runId: string): Promise<EventLog> {
  const published = await log.lastSeq(runId);
  return {
    append: async (batch) => {
      const fresh = batch.filter((event) => event.runId !== runId || event.seq > published);
      if (fresh.length > 0) await log.append(fresh);
    },
    readEvents: (options) => log.readEvents(options),
    lastSeq: (id) => log.lastSeq(id),
    prune: (options) => log.prune(options),
  };
}

function describe(entry: RecordedEntry | undefined): string {
  if (entry === undefined) return 'nothing';
  return entry.kind === 'step' ? `step:${entry.name}` : entry.kind;
}
