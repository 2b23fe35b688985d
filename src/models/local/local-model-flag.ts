/** The prefix of a `--model` value that names a local GGUF file: `local:models/qwen.gguf`. */
export const localModelPrefix = 'local:';

/**
 * The file a `--model local:FILE` value names, or undefined for any other
 * value (`scripted`, `openai`, `configured`). An empty file name is
 * undefined too, so the caller's usage error names the flag.
 *
 * @example
 * localModelFile('local:models/qwen.gguf'); // 'models/qwen.gguf'
 * localModelFile('openai'); // undefined
 */
export function localModelFile(value: string): string | undefined {
  if (!value.startsWith(localModelPrefix)) return undefined;
  const file = value.slice(localModelPrefix.length).trim();
  return file === '' ? undefined : file;
}
