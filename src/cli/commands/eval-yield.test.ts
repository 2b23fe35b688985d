import { describe, expect, it } from 'vitest';
import { evalYieldFromArgs } from './eval-yield.js';

describe('evalYieldFromArgs', () => {
  it.each(['0/2', '3/2', '1', 'a/b'])('refuses --shard %s before loading any model', async (shard) => {
    const result = await evalYieldFromArgs(['--model', 'missing.gguf', '--shard', shard]);
    expect(result).toMatchObject({ exitCode: 2, stderr: [`--shard must be K/N with 1 <= K <= N, got "${shard}"`] });
  });
});
