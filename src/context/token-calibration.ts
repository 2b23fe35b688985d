/** How far one observation moves the ratio (an exponential moving average). */
const smoothing = 0.5;
/** A ratio outside these bounds means a miscount somewhere, not a tokenizer difference. */
const minimumRatio = 0.5;
const maximumRatio = 3;

/**
 * Corrects the tokenizer's estimate of a request with the input tokens the
 * provider reports for it. Models outside the o200k family, the chat
 * framing and tool rendering all make the local count drift; the ratio
 * `reported / estimated`, smoothed over a session's requests, brings the
 * estimate back in line, so the compression threshold is checked against
 * what the provider will actually count. Keep one per session.
 *
 * @example
 * const calibration = new TokenCalibration();
 * const estimate = countConversationTokens({ messages, tools });
 * const response = await model.generate({ messages, tools });
 * calibration.observe({ estimatedTokens: estimate, reportedInputTokens: response.usage.inputTokens });
 * calibration.correct(countConversationTokens({ messages: next, tools })); // estimate × ratio
 */
export class TokenCalibration {
  #ratio: number;
  #observations = 0;

  constructor({ ratio = 1 }: { ratio?: number } = {}) {
    this.#ratio = clamp(ratio);
  }

  /** Reported tokens per estimated token so far; 1 until the first observation. */
  get ratio(): number {
    return this.#ratio;
  }

  get observations(): number {
    return this.#observations;
  }

  /** The estimate scaled by the ratio, rounded up. */
  correct(estimatedTokens: number): number {
    return Math.ceil(estimatedTokens * this.#ratio);
  }

  /**
   * Folds in one request: what was estimated for it and what the provider
   * reported. Ignored when either is not positive (a provider that reports
   * no usage, an empty request).
   */
  observe({ estimatedTokens, reportedInputTokens }: { estimatedTokens: number; reportedInputTokens: number }): void {
    if (!(estimatedTokens > 0) || !(reportedInputTokens > 0)) return;
    const observed = clamp(reportedInputTokens / estimatedTokens);
    this.#ratio = this.#observations === 0 ? observed : clamp(this.#ratio + smoothing * (observed - this.#ratio));
    this.#observations += 1;
  }
}

function clamp(ratio: number): number {
  if (!Number.isFinite(ratio)) return 1;
  return Math.min(maximumRatio, Math.max(minimumRatio, ratio));
}
