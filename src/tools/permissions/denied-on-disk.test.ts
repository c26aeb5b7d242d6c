import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deniedOnDisk } from './denied-on-disk.js';
import type { AgentRules, PermissionRule, RuleList } from './rules.js';

let root = '';
let ws = '';
let ctx = '';
let outside = '';
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'massgen-denied-')));
  ws = path.join(root, 'ws');
  ctx = path.join(root, 'ctx');
  outside = path.join(root, 'outside');
  for (const file of [
    'ctx/secrets/key.txt',
    'ctx/secrets/deep/more.txt',
    'ctx/.env',
    'ctx/app/.env',
    'ctx/app/deep/.env',
    'ctx/cert.pem',
    'ctx/sub/deep.pem',
    'ctx/readme.md',
    'ws/.env',
    'outside/target.txt',
  ]) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), 'x\n');
  }
  symlinkSync(path.join(outside, 'target.txt'), path.join(ctx, 'linked.pem'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const agent = (...rules: PermissionRule[]): AgentRules => ({
  lists: [{ scope: 'team', label: 'permissions', rules } satisfies RuleList],
  context: { cwd: ws, roots: [ctx] },
});
const deny = (...patterns: string[]): PermissionRule => ({ action: 'deny', tool: '*', path: patterns });
const at = (...parts: string[]) => path.join(root, ...parts);
const found = (rules: AgentRules) => deniedOnDisk(rules, [ws, ctx]).sort();

describe('deniedOnDisk', () => {
  it('finds what the patterns name under the workspace and each context path, folders whole', () => {
    expect(found(agent(deny('.env', 'secrets/**')))).toEqual(
      [at('ctx/.env'), at('ctx/secrets'), at('ws/.env')].sort(),
    );
  });

  it('looks as deep as the pattern reaches: * one folder, ** every one', () => {
    expect(found(agent(deny('*.pem')))).toEqual([at('ctx/cert.pem'), at('outside/target.txt')].sort());
    expect(found(agent(deny('**/.env')))).toEqual(
      [at('ctx/.env'), at('ctx/app/.env'), at('ctx/app/deep/.env'), at('ws/.env')].sort(),
    );
  });

  it('masks where a matching link leads, and takes absolute patterns as they are', () => {
    expect(found(agent(deny('linked.pem')))).toEqual([at('outside/target.txt')]);
    expect(found(agent(deny(`${ctx}/app/**`)))).toEqual([at('ctx/app')]);
  });

  it('keeps the exceptions an earlier allow makes, and ignores rules a read cannot meet', () => {
    const withException: AgentRules = {
      lists: [
        {
          scope: 'agent',
          label: 'agents[0].permissions',
          rules: [{ action: 'allow', tool: 'read_file', path: ['ws/**', '.env'] }],
        },
        { scope: 'team', label: 'permissions', rules: [deny('.env', 'secrets/**')] },
      ],
      context: { cwd: ws, roots: [ctx] },
    };
    expect(deniedOnDisk(withException, [ws, ctx]).sort()).toEqual([at('ctx/secrets')]);
    expect(found(agent({ action: 'deny', tool: 'write_file', path: ['secrets/**'] }))).toEqual([]);
    expect(found(agent({ action: 'deny', tool: '*', path: ['secrets/**'], command: ['cat *'] }))).toEqual([]);
    expect(found(agent(deny('missing/**', 'nothing.txt')))).toEqual([]);
  });
});
