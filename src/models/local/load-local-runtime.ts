import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LocalModelError } from '../../errors/local-model-error.js';
import type { LocalLlamaModel, LocalRuntime } from './local-runtime.js';

/** The package name, held in a variable so that nothing resolves it before a local model is used. */
const runtimePackage = 'node-llama-cpp';

const installHint =
  'install it with `bash scripts/install-local-model.sh` (in this repository: the runtime under .local-model/, without its CUDA and Vulkan builds), or in your project `NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install --omit=optional node-llama-cpp@3.21.1 @node-llama-cpp/linux-x64@3.21.1` (see docs/models.md)';

/**
 * Where the runtime is looked for, in order: the `node-llama-cpp` package as
 * Node resolves it (installed beside arbiter), then the side install of
 * `scripts/install-local-model.sh` under `$ARBITER_LOCAL_HOME` (default
 * `.local-model` in the working directory).
 *
 * @example
 * localRuntimeCandidates({ env: {}, cwd: '/repo' }); // ['node-llama-cpp', 'file:///repo/.local-model/runtime/node_modules/node-llama-cpp/dist/index.js']
 */
export function localRuntimeCandidates({
  env = process.env,
  cwd = process.cwd(),
}: {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
} = {}): string[] {
  const home = resolve(cwd, env.ARBITER_LOCAL_HOME ?? '.local-model');
  const entry = join(home, 'runtime', 'node_modules', runtimePackage, 'dist', 'index.js');
  return [runtimePackage, pathToFileURL(entry).href];
}

/**
 * Checks a GGUF file and loads it with the optional `node-llama-cpp` runtime
 * (CPU only, its prebuilt binary, never a build or a download). The package
 * is imported here and only here, by a dynamic import (the core never loads
 * it), and typed by `LocalRuntime`, the part arbiter uses. Every way it can
 * fail is a `LocalModelError` naming the file: `missing_file`,
 * `unreadable_file`, `unsupported_file` (not GGUF, or a GGUF the runtime
 * cannot load), `runtime_missing` (the package is found neither beside
 * arbiter nor under `.local-model/`).
 *
 * @example
 * const { runtime, model } = await loadLocalRuntime({ file: '.local-model/models/smollm2-135m-instruct.gguf' });
 */
export async function loadLocalRuntime({
  file,
  candidates = localRuntimeCandidates(),
}: {
  file: string;
  /** Module specifiers to try in order; default `localRuntimeCandidates()`. */
  candidates?: readonly string[];
}): Promise<{ runtime: LocalRuntime; model: LocalLlamaModel }> {
  await checkGgufFile(file);
  const runtime = await importRuntime({ file, candidates });
  try {
    const llama = await runtime.getLlama({ gpu: false, build: 'never', logLevel: 'error' });
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

async function importRuntime({
  file,
  candidates,
}: {
  file: string;
  candidates: readonly string[];
}): Promise<LocalRuntime> {
  const failures: unknown[] = [];
  for (const specifier of candidates) {
    if (specifier.startsWith('file:') && !existsSync(new URL(specifier))) continue;
    try {
      const loaded: unknown = await import(specifier);
      return loaded as LocalRuntime;
    } catch (error) {
      failures.push(error);
    }
  }
  throw new LocalModelError({
    file,
    problem: 'runtime_missing',
    message: `${file}: cannot load a local model without the ${runtimePackage} package; ${installHint}`,
    cause: failures[0],
  });
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
