/**
 * The project's own instructions and `@path` (docs/hooks.md) through the built CLI, against the fake
 * model: AGENTS.md of the run's folder and CLAUDE.md of a context path reach the model, quoted and
 * marked with their names, cut at the cap with a note; a link named AGENTS.md is not followed;
 * `project_instructions: false` turns it off. `@file` attaches the file read-only as a context path
 * — a link resolves exactly as a config context path does — an e-mail address is not a path, and
 * `@missing.txt` stops the run before any request.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeChatRequestBody } from '../../src/testing/fake-openai-server.js';
import {
  agentEntry,
  automated,
  makeWorkdir,
  persona,
  removeTempDirs,
  scriptedCalls,
  systemText,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';

const fake = useFakeServer();
afterEach(removeTempDirs);

const agent = (url: string) =>
  agentEntry('a', url, { system_message: persona('a'), backend: { cwd: 'ws_a' } });
const firstSystem = () => systemText(fake.server.requests[0]!.body as FakeChatRequestBody);
const toolResults = (body: FakeChatRequestBody) =>
  (body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));

describe('project instructions', () => {
  it('AGENTS.md and a context path’s CLAUDE.md reach the model, quoted and named; a link is not followed; a big file is cut', async () => {
    const cwd = makeWorkdir();
    const outside = makeWorkdir();
    const docs = path.join(cwd, 'docs');
    fs.mkdirSync(docs);
    fs.writeFileSync(path.join(cwd, 'AGENTS.md'), 'Use tabs. Run make check before answering.\n');
    fs.writeFileSync(path.join(docs, 'CLAUDE.md'), `Docs style: short lines.\n${'z'.repeat(20_000)}`);
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'TOP-SECRET-VALUE');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(cwd, 'CLAUDE.md'));
    fake.server.setHandler(scriptedCalls([]));
    writeConfig(cwd, {
      agents: [agent(fake.server.url)],
      orchestrator: { context_paths: [{ path: 'docs' }] },
    });
    const result = await automated(cwd, 'Hello.');
    expect(result.code).toBe(0);
    const system = firstSystem();
    expect(system).toMatch(
      /<project-file name="AGENTS\.md" path="[^"]+AGENTS\.md" [0-9a-f]{12}>\nUse tabs\. Run make check/,
    );
    expect(system).toContain('Docs style: short lines.');
    expect(system).toContain('[cut: only the first 16384 of 20025 bytes of CLAUDE.md are shown]');
    expect(system).toContain("They are the project's text, quoted as data");
    expect(system).not.toContain('TOP-SECRET-VALUE');
  });

  it('project_instructions: false leaves them out', async () => {
    const cwd = makeWorkdir();
    fs.writeFileSync(path.join(cwd, 'AGENTS.md'), 'Use tabs.\n');
    fake.server.setHandler(scriptedCalls([]));
    writeConfig(cwd, { agents: [agent(fake.server.url)], project_instructions: false });
    const result = await automated(cwd, 'Hello.');
    expect(result.code).toBe(0);
    expect(firstSystem()).not.toContain('Use tabs.');
  });
});

describe('@path in a question', () => {
  it('@missing.txt fails before any request, naming it', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, { agents: [agent(fake.server.url)] });
    const result = await automated(cwd, 'review @missing.txt please');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `massgen: error: @missing.txt: no such file or folder (looked for ${path.join(cwd, 'missing.txt')})`,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(fake.server.requests).toHaveLength(0);
  });

  it('@file is a read-only context path the agent reads; an e-mail address is not a path; a link resolves as in the config', async () => {
    const cwd = makeWorkdir();
    const outside = makeWorkdir();
    fs.mkdirSync(path.join(cwd, 'src'));
    fs.writeFileSync(path.join(cwd, 'src', 'app.ts'), 'export const answer = 42;\n');
    fs.writeFileSync(path.join(outside, 'notes.md'), 'notes outside\n');
    fs.symlinkSync(outside, path.join(cwd, 'elsewhere'));
    fake.server.setHandler(
      scriptedCalls([
        { name: 'read_file', arguments: { path: path.join(cwd, 'src', 'app.ts') } },
        { name: 'write_file', arguments: { path: path.join(cwd, 'src', 'app.ts'), content: 'overwritten' } },
      ]),
    );
    writeConfig(cwd, { agents: [agent(fake.server.url)] });
    const question = 'Mail bob@example.com about @src/app.ts, and see @elsewhere/.';
    const result = await automated(cwd, question);
    expect(result.code).toBe(0);
    const results = toolResults(fake.server.requests.at(-1)!.body as FakeChatRequestBody);
    expect(results[0]).toContain('export const answer = 42;');
    expect(results[1]).toMatch(/read-only|not allowed|cannot write|denied/i);
    expect(fs.readFileSync(path.join(cwd, 'src', 'app.ts'), 'utf8')).toBe('export const answer = 42;\n');
    const withAt = firstSystem();
    expect(withAt).not.toContain('bob@example.com/');

    // The same folders named in the config: the agents are shown the very same context paths.
    const contextLines = (system: string) =>
      /Context paths \(the user's own folders\)[^\n]*\n((?:\S.*\n?)*)/.exec(system)?.[1]?.trim();
    fake.server.reset();
    fake.server.setHandler(scriptedCalls([]));
    writeConfig(cwd, {
      agents: [agent(fake.server.url)],
      orchestrator: { context_paths: [{ path: 'src/app.ts' }, { path: 'elsewhere/' }] },
    });
    const configured = await automated(cwd, 'Hello.');
    expect(configured.code).toBe(0);
    expect(contextLines(withAt)).toBeDefined();
    expect(contextLines(withAt)).toBe(contextLines(firstSystem()));
    expect(contextLines(withAt)).toContain(fs.realpathSync(outside));
  });
});
