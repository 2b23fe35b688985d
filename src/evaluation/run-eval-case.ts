import type { ChatMessage } from '../core/chat-message.js';
import type { StopReason } from '../core/stop-reason.js';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import { EventBus } from '../events/event-bus.js';
import { createTierGate } from '../gate/tier-gate.js';
import { type RunResult, runAgent } from '../loop/run-agent.js';
import { createConfiguredModel } from '../models/create-configured-model.js';
import type { Model } from '../models/model.js';
import { ScriptedModel } from '../models/scripted-model.js';
import { observeRunTrace, type RunObservation } from '../observe/run-observation.js';
import type { RunTrace } from '../observe/run-trace.js';
import { TraceRecorder } from '../observe/trace-recorder.js';
import { SqliteAuditLog } from '../store/sqlite/sqlite-audit-log.js';
import { SqliteIdempotencyStore } from '../store/sqlite/sqlite-idempotency-store.js';
import { openSqliteStore, type SqliteStore } from '../store/sqlite/sqlite-store.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import type { ToolDefinition } from '../tools/tool-types.js';
import { caseApprovals } from './case-approvals.js';
import { openCaseMemory } from './case-memory.js';
import { checkExpectations } from './check-expectations.js';
import { errorDescriber } from './error-describer.js';
import type { EvalCase, ToolSelection } from './eval-case.js';
import type { EvalToolkit, EvalToolkitFactory } from './eval-toolkit.js';
import { createFixtureTools, type FixtureToolSpec } from './fixture-tools.js';

/** How one case went. */
export interface CaseResult {
  readonly id: string;
  readonly category: string;
  readonly passed: boolean;
  /** One sentence per expectation that did not hold. */
  readonly failures: readonly string[];
  readonly stopReason: StopReason;
  readonly modelCalls: number;
  readonly toolCalls: number;
  readonly tokens: number;
  readonly durationMs: number;
  readonly answer: string | undefined;
  /** One per turn, for the suite's metrics. */
  readonly runs: readonly RunObservation[];
}

export interface RunEvalCaseOptions {
  readonly evalCase: EvalCase;
  /** Makes the suite's application tools with fresh data for this case. */
  readonly toolkit?: EvalToolkitFactory;
  /** The suite's own tools, defined as data. */
  readonly fixtures?: readonly FixtureToolSpec[];
  /** Runs the case on the configured endpoint whatever its `model` says. */
  readonly useConfiguredModel?: boolean;
  /** Makes the model for `"model": "configured"`. Default: `createConfiguredModel()` (the resilient client, as `serve` uses). */
  readonly configuredModel?: () => Model;
}

/**
 * Runs one evaluation case: mounts its tools over fresh data, plays each
 * user turn through `runAgent` with the case's principal and limits, the
 * tier gate (the toolkit's rules and the case's), the case's approver and an
 * in-memory idempotency store,
 * folds the events into calls, and checks the expectations. A case that
 * throws (a broken toolkit, an unknown tool group) fails with the reason;
 * it never stops the suite.
 *
 * @example
 * const result = await runEvalCase({ evalCase, toolkit: toolkits.shop, fixtures });
 * if (!result.passed) console.log(result.failures);
 */
