import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalModelError } from '../../errors/local-model-error.js';
import { loadLocalRuntime, localRuntimeCandidates } from './load-local-runtime.js';
import { LocalModel } from './local-model.js';

// The runtime is optional (scripts/install-local-model.sh); without it, outside CI, the test that needs it is skipped.
const runtimePackage: string = 'node-llama-cpp';
const runtimeFound =
  (await import(runtimePackage).then(
    () => true,
    () => false,
  )) || existsSync(new URL(localRuntimeCandidates()[1] as string));

const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };

async function failure(file: string): Promise<LocalModelError> {
  const error: unknown = await new LocalModel({ file }).generate(request).catch((caught: unknown) => caught);
  if (!LocalModelError.isInstance(error)) throw new Error(`expected a LocalModelError, got ${String(error)}`);
  return error;
}

describe('LocalModel', () => {
  const directory = mkdtempSync(join(tmpdir(), 'arbiter-local-model-'));

  it('refuses a missing file with a LocalModelError naming it', async () => {
    const error = await failure(join(directory, 'nope.gguf'));
    expect(error.code).toBe('local_model_unavailable');
    expect(error.problem).toBe('missing_file');
    expect(error.message).toBe(`${join(directory, 'nope.gguf')}: no such model file`);
  });

  it('refuses a file that is not GGUF before loading anything', async () => {
    const file = join(directory, 'weights.bin');
    writeFileSync(file, 'PK\u0003\u0004 not a gguf');
    const error = await failure(file);
    expect(error.problem).toBe('unsupported_file');
    expect(error.message).toMatch(/not a GGUF model file/);
  });

  it.skipIf(!runtimeFound && process.env.CI === undefined)(
    'refuses a GGUF header the runtime cannot load as unsupported',
    async () => {
      const file = join(directory, 'truncated.gguf');
      writeFileSync(file, Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(12)]));
      const error = await failure(file);
      expect(error.problem).toBe('unsupported_file');
      expect(error.message).toMatch(/the runtime could not load this model/);
    },
    120_000,
  );

  it.skipIf(process.getuid?.() === 0)('refuses an unreadable file', async () => {
    const file = join(directory, 'locked.gguf');
    writeFileSync(file, 'GGUF');
    chmodSync(file, 0o000);
    expect((await failure(file)).problem).toBe('unreadable_file');
  });

  it('refuses a directory as unreadable', async () => {
    expect((await failure(directory)).problem).toBe('unreadable_file');
  });

  it('says how to install the runtime when it is found nowhere (a LocalModelError, not a module error)', async () => {
    const file = join(directory, 'ok.gguf');
    writeFileSync(file, Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(12)]));
    const error: unknown = await loadLocalRuntime({
      file,
      candidates: ['arbiter-no-such-runtime', localRuntimeCandidates({ env: {}, cwd: directory })[1] as string],
    }).catch((caught: unknown) => caught);
    expect(LocalModelError.isInstance(error)).toBe(true);
    expect((error as LocalModelError).problem).toBe('runtime_missing');
    expect((error as LocalModelError).message).toContain('bash scripts/install-local-model.sh');
  });

  it('looks for the runtime beside arbiter, then under .local-model/ (or $ARBITER_LOCAL_HOME)', () => {
    expect(localRuntimeCandidates({ env: {}, cwd: '/repo' })).toEqual([
      'node-llama-cpp',
      'file:///repo/.local-model/runtime/node_modules/node-llama-cpp/dist/index.js',
    ]);
    expect(localRuntimeCandidates({ env: { ARBITER_LOCAL_HOME: '/opt/llm' }, cwd: '/repo' })[1]).toBe(
      'file:///opt/llm/runtime/node_modules/node-llama-cpp/dist/index.js',
    );
  });

  it('is named after the file', () => {
    expect(new LocalModel({ file: '/models/qwen.gguf' }).name).toBe('local:qwen.gguf');
  });
});
