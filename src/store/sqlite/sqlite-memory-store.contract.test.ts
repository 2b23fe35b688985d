import type { ContractOptions } from '../test-support/contract-backend.js';
import { describeMemoryStoreContract } from '../test-support/memory-store-contract.js';
import { openSqliteBackend } from './open-sqlite-backend.js';

describeMemoryStoreContract('SqliteMemoryStore', (options: ContractOptions) =>
  openSqliteBackend({ path: ':memory:', ...options }),
);