export async function runEvalCase({
  evalCase,
  toolkit: makeToolkit,
  fixtures = [],
  useConfiguredModel = false,
  configuredModel = () => createConfiguredModel(),
}: RunEvalCaseOptions): Promise<CaseResult> {
  const startedAt = performance.now();
  const runs: RunTrace[] = [];
  let toolkit: EvalToolkit | undefined;
  let store: SqliteStore | undefined;
  let messages: ChatMessage[] = [];
  let last: RunResult | undefined;
  let modelCalls = 0;
  const finish = (failures: string[]): CaseResult => {
    const observations = runs.flatMap((run) => observeRunTrace(run) ?? []);
    return {
      id: evalCase.id,
      category: evalCase.category,
      passed: failures.length === 0,
      failures,
      stopReason: last?.stopReason ?? 'error',
      modelCalls,
      toolCalls: runs.reduce((count, run) => count + run.steps.reduce((sum, step) => sum + step.calls.length, 0), 0),
      tokens: observations.reduce((sum, run) => sum + run.inputTokens + run.outputTokens, 0),
      durationMs: performance.now() - startedAt,
      answer: last?.text,
      runs: observations,
    };
  };

  try {
    toolkit = makeToolkit?.(evalCase.toolkitOptions);
    store = openSqliteStore({ path: ':memory:' });
    const memory = await openCaseMemory({ evalCase, database: store.database, conversation: () => messages });
    const registry = new ToolRegistry();
    for (const tool of selectTools([...(toolkit?.tools ?? []), ...createFixtureTools(fixtures)], evalCase.tools)) {
      registry.register(tool);
    }
    memory?.register(registry);
    const model =
      useConfiguredModel || evalCase.model === 'configured'
        ? configuredModel()
        : new ScriptedModel({ script: evalCase.model.script });
    // The toolkit's rules for tools this case does not mount cannot apply; the case's own must name mounted tools.
    const toolkitRules = (toolkit?.gateRules ?? []).filter((rule) => rule.tool === '*' || registry.get(rule.tool));
    const gate = createTierGate({
      rules: [...toolkitRules, ...(evalCase.gate?.rules ?? [])],
      tools: registry,
      locale: evalCase.locale,
    });
    const idempotency = new SqliteIdempotencyStore({ database: store.database });
    // Only where the case asks: an audit log is also where cumulative rules read their history from.
    const audit = evalCase.expect.audit === undefined ? undefined : new SqliteAuditLog({ database: store.database });
    const events = new EventBus();
    const recorder = new TraceRecorder({ onRun: (run) => runs.push(run) });
    events.subscribe((event) => recorder.record(event));

    for (const content of evalCase.input) {
      // A later session: nothing of the earlier conversation, only what memory kept.
      if (evalCase.memory?.sessionPerTurn === true) messages = [];
      messages = [...messages, { role: 'user', content }];
      if (memory !== undefined) messages = await memory.pin(messages, content);
      last = await runAgent({
        model,
        tools: registry,
        messages,
        events,
        gate,
        approvals: caseApprovals(evalCase.gate?.approver),
        idempotency,
        ...(audit === undefined ? {} : { audit }),
        locale: evalCase.locale,
        describeError: errorDescriber(evalCase.errorStyle),
        ...(evalCase.principal === undefined ? {} : { principal: evalCase.principal }),
        ...(evalCase.limits === undefined ? {} : { limits: evalCase.limits }),
      });
      // Listeners run after the producer's synchronous work: let the last events land.
      await new Promise((resolve) => setImmediate(resolve));
      messages = [...last.messages];
      modelCalls += last.steps;
      if (last.stopReason === 'awaiting_approval' || last.stopReason === 'error') break;
    }
    if (last === undefined) return finish(['input: the case has no user message']);
    const failures = checkExpectations({
      expect: evalCase.expect,
      transcript: {
        stopReason: last.stopReason,
        answer: last.text,
        messages,
        calls: runs.flatMap((run) => run.steps.flatMap((step) => step.calls)),
        modelCalls,
        state: toolkit?.state?.(),
      },
    });
    if (last.error !== undefined) failures.push(`run error: ${last.error.code}: ${last.error.message}`);
    if (audit !== undefined) failures.push(...(await checkAudit(audit, evalCase.expect.audit?.tools ?? [])));
    return finish(failures);
  } catch (error) {
    return finish([`case could not run: ${error instanceof Error ? error.message : String(error)}`]);
  } finally {
    toolkit?.close?.();
    store?.close();
  }
}

/** What the case's audit log must show: a row for each tool named, every row chained, the chain intact. */
async function checkAudit(audit: SqliteAuditLog, tools: readonly string[]): Promise<string[]> {
  await audit.flush();
  const rows = audit.listAudit();
  const failures = tools
    .filter((tool) => !rows.some((row) => row.tool === tool))
    .map((tool) => `audit: no row for ${tool}`);
  const report = audit.verifyChain();
  if (report.rows === 0) failures.push('audit: no rows');
  if (report.unchained > 0) failures.push(`audit: ${report.unchained} of ${report.rows} rows are not in a hash chain`);
  for (const finding of report.findings) failures.push(`audit: ${finding.message}`);
  return failures;
}

/** The tools of the selected groups plus the tools named; all of them when nothing is selected. */
function selectTools(tools: readonly ToolDefinition[], selection: ToolSelection): ToolDefinition[] {
  const { groups, names } = selection;
  if (groups === undefined && names === undefined) return [...tools];
  const known = new Set(tools.flatMap((tool) => [...(tool.groups ?? [])]));
  const unknownGroups = (groups ?? []).filter((group) => !known.has(group));
  const unknownNames = (names ?? []).filter((name) => !tools.some((tool) => tool.name === name));
  if (unknownGroups.length > 0 || unknownNames.length > 0) {
    const missing = [
      ...unknownGroups.map((group) => `group "${group}"`),
      ...unknownNames.map((name) => `tool "${name}"`),
    ];
    throw new ToolDefinitionError({ message: `no ${missing.join(', ')} in this suite` });
  }
  return tools.filter(
    (tool) => (names ?? []).includes(tool.name) || (tool.groups ?? []).some((group) => (groups ?? []).includes(group)),
  );
}
