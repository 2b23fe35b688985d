import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseServeFlags, runServe } from '../cli/commands/serve.js';
import type { AssembledServer } from './create-server.js';
import type { RunningServer } from './start-server.js';

const opsToken = 'ops-token-001-0123456789abcdef0123';

describe('arbiter serve', () => {
  it('reads its flags with defaults and refuses values it cannot use', () => {
    expect(parseServeFlags([])).toEqual({
      port: 8787,
      host: '127.0.0.1',
      dataDir: '.arbiter',
      authFile: undefined,
      toolsModule: undefined,
      model: 'scripted',
      skipModelCheck: false,
      scriptFile: undefined,
      allowSelfApproval: false,
      memoryTools: false,
      principalLimits: {},
    });
    expect(parseServeFlags(['--max-streams', '3', '--allow-self-approval'])).toMatchObject({
      allowSelfApproval: true,
      principalLimits: { maxStreams: 3 },
    });
    expect(() => parseServeFlags(['--sessions-per-minute', '0'])).toThrow(
      '--sessions-per-minute must be a whole number from 1, got "0"',
    );
    expect(() => parseServeFlags(['--port', 'eighty'])).toThrow('--port must be an integer from 0 to 65535');
    expect(() => parseServeFlags(['--model', 'gpt'])).toThrow(
      '--model must be scripted, openai, configured or local:FILE (a GGUF model file), got "gpt"',
    );
    expect(() => parseServeFlags(['--model', 'openai', '--script', 'x.json'])).toThrow('--script only applies');
    expect(() => parseServeFlags(['--skip-model-check'])).toThrow('--skip-model-check only applies to --model openai');
    expect(parseServeFlags(['--model', 'openai', '--skip-model-check'])).toMatchObject({ skipModelCheck: true });
    expect(() => parseServeFlags(['--colour'])).toThrow();
  });

  it('starts on the given port with an auth file, serves, and stops', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'arbiter-serve-'));
    const authFile = join(directory, 'auth.json');
    writeFileSync(
      authFile,
      JSON.stringify({ tokens: [{ token: opsToken, tenantId: 'acme', userId: 'u1', roles: ['approver'] }] }),
    );
    const lines: string[] = [];
    let running: RunningServer<AssembledServer> | undefined;
    const exit = runServe({
      args: ['--port', '0', '--data-dir', join(directory, 'data'), '--auth', authFile],
      write: (line) => lines.push(line),
      onStarted: (started) => {
        running = started;
      },
    });
    while (running === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    const me = await fetch(`${running.url}/v1/me`, { headers: { authorization: `Bearer ${opsToken}` } });
    expect(await me.json()).toEqual({ tenantId: 'acme', userId: 'u1', roles: ['approver'] });
    expect(lines[0]).toMatch(/^arbiter serve: listening on http:\/\/127\.0\.0\.1:\d+ \(data in .*, model scripted\)$/);
    expect(lines.some((line) => line.includes('demo tokens'))).toBe(false);
    await running.close();
    expect(await exit).toBe(0);
    rmSync(directory, { recursive: true, force: true });
  });
});
