import { describe, expect, it } from 'vitest';
import { refuseDeniedCall } from './refuse-denied-call.js';
import { gatedCallFixture } from './test-support/gated-call-fixture.js';

describe('refuseDeniedCall', () => {
  it('audits the denial with its rule and tells the model not to try again', async () => {
    const { runtime, call, audited } = gatedCallFixture();
    const error = await refuseDeniedCall(runtime, call, {
      decision: 'deny',
      rule: 'refund_hard_cap',
      code: 'over_hard_cap',
      message: 'Refunds above 500.00 cannot be made here.',
    });
    expect(error).toMatchInlineSnapshot(`
      {
        "code": "over_hard_cap",
        "message": "Refused (over_hard_cap): Refunds above 500.00 cannot be made here. Do not call apply_refund again for this; tell the user what happened.",
        "retryable": false,
      }
    `);
    expect(audited[0]).toMatchObject({ decision: 'denied', rule: 'refund_hard_cap', outcome: 'not_run' });
  });
});
