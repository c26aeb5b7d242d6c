import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../filesystem/filesystem.test-support.js';
import { realPathOf } from './check-path.js';
import { createRulePolicy } from './rule-policy.js';
import type { AgentRules } from './rules.js';

let box: Sandbox;
beforeEach(async () => {
  box = await makeSandbox();
});
afterEach(async () => {
  await box.cleanup();
});

describe('createRulePolicy with real paths', () => {
  const rules = (): AgentRules => ({
    lists: [
      {
        scope: 'team',
        label: 'permissions',
        rules: [
          { action: 'allow', tool: 'read_file', path: ['*.txt'] },
          { action: 'deny', tool: '*', path: ['data.csv'], reason: 'no data' },
        ],
      },
    ],
    context: { cwd: box.workspace, roots: [box.contextRead] },
  });
  const ask = (policy: ReturnType<typeof createRulePolicy>, given: string) =>
    policy.evaluate({
      agentId: 'a',
      phase: 'coordination',
      toolName: 'read_file',
      arguments: { path: given },
    });

  it('denies a link by where it leads, and an allow does not vouch for a link whose target it does not name', async () => {
    await symlink(path.join(box.contextRead, 'data.csv'), path.join(box.workspace, 'harmless.txt'));
    await symlink(box.contextRead, path.join(box.workspace, 'ctx'));
    await symlink(path.join(box.contextRead, 'data.csv'), path.join(box.workspace, 'other'));
    const policy = createRulePolicy(new Map([['a', rules()]]), 'allow', realPathOf);
    for (const given of ['harmless.txt', 'ctx/data.csv', 'ctx/../ws1/other']) {
      expect(await ask(policy, given)).toMatchObject({ decision: 'deny', rule: { label: 'permissions[1]' } });
    }
    expect(await ask(policy, 'notes.txt')).toMatchObject({ decision: 'allow' });
    // Without the disk the names alone decide: the allow on *.txt would let the link through.
    const names = createRulePolicy(new Map([['a', rules()]]), 'allow');
    expect(await ask(names, 'harmless.txt')).toMatchObject({ decision: 'allow' });
  });
});
