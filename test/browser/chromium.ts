import { existsSync } from 'node:fs';

/** Debian's Chromium, which the browser tests drive (`.ci/run` installs it with `apt-get install chromium`). */
export const chromiumPath = '/usr/bin/chromium';

/**
 * Whether a browser suite is skipped: only on a developer machine without
 * Chromium; CI (`CI=true`) installs it, so there a missing browser fails.
 * A skip says so in one line on stderr, naming the suite, instead of
 * passing over it without a word.
 *
 * @example
 * describe.skipIf(skipWithoutChromium('chat page in a real browser'))('chat page in a real browser', () => { … });
 */
export function skipWithoutChromium(suite: string, { path = chromiumPath, ci = process.env['CI'] === 'true' } = {}) {
  const skip = !existsSync(path) && !ci;
  if (skip) process.stderr.write(`skipped "${suite}": no Chromium at ${path} (apt-get install chromium)\n`);
  return skip;
}
