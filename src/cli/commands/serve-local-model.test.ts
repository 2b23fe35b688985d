import { describe, expect, it } from 'vitest';
import { LocalModelError } from '../../errors/local-model-error.js';
import { UsageError } from '../../errors/usage-error.js';
import { evalYieldFromArgs } from './eval-yield.js';
import { parseServeFlags, serveOptions } from './serve.js';

describe('arbiter serve --model local:FILE', () => {
  it('takes a GGUF file after local:, and refuses an empty one or a model check that does not apply', () => {
    expect(parseServeFlags(['--model', 'local:models/qwen.gguf']).model).toBe('local:models/qwen.gguf');
    expect(() => parseServeFlags(['--model', 'local:'])).toThrow(UsageError);
    expect(() => parseServeFlags(['--model', 'local:'])).toThrow(
      '--model must be scripted, openai, configured or local:FILE (a GGUF model file), got "local:"',
    );
    expect(() => parseServeFlags(['--model', 'local:a.gguf', '--skip-model-check'])).toThrow(UsageError);
  });

  it('fails before opening anything when the file is missing, naming it', async () => {
    const failure: unknown = await serveOptions(parseServeFlags(['--model', 'local:/no/such/model.gguf'])).catch(
      (error: unknown) => error,
    );
    expect(LocalModelError.isInstance(failure)).toBe(true);
    expect((failure as LocalModelError).message).toBe('/no/such/model.gguf: no such model file');
  });
});

describe('arbiter eval yield', () => {
  it('needs a model file and says which one is missing', async () => {
    expect(await evalYieldFromArgs(['--out', '/tmp/arbiter-yield-test'])).toEqual({
      exitCode: 2,
      stdout: [],
      stderr: ['eval yield needs --model FILE (a GGUF model file)'],
    });
    expect((await evalYieldFromArgs(['--model', '/no/such.gguf', '--out', '/tmp/arbiter-yield-test'])).stderr).toEqual([
      '/no/such.gguf: no such model file',
    ]);
  });
});
