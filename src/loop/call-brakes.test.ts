import { describe, expect, it } from 'vitest';
import { CallBrakes } from './call-brakes.js';

describe('CallBrakes', () => {
  it('counts a call by tool and canonical arguments, each tool apart', () => {
    const brakes = new CallBrakes({ maxIdenticalCalls: 2, maxConsecutiveFailures: 2 });
    expect(brakes.noteCall('query_order', '{"order_id":"SO20260901"}')).toBe(1);
    expect(brakes.noteCall('query_order', '{"order_id":"SO20260901"}')).toBe(2);
    expect(brakes.noteCall('query_order', '{"order_id":"SO20260902"}')).toBe(1);
    expect(brakes.noteCall('track_shipment', '{"order_id":"SO20260901"}')).toBe(1);
    expect(brakes.noteCall('query_order', '{"order_id":"SO20260901"}')).toBe(3);
    // A name and a text that would read alike joined are still two calls.
    expect(brakes.noteCall('a\u0000b', 'c')).toBe(1);
    expect(brakes.noteCall('a', 'b\u0000c')).toBe(1);
  });

  it('trips after the same tool failed too often in a row, and forgets on a success', () => {
    const brakes = new CallBrakes({ maxIdenticalCalls: 2, maxConsecutiveFailures: 2 });
    expect(brakes.noteOutcome('apply_refund', false)).toBe(false);
    expect(brakes.noteOutcome('apply_refund', false)).toBe(true);
    expect(brakes.failuresOf('apply_refund')).toBe(2);
    expect(brakes.noteOutcome('apply_refund', true)).toBe(false);
    expect(brakes.failuresOf('apply_refund')).toBe(0);
  });
});
