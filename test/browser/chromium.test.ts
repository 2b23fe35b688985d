import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { skipWithoutChromium } from './chromium.js';

describe('skipWithoutChromium', () => {
  it('skips a suite without Chromium with one line saying why, and never in CI', () => {
    const written = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const missing = join('/nonexistent', 'chromium');
      expect(skipWithoutChromium('the suite', { path: missing, ci: false })).toBe(true);
      expect(written.mock.calls).toEqual([
        [`skipped "the suite": no Chromium at ${missing} (apt-get install chromium)\n`],
      ]);
      written.mockClear();
      expect(skipWithoutChromium('the suite', { path: missing, ci: true })).toBe(false);
      expect(skipWithoutChromium('the suite', { path: process.execPath, ci: false })).toBe(false);
      expect(written).not.toHaveBeenCalled();
    } finally {
      written.mockRestore();
    }
  });
});
