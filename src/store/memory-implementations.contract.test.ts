import { createMemoryJournal } from '../core/run-journal.js';
import { MemoryAuditLog } from '../gate/memory-audit-log.js';
import { describeAuditLogContract } from './test-support/audit-log-contract.js';
import { describeRunJournalContract } from './test-support/run-journal-contract.js';

// The in-memory implementations that exist pass the same suites as the backends.
describeRunJournalContract('createMemoryJournal', () => ({ journal: createMemoryJournal(), runId: 'run-1' }));
describeAuditLogContract('MemoryAuditLog', () => ({ audit: new MemoryAuditLog() }));
