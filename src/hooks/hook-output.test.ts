import { describe, expect, it } from 'vitest';
import { MAX_HOOK_STDOUT_BYTES, readHookAnswer, type HookRun } from './hook-output.js';
import { hookSetOf, matches } from './hook-set.js';
import { combinePre, type LabelledAnswer } from './tool-hooks.js';

const run = (over: Partial<HookRun>): HookRun => ({
  exitCode: 0,
  stdout: '',
  stdoutBytes: 0,
  stderr: '',
  timedOut: false,
  timeoutSeconds: 60,
  startError: null,
  ...over,
});
const L = 'hooks.PreToolUse[0].hooks[0]';

describe('reading a hook answer as Claude Code does', () => {
  it('exit code 2 blocks with stderr as the reason; other codes are a warning that decides nothing', () => {
    expect(readHookAnswer('PreToolUse', L, run({ exitCode: 2, stderr: 'no rm\n' }))).toEqual({
      decision: 'deny',
      reason: 'no rm',
    });
    expect(readHookAnswer('PostToolUse', L, run({ exitCode: 2, stderr: 'look again' })).decision).toBe(
      'block',
    );
    const failed = readHookAnswer('PreToolUse', L, run({ exitCode: 1, stderr: 'boom\nmore' }));
    expect(failed).toEqual({
      decision: null,
      warning: `${L} failed (exit code 1): boom; the call went on without it`,
    });
  });

  it('reads hookSpecificOutput, the older decision/reason, and MassGen’s updated_input and inject', () => {
    const specific = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason: 'check',
        updatedInput: { command: 'ls' },
        additionalContext: 'ctx',
      },
    });
    expect(readHookAnswer('PreToolUse', L, run({ stdout: specific, stdoutBytes: specific.length }))).toEqual({
      decision: 'ask',
      reason: 'check',
      updatedInput: { command: 'ls' },
      additionalContext: 'ctx',
    });
    const old = JSON.stringify({ decision: 'approve', reason: 'fine' });
    expect(readHookAnswer('PreToolUse', L, run({ stdout: old })).decision).toBe('allow');
    const massgen = JSON.stringify({
      decision: 'deny',
      updated_input: { a: 1 },
      inject: { content: 'note' },
    });
    expect(readHookAnswer('PostToolUse', L, run({ stdout: massgen }))).toMatchObject({
      decision: 'deny',
      updatedInput: { a: 1 },
      additionalContext: 'note',
    });
  });

  it('refuses an answer over the size bound, malformed JSON and a non-object input, each with a warning', () => {
    expect(
      readHookAnswer('PreToolUse', L, run({ stdout: '', stdoutBytes: MAX_HOOK_STDOUT_BYTES + 1 })).warning,
    ).toMatch(/printed 65537 bytes; an answer may be at most 65536: ignored/);
    expect(readHookAnswer('PreToolUse', L, run({ stdout: '{"decision": ' })).warning).toMatch(
      /printed malformed JSON/,
    );
    const arrayInput = JSON.stringify({ hookSpecificOutput: { updatedInput: ['rm', '-rf'] } });
    expect(readHookAnswer('PreToolUse', L, run({ stdout: arrayInput })).warning).toMatch(/not an object/);
    // Plain text is context for a prompt only.
    expect(readHookAnswer('UserPromptSubmit', L, run({ stdout: 'today is Monday' })).additionalContext).toBe(
      'today is Monday',
    );
    expect(readHookAnswer('PreToolUse', L, run({ stdout: 'today is Monday' }))).toEqual({ decision: null });
  });

  it('a reason is cut to a bound with a note, so a hook cannot flood the model', () => {
    const body = JSON.stringify({ decision: 'block', reason: 'x'.repeat(50_000) });
    const answer = readHookAnswer('PreToolUse', L, run({ stdout: body, stdoutBytes: body.length }));
    expect(answer.reason!.length).toBeLessThan(8_100);
    expect(answer.reason).toMatch(/\[cut: 42000 more characters\]$/);
  });
});

describe('matching and combining', () => {
  it('matchers are whole-name regular expressions; Claude Code names match massgen tools', () => {
    const set = hookSetOf(
      {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: 'a' }] },
          { matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'b' }] },
          { matcher: 'read', hooks: [{ type: 'command', command: 'c' }] },
          { hooks: [{ type: 'command', command: 'd' }] },
        ],
      },
      'hooks',
    );
    const names = (tool: string) => set.PreToolUse.filter((e) => matches(e, tool)).map((e) => e.hook.command);
    expect(names('execute_command')).toEqual(['a', 'd']);
    expect(names('edit_file')).toEqual(['b', 'd']);
    expect(names('read_file')).toEqual(['d']);
    expect(set.PreToolUse[1]!.label).toBe('hooks.PreToolUse[1].hooks[0]');
    expect(() =>
      hookSetOf({ PreToolUse: [{ matcher: '(', hooks: [{ type: 'command', command: 'x' }] }] }, 'hooks'),
    ).toThrow(/hooks\.PreToolUse\[0\]\.matcher: "\(" is not a regular expression/);
  });

  it('deny beats ask beats allow; a denied call keeps no rewritten input', () => {
    const a = (label: string, over: Partial<LabelledAnswer>): LabelledAnswer => ({
      label,
      decision: null,
      ...over,
    });
    expect(combinePre([a('x', { decision: 'allow' }), a('y', { decision: 'ask' })])).toMatchObject({
      decision: 'ask',
      hook: 'y',
    });
    const denied = combinePre([
      a('x', { updatedInput: { command: 'ls' } }),
      a('y', { decision: 'deny', reason: 'no' }),
      a('z', { warning: 'z failed' }),
    ]);
    expect(denied).toEqual({ decision: 'deny', reason: 'no', hook: 'y', warnings: ['z failed'] });
    expect(
      combinePre([a('x', { updatedInput: { n: 1 } }), a('y', { updatedInput: { n: 2 } })]),
    ).toMatchObject({
      decision: null,
      hook: 'y',
      updatedInput: { n: 2 },
    });
  });
});
