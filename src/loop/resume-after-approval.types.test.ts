/**
 * The store concepts the public API takes, checked by the compiler (`npm run
 * check` type-checks tests): `resumeAfterApproval` and `runSession` accept
 * each backend's approvals, sessions, idempotency and audit (the concepts'
 * interfaces, never one dialect's class), so none of the calls below may be
 * a type error. Nothing here opens a database: the calls are compiled, not made.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { Model } from '../models/model.js';
import type { Backend } from '../store/backend.js';
import type { PostgresBackend } from '../store/postgres/open-postgres-backend.js';
import type { PostgresApprovalBroker } from '../store/postgres/postgres-approval-broker.js';
import type { PostgresSessionStore } from '../store/postgres/postgres-session-store.js';
import type { SqliteBackend } from '../store/sqlite/open-sqlite-backend.js';
import type { SqliteApprovalBroker } from '../store/sqlite/sqlite-approval-broker.js';
import type { SqliteSessionStore } from '../store/sqlite/sqlite-session-store.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import {
  type ResumeAfterApprovalOptions,
  type ResumeAfterApprovalResult,
  resumeAfterApproval,
} from './resume-after-approval.js';
import { type RunSessionOptions, runSession } from './run-session.js';

/** The options every call below shares besides the stores. */
interface Decision {
  readonly approvalId: string;
  readonly decision: 'approve';
  readonly approver: string;
  readonly model: Model;
  readonly tools: ToolRegistry;
}

/** Compiled for each backend; never called. */
function continueOn(
  backend: Backend | SqliteBackend | PostgresBackend,
  decision: Decision,
): Promise<ResumeAfterApprovalResult> {
  return resumeAfterApproval({
    ...decision,
    sessions: backend.sessions,
    broker: backend.approvals,
    idempotency: backend.idempotency,
    audit: backend.audit,
  });
}

describe('the store concepts resumeAfterApproval and runSession take', () => {
  it("takes either backend's approvals and sessions, as a backend or as the classes", () => {
    expectTypeOf<SqliteApprovalBroker>().toExtend<ResumeAfterApprovalOptions['broker']>();
    expectTypeOf<PostgresApprovalBroker>().toExtend<ResumeAfterApprovalOptions['broker']>();
    expectTypeOf<SqliteSessionStore>().toExtend<ResumeAfterApprovalOptions['sessions']>();
    expectTypeOf<PostgresSessionStore>().toExtend<ResumeAfterApprovalOptions['sessions']>();
    expectTypeOf<PostgresBackend['approvals']>().toExtend<ResumeAfterApprovalOptions['broker']>();
    expectTypeOf<SqliteBackend['approvals']>().toExtend<ResumeAfterApprovalOptions['broker']>();
    expectTypeOf<PostgresBackend['approvals']>().toExtend<NonNullable<RunSessionOptions['approvals']>>();
    expectTypeOf(continueOn).parameter(0).toEqualTypeOf<Backend | SqliteBackend | PostgresBackend>();
  });

  it('compiles a call with the PostgreSQL classes themselves', () => {
    const withClasses = async (broker: PostgresApprovalBroker, sessions: PostgresSessionStore, decision: Decision) => {
      const { model, tools } = decision;
      await runSession({ model, tools, sessions, sessionId: 's_1', resume: true, approvals: broker });
      return resumeAfterApproval({ ...decision, sessions, broker });
    };
    expectTypeOf(withClasses).returns.resolves.toEqualTypeOf<ResumeAfterApprovalResult>();
  });
});
