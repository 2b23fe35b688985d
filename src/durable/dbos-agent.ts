import { DBOS, type DBOSClient } from '@dbos-inc/dbos-sdk';
import { type ApprovalSignal, approvalSignalTopic } from './run-durable-agent.js';
import { type DurableRunInput, type DurableRunSummary, type EngineAgentOptions, runInEngine } from './run-in-engine.js';

export interface DbosAgentOptions {
  /** Everything a run needs that is not JSON (model, tools, gate, approvals, idempotency, audit, event log), once per worker. */
  readonly agent: EngineAgentOptions;
  /** The registered workflow's name. Default `arbiter.run`. */
  readonly workflowName?: string;
  /** The queue runs are started on, partitioned by session: one run per session at a time. Default `arbiter-sessions`. */
  readonly queueName?: string;
}

/** A registered arbiter workflow: how to start its runs, signal them, and take over a dead worker's runs. */
export interface DbosAgent {
  readonly workflowName: string;
  /**
   * The registered workflow itself, for a caller that starts it another way
   * (`DBOS.startWorkflow(agent.workflow, { workflowID: runId })(input)`, or
   * as a child of its own workflow); the workflow id must be the run id.
   */
  readonly workflow: (input: DurableRunInput) => Promise<DurableRunSummary>;
  readonly queueName: string;
  /**
   * Registers the session queue (one run per session at a time, across
   * workers). Call once after `DBOS.launch()` in every worker.
   */
  registerQueue(): Promise<void>;
  /**
   * Starts a run as the workflow whose id is the run id, on the session's
   * partition of the queue. Starting the same run id again returns it.
   */
  start(input: DurableRunInput): Promise<string>;
  /** Waits for the run's workflow to end and returns its summary. */
  result(runId: string): Promise<DurableRunSummary>;
  /**
   * Tells a run waiting for approval that none of its approvals is pending
   * any more: arbiter's approval API calls it (`resumeRun`) after it checked
   * who may approve and recorded the decision. The decision itself stays in
   * arbiter's store; the resumed run reads it from there.
   */
  resumeRun(runId: string): Promise<void>;
  /**
   * Puts the runs a worker left running back on the queue for any worker:
   * call it once that worker is known dead (its process gone), never while
   * it may still be running them. A worker restarted with the same
   * `executorID` recovers its own runs by itself.
   */
  takeOver(executorId: string): Promise<string[]>;
}

/**
 * Arbiter's loop as a DBOS workflow: one registered workflow per run
 * (workflow id = run id), each model turn and each validated, gated tool
 * execution a `DBOS.runStep`, the approval a `DBOS.recv` on
 * `arbiter.approval` (with its own deadline, not DBOS's 60 s default) that
 * arbiter's approval API answers with `DBOS.send` once it has checked and
 * recorded the decision, and runs started on a queue partitioned by session
 * so one session runs one run at a time. Arbiter keeps deciding inside each
 * step: validation, tiers and rules, the approval's binding to the
 * arguments, the idempotency claim (a step DBOS runs again after a crash
 * executes its tool once: the claim replays or reconciles the first
 * attempt), the audit, the event stream.
 *
 * Register before `DBOS.launch()`, and give DBOS an explicit
 * `applicationVersion` (see docs/durable-engines.md): DBOS recovers only
 * workflows of its own version, and its default is a hash of the code, so
 * every deploy would strand the runs waiting for a person.
 *
 * @example
 * DBOS.setConfig({ name: 'shop', systemDatabaseUrl, applicationVersion: 'arbiter-runs-1' });
 * const agent = registerDbosAgent({ agent: { model, tools, gate, approvals, idempotency, audit, log, runs } });
 * await DBOS.launch();
 * await agent.registerQueue();
 * await agent.start({ runId, sessionId, principal, messages });
 */
