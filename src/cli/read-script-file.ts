import { readFile } from 'node:fs/promises';
import { InputFileError } from '../errors/input-file-error.js';
import type { Script } from '../models/script.js';

/**
 * Reads a scripted model's script (JSON, `{ name, turns }`), for `serve
 * --script` and `fake-endpoint --script`; an unreadable file or one without
 * a `turns` array is an `InputFileError` naming the file.
 *
 * @example
 * const script = await readScriptFile('time.json');
 */
export async function readScriptFile(file: string): Promise<Script> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new InputFileError({ file, problem: 'cannot be read as JSON', cause: error });
  }
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { turns?: unknown }).turns)) {
    throw new InputFileError({ file, problem: 'a script needs "name" and a "turns" array' });
  }
  return value as Script;
}
