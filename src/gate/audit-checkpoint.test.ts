import { describe, expect, it } from 'vitest';
import { auditCheckpointOfCut, isSignedCheckpoint } from './audit-checkpoint.js';

describe('auditCheckpointOfCut', () => {
  it('records a chain of the first format by tenant and one of the second by tenant, writer and place', () => {
    const checkpoint = auditCheckpointOfCut({
      cut: [
        { tenant: 'bank', writer: null, seq: null, hash: 'h-first' },
        { tenant: '', writer: 'node-a', seq: 41, hash: 'h-second' },
      ],
    });
    expect(checkpoint).toEqual({
      chain_starts: { bank: 'h-first' },
      chains: [{ tenant: '', writer: 'node-a', seq: 41, hash: 'h-second' }],
      signature: null,
    });
  });

  it('writes no chains for a cut of the first format alone, and signs with the key when one is given', () => {
    const checkpoint = auditCheckpointOfCut({
      cut: [{ tenant: 'bank', writer: null, seq: null, hash: 'h' }],
      key: 'k',
    });
    expect(checkpoint.chains).toBeUndefined();
    expect(isSignedCheckpoint(checkpoint, 'k')).toBe(true);
    expect(isSignedCheckpoint(checkpoint, 'another key')).toBe(false);
  });
});