export function registerDbosAgent({
  agent,
  workflowName = 'arbiter.run',
  queueName = 'arbiter-sessions',
}: DbosAgentOptions): DbosAgent {
  const workflow = DBOS.registerWorkflow(
    (input: DurableRunInput): Promise<DurableRunSummary> =>
      runInEngine({
        engine: 'dbos',
        input,
        agent,
        primitives: {
          step: (name, run) => DBOS.runStep(run, { name }),
          now: () => DBOS.now(),
          newId: () => DBOS.randomUUID(),
          waitForSignal: async <Payload>({ topic, timeoutMs }: { topic: string; timeoutMs: number }) =>
            (await DBOS.recv<Payload>(topic, { timeoutSeconds: Math.max(1, Math.ceil(timeoutMs / 1000)) })) ??
            undefined,
        },
      }),
    { name: workflowName },
  );
  return {
    workflowName,
    workflow,
    queueName,
    registerQueue: async () => {
      await DBOS.registerQueue(queueName, { partitionConcurrency: 1 });
    },
    start: async (input) => {
      const handle = await DBOS.startWorkflow(workflow, {
        workflowID: input.runId,
        queueName,
        enqueueOptions: { queuePartitionKey: input.sessionId },
      })(input);
      return handle.workflowID;
    },
    result: (runId) => DBOS.retrieveWorkflow<DurableRunSummary>(runId).getResult(),
    resumeRun: async (runId) => {
      const signal: ApprovalSignal = { runId };
      await DBOS.send(runId, signal, approvalSignalTopic);
    },
    takeOver: async (executorId) => {
      const left = await DBOS.listWorkflows({ status: 'PENDING', executorId, workflowName });
      const runIds = left.map((status) => status.workflowID);
      if (runIds.length > 0) await DBOS.resumeWorkflows(runIds, { queueName });
      return runIds;
    },
  };
}

/** What a process that runs no workflow (arbiter's API, an operator's command) does with arbiter's DBOS runs. */
export interface DbosRunClient {
  /** Enqueues a run on the session's partition, as `DbosAgent.start`. */
  start(input: DurableRunInput): Promise<string>;
  result(runId: string): Promise<DurableRunSummary>;
  /** As `DbosAgent.resumeRun`: give it to arbiter's server as `resumeRun`. */
  resumeRun(runId: string): Promise<void>;
  /** As `DbosAgent.takeOver`. */
  takeOver(executorId: string): Promise<string[]>;
}

/**
 * Arbiter's DBOS runs seen from outside the workers, through a
 * `DBOSClient`: start a run, read its result, signal a decided approval,
 * hand a dead worker's runs to the others. `appVersion` is the
 * `applicationVersion` the workers run with.
 *
 * @example
 * const client = await DBOSClient.create({ systemDatabaseUrl });
 * const runs = dbosRunClient({ client, appVersion: 'arbiter-runs-1' });
 * await runs.start({ runId, sessionId, principal, messages });
 */
export function dbosRunClient({
  client,
  appVersion,
  workflowName = 'arbiter.run',
  queueName = 'arbiter-sessions',
}: {
  client: DBOSClient;
  appVersion?: string;
  workflowName?: string;
  queueName?: string;
}): DbosRunClient {
  return {
    start: async (input) => {
      const handle = await client.enqueue<(input: DurableRunInput) => Promise<DurableRunSummary>>(
        {
          workflowName,
          queueName,
          workflowID: input.runId,
          queuePartitionKey: input.sessionId,
          ...(appVersion === undefined ? {} : { appVersion }),
        },
        input,
      );
      return handle.workflowID;
    },
    result: (runId) => client.retrieveWorkflow<DurableRunSummary>(runId).getResult(),
    resumeRun: async (runId) => {
      const signal: ApprovalSignal = { runId };
      await client.send(runId, signal, approvalSignalTopic);
    },
    takeOver: async (executorId) => {
      const left = await client.listWorkflows({ status: 'PENDING', executorId, workflowName });
      const runIds = left.map((status) => status.workflowID);
      for (const runId of runIds) await client.resumeWorkflow(runId, { queueName });
      return runIds;
    },
  };
}
