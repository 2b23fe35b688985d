import { describe } from 'vitest';
import type { ContractOptions } from '../test-support/contract-backend.js';
import { describeMemoryStoreContract } from '../test-support/memory-store-contract.js';
import { openPostgresBackend } from './open-postgres-backend.js';
import { setUpPostgresCluster } from './test-support/postgres-cluster.js';

// One throwaway cluster for this file; every test opens a backend on a schema of its own.
const cluster = setUpPostgresCluster();

describe.skipIf(cluster.skip)('PostgreSQL memory', () => {
  describeMemoryStoreContract('PostgresMemoryStore', (options: ContractOptions) =>
    openPostgresBackend({ connectionString: cluster.connectionString, schema: cluster.freshSchema(), ...options }),
  );
});
