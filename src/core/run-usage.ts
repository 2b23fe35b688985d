export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens served from the provider's prompt cache, when reported. */
  readonly cachedInputTokens?: number;
}

export interface RunUsage extends TokenUsage {
  readonly totalTokens: number;
}
