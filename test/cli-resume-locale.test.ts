import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/** Runs the real `arbiter` entry point in a child process, as a user would (stdout a pipe, not a terminal). */
function arbiter(...args: string[]) {
  const { APPROVE: _approve, ...inherited } = process.env;
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...inherited, NO_COLOR: '1' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A Chinese demo left at its pending approval: the command it prints to decide later, and its session. */
function chineseDemoAwaitingApproval() {
  const dataDirectory = mkdtempSync(join(tmpdir(), 'arbiter-resume-locale-'));
  directories.push(dataDirectory);
  const demo = arbiter('demo', '--lang', 'zh-CN', '--data-dir', dataDirectory);
  expect(demo.code).toBe(0);
  expect(demo.stdout).toContain('[等待确认]');
  const printed = /稍后确认：npm run arbiter -- (approve \S+ --data-dir \S+)（/.exec(demo.stdout)?.[1];
  const sessionId = /用 --session (\S+) 继续/.exec(demo.stdout)?.[1];
  if (printed === undefined || sessionId === undefined) throw new Error(`no approve command printed:\n${demo.stdout}`);
  return { dataDirectory, approveArgs: printed.split(' '), sessionId };
}

/** What the Chinese script does once the 200.00 yuan refund is approved: it runs, and the model answers. */
function expectChineseContinuation(stdout: string) {
  expect(stdout).toContain('apply_refund 已执行');
  expect(stdout).toContain('助手      两笔退款都已办好');
  // The refund's run, as the Chinese script plays it: its two refunds, three model calls.
  expect(stdout).toContain('[已完成] 模型已作答；模型调用 3 次，工具调用 2 次');
  expect(stdout).not.toContain('query_order {"order_id":12345}');
  expect(stdout).not.toMatch(/^(model|assistant|audit) /m);
  expect(stdout).not.toContain('[completed]');
  // One order lookup in the whole session: the first request's, not one more from an English script.
  expect(stdout.match(/^审计 +query_order /gm)).toHaveLength(1);
}

describe('resuming a Chinese demo', () => {
  it('continues in Chinese when approved with the printed command, which has no --lang', () => {
    const { approveArgs } = chineseDemoAwaitingApproval();
    const approved = arbiter(...approveArgs);
    expect(approved.stderr).toBe('');
    expect(approved.code).toBe(0);
    // approve's own line follows the session's language too.
    expect(approved.stdout.split('\n')[0]).toMatch(
      /^\S+ \(command line: OS user [^)]+\) 已确认 ap_[0-9a-f]+：apply_refund /,
    );
    expectChineseContinuation(approved.stdout);
  });

  it('continues in Chinese under demo --session ID --approve, without --lang', () => {
    const { dataDirectory, sessionId } = chineseDemoAwaitingApproval();
    const continued = arbiter('demo', '--session', sessionId, '--approve', '--data-dir', dataDirectory);
    expect(continued.code).toBe(0);
    expect(continued.stdout).toContain(`继续会话 ${sessionId}`);
    expectChineseContinuation(continued.stdout);
  });
});
