import { open } from 'node:fs/promises';
import type { LlamaModel } from 'node-llama-cpp';
import { LocalModelError } from '../../errors/local-model-error.js';

type Runtime = typeof import('node-llama-cpp');

const installHint =
  'install the optional runtime: NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install node-llama-cpp@3.21.1 @node-llama-cpp/linux-x64@3.21.1 (see docs/models.md)';

/**
 * Checks a GGUF file and loads it with the optional `node-llama-cpp` runtime
 * (CPU only, its prebuilt binary, never a build or a download). Every way it
 * can fail is a `LocalModelError` naming the file: `missing_file`,
 * `unreadable_file`, `unsupported_file` (not GGUF, or a GGUF the runtime
 * cannot load), `runtime_missing` (the package is not installed). The
 * runtime is imported here and only here, so the core never loads it.
 *
 * @example
 * const { runtime, model } = await loadLocalRuntime({ file: 'models/smollm2-135m.gguf' });
 */
export async function loadLocalRuntime({ file }: { file: string }): Promise<{ runtime: Runtime; model: LlamaModel }> {
  await checkGgufFile(file);
  let runtime: Runtime;
  try {
    runtime = await import('node-llama-cpp');
  } catch (error) {
    throw new LocalModelError({
      file,
      problem: 'runtime_missing',
      message: `${file}: cannot load a local model without the node-llama-cpp package; ${installHint}`,
      cause: error,
    });
  }
  try {
    const llama = await runtime.getLlama({ gpu: false, build: 'never', logLevel: runtime.LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: file });
    return { runtime, model };
  } catch (error) {
    throw new LocalModelError({
      file,
      problem: 'unsupported_file',
      message: `${file}: the runtime could not load this model (${error instanceof Error ? error.message : String(error)}); use a GGUF chat model of an architecture llama.cpp supports`,
      cause: error,
    });
  }
}

async function checkGgufFile(file: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new LocalModelError({
        file,
        problem: 'missing_file',
        message: `${file}: no such model file`,
        cause: error,
      });
    }
    throw new LocalModelError({
      file,
      problem: 'unreadable_file',
      message: `${file}: cannot read the model file (${String(code ?? error)})`,
      cause: error,
    });
  }
  try {
    const header = Buffer.alloc(4);
    const { bytesRead } = await handle.read(header, 0, 4, 0).catch((error: unknown) => {
      throw new LocalModelError({
        file,
        problem: 'unreadable_file',
        message: `${file}: cannot read the model file (${(error as { code?: unknown }).code ?? String(error)})`,
        cause: error,
      });
    });
    if (bytesRead < 4 || header.toString('latin1') !== 'GGUF') {
      throw new LocalModelError({
        file,
        problem: 'unsupported_file',
        message: `${file}: not a GGUF model file (it does not start with the GGUF magic); arbiter's local models are GGUF files`,
      });
    }
  } finally {
    await handle.close();
  }
}
