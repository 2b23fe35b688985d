import { describe, expect, it } from 'vitest';
import { TokenCalibration } from './token-calibration.js';

describe('TokenCalibration', () => {
  it('starts at 1 and takes the first observation as it is', () => {
    const calibration = new TokenCalibration();
    expect(calibration.correct(1000)).toBe(1000);
    calibration.observe({ estimatedTokens: 1000, reportedInputTokens: 1200 });
    expect(calibration.ratio).toBeCloseTo(1.2);
    expect(calibration.correct(1000)).toBe(1200);
  });

  it('smooths later observations', () => {
    const calibration = new TokenCalibration();
    calibration.observe({ estimatedTokens: 1000, reportedInputTokens: 1200 });
    calibration.observe({ estimatedTokens: 1000, reportedInputTokens: 1000 });
    expect(calibration.ratio).toBeCloseTo(1.1);
    expect(calibration.observations).toBe(2);
  });

  it('ignores usage a provider did not report, and bounds an absurd ratio', () => {
    const calibration = new TokenCalibration();
    calibration.observe({ estimatedTokens: 1000, reportedInputTokens: 0 });
    expect(calibration.observations).toBe(0);
    calibration.observe({ estimatedTokens: 10, reportedInputTokens: 100_000 });
    expect(calibration.ratio).toBe(3);
  });
});
