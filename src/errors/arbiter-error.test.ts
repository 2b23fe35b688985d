import { describe, expect, it } from 'vitest';
import * as errors from './index.js';

const classes = Object.entries(errors).filter(
  (entry): entry is [string, typeof errors.ArbiterError] => typeof entry[1] === 'function',
);

/** The marker name each class checks, as a second copy of the package would set it. */
const markers: Record<string, string> = {
  AmbiguousIdError: 'ambiguous_id',
  ApprovalResolutionError: 'approval_resolution',
  ArbiterError: '',
  AuditRetentionError: 'audit_retention',
  ConfigurationError: 'configuration',
  EngineReplayError: 'engine_replay',
  FatalToolError: 'fatal_tool',
  GateRuleError: 'gate_rule',
  HttpError: 'http',
  InfrastructureError: 'infrastructure',
  InputFileError: 'input_file',
  InvalidForkPointError: 'invalid_fork_point',
  LocalModelError: 'local_model',
  MemoryFactError: 'memory_fact',
  ModelError: 'model',
  RetryableToolError: 'retryable_tool',
  RunHandedOverError: 'run_handed_over',
  ServerConfigError: 'server_config',
  SessionConflictError: 'session_conflict',
  SessionNotFoundError: 'session_not_found',
  StoreBusyError: 'store_busy',
  ToolDefinitionError: 'tool_definition',
  ToolTimeoutError: 'tool_timeout',
  UndoError: 'undo',
  UsageError: 'usage',
};

const fromSecondCopy = (name: string) => {
  const key = markers[name] === '' ? 'arbiter.error' : `arbiter.error.${markers[name]}`;
  return Object.assign(new Error('from another copy'), {
    [Symbol.for('arbiter.error')]: true,
    [Symbol.for(key)]: true,
  });
};

describe('ArbiterError.isInstance', () => {
  it('knows the marker of every exported error class', () => {
    expect(classes.map(([name]) => name).sort()).toEqual(Object.keys(markers).sort());
  });

  it.each(classes)(
    'recognises a %s thrown by a second copy of the module (a plain object with the marker)',
    (name, type) => {
      expect(type.isInstance(fromSecondCopy(name))).toBe(true);
      expect(errors.ArbiterError.isInstance(fromSecondCopy(name))).toBe(true);
    },
  );

  it.each(classes)('rejects an unrelated Error, a plain object and nothing as a %s', (_name, type) => {
    expect(type.isInstance(new Error('session s1 does not exist'))).toBe(false);
    expect(type.isInstance({ code: 'session_conflict' })).toBe(false);
    expect(type.isInstance(undefined)).toBe(false);
    expect(type.isInstance(null)).toBe(false);
    expect(type.isInstance('arbiter.error')).toBe(false);
  });

  it('rejects a marker that is present but not true', () => {
    expect(errors.ArbiterError.isInstance({ [Symbol.for('arbiter.error')]: 'yes' })).toBe(false);
  });

  it('tells the classes apart: one class is not mistaken for another', () => {
    const error = new errors.SessionNotFoundError({ sessionId: 's1' });
    expect(errors.SessionNotFoundError.isInstance(error)).toBe(true);
    expect(errors.ArbiterError.isInstance(error)).toBe(true);
    expect(errors.SessionConflictError.isInstance(error)).toBe(false);
    expect(errors.UsageError.isInstance(fromSecondCopy('SessionNotFoundError'))).toBe(false);
  });

  it('names the error after its class and keeps the cause', () => {
    const cause = new Error('disk full');
    const error = new errors.StoreBusyError({ operation: 'beginRun', waitedMs: 2000, cause });
    expect(error.name).toBe('StoreBusyError');
    expect(error.cause).toBe(cause);
    expect(error).toBeInstanceOf(Error);
  });
});
