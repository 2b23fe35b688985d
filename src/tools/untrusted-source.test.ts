import { describe, expect, it } from 'vitest';
import { untrustedErrorSource, untrustedSource } from './untrusted-source.js';

const named = (untrustedOutput?: boolean | string | ((result: unknown) => string | undefined)) => ({
  name: 'track_parcel',
  ...(untrustedOutput === undefined ? {} : { untrustedOutput }),
});

describe('untrustedErrorSource', () => {
  it('counts every error of a tool that declares untrustedOutput, in any form', () => {
    expect(untrustedErrorSource({ definition: named('the carrier'), error: {} })).toBe('the carrier');
    expect(untrustedErrorSource({ definition: named(true), error: {} })).toBe('track_parcel');
    // A function judges results; an error's text is counted under the tool's name.
    expect(untrustedErrorSource({ definition: named(() => undefined), error: {} })).toBe('track_parcel');
  });

  it('counts an error that says it quotes a third party, whatever the tool declares', () => {
    expect(untrustedErrorSource({ definition: named(), error: { untrusted: 'the payment gateway' } })).toBe(
      'the payment gateway',
    );
    expect(untrustedErrorSource({ definition: named(), error: { untrusted: true } })).toBe('track_parcel');
    expect(untrustedErrorSource({ definition: named('the carrier'), error: { untrusted: 'the depot' } })).toBe(
      'the depot',
    );
    // A blank name is no name: the tool's declaration, else its own name.
    expect(untrustedErrorSource({ definition: named('the carrier'), error: { untrusted: ' ' } })).toBe('the carrier');
  });

  it('leaves the error of a tool that declares nothing, and says nothing, trusted', () => {
    expect(untrustedErrorSource({ definition: named(), error: {} })).toBeUndefined();
    expect(untrustedErrorSource({ definition: named(false), error: {} })).toBeUndefined();
  });
});

describe('untrustedSource', () => {
  it('names a result by the declaration, and lets a function decide per result', () => {
    expect(untrustedSource({ definition: named('the carrier'), result: {} })).toBe('the carrier');
    expect(untrustedSource({ definition: named(() => undefined), result: {} })).toBeUndefined();
    expect(untrustedSource({ definition: named(), result: {} })).toBeUndefined();
  });
});
