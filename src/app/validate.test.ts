import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from './validate.js';

const hasPython = spawnSync('python3', ['--version']).status === 0;
const AG2_DOUBLE = fileURLToPath(new URL('../../test/fixtures/ag2-double', import.meta.url));

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(text: string): string {
  dir = mkdtempSync(path.join(tmpdir(), 'massgen-validate-'));
  writeFileSync(path.join(dir, 'team.yaml'), text);
  return 'team.yaml';
}

describe('validateConfig', () => {
  it('reports an unset ${VAR} as a warning and still checks the rest of the file', async () => {
    const file = write(`agents:
  - id: a
    backend:
      type: chatcompletion
      model: m
      api_key: \${GROQ_API_KEY}
  - id: b
    backend: { type: chatcompletion, model: m, temperature: hot }
`);
    const report = await validateConfig(file, { cwd: dir, env: { OPENAI_API_KEY: 'sk-x' } });
    expect(report.warnings.map((w) => w.message)).toEqual([
      'agents[0].backend.api_key: environment variable GROQ_API_KEY is not set',
    ]);
    expect(report.errors.map((e) => e.message)).toEqual([
      'agents[1].backend.temperature: expected a number, got a string',
    ]);
    expect(report.valid).toBe(false);
  });

  it('a file whose only problem is an unset variable is valid, with the warning', async () => {
    const file = write(
      'agent:\n  backend:\n    type: chatcompletion\n    model: m\n    api_key: ${GROQ_API_KEY}\n',
    );
    const report = await validateConfig(file, { cwd: dir, env: {} });
    expect(report).toMatchObject({
      valid: true,
      errors: [],
      agents: [{ id: 'agent_1', backend: 'chatcompletion' }],
    });
    expect(report.warnings).toHaveLength(1);
  });

  it('an unknown backend type is an error with a suggestion; a missing key a warning', async () => {
    const file = write(
      'agents:\n  - backend: { type: chatcompletio, model: m }\n  - backend: { type: chatcompletion, model: m }\n',
    );
    const report = await validateConfig(file, { cwd: dir, env: {} });
    expect(report.valid).toBe(false);
    expect(report.errors[0]?.message).toBe(
      'agents[0] (agent_1): unknown backend type "chatcompletio" — did you mean "chatcompletion"?',
    );
    expect(report.warnings[0]?.message).toContain('set the OPENAI_API_KEY environment variable');
    expect(report.warnings[0]?.path).toBe('agents[1].backend.api_key');
  });

  it('reports a missing custom tool module as an error and an MCP command not on PATH as a warning', async () => {
    const file = write(`agents:
  - id: a
    backend:
      type: chatcompletion
      model: m
      base_url: http://127.0.0.1:1/v1
      custom_tools:
        - { name: wc, path: tools/missing.ts, function: wordCount, parameters: { type: object } }
      mcp_servers:
        ghost: { command: massgen-no-such-server }
        here: { command: node }
`);
    const report = await validateConfig(file, { cwd: dir, env: { PATH: path.dirname(process.execPath) } });
    expect(report.errors.map((e) => e.message)).toEqual([
      `agents[0].backend.custom_tools[0].path: custom tool module not found: ${path.join(dir, 'tools', 'missing.ts')}`,
    ]);
    expect(report.warnings.map((w) => w.message)).toEqual([
      'agents[0].backend.mcp_servers.ghost.command: "massgen-no-such-server" was not found on PATH; MCP server "ghost" will not start here',
    ]);
    expect(report.valid).toBe(false);
  });
  it('Python agents: a dotted module is not a missing file; an unknown framework is an error; no python3 a warning', async () => {
    const file = write(`agents:
  - id: a
    backend: { type: external, framework: python, module: my_pkg.agent }
  - id: b
    backend: { type: external, framework: smolagent, module: x.y }
`);
    const report = await validateConfig(file, { cwd: dir, env: { PATH: dir } });
    expect(report.errors.map((e) => e.message)).toEqual([
      'agents[1].backend.framework: unknown framework "smolagent" — did you mean "smolagents"?',
    ]);
    expect(report.warnings.map((w) => w.message)).toEqual([
      'agents[0].backend: the python agent runs in Python, and python3 was not found on PATH',
    ]);
  });

  it('every problem at once: a schema error does not hide the capability errors, nor one capability error the next', async () => {
    const file = write(`agents:
  - id: a
    backend:
      type: chatcompletion
      model: m
      base_url: http://127.0.0.1:1/v1
      temperature: hot
      enable_web_search: true
      threads: 2
  - id: b
    backend:
      type: chatcompletion
      model: m
      base_url: http://127.0.0.1:1/v1
      enable_code_interpreter: true
`);
    const report = await validateConfig(file, { cwd: dir, env: {} });
    expect(report.valid).toBe(false);
    expect(report.errors.map((e) => [e.path, e.line, e.column])).toEqual([
      ['agents[0].backend.temperature', 7, 20],
      ['agents[0].backend.enable_web_search', 8, 7],
      ['agents[0].backend.threads', 9, 7],
      ['agents[1].backend.enable_code_interpreter', 15, 7],
    ]);
    expect(report.errors[1]?.message).toBe(
      'agents[0] (a): the chatcompletion backend does not support enable_web_search',
    );
    expect(report.errors[2]?.message).toBe(
      'agents[0] (a): the chatcompletion backend does not accept threads',
    );
  });

  it('a misspelt key is one problem, not also the key it was meant to be', async () => {
    const file = write(
      'agents:\n  - id: a\n    backend:\n      type: chatcompletion\n      modle: m\n      base_url: http://127.0.0.1:1/v1\n',
    );
    const report = await validateConfig(file, { cwd: dir, env: {} });
    expect(report.errors.map((e) => e.message)).toEqual(['unknown key "modle" at agents[0].backend']);
    expect(report.errors[0]?.hint).toBe('did you mean "model"?');
  });

  it('problems only the app finds carry the line and column of their key, in a one-agent file too', async () => {
    const file = write(`agent:
  id: solo
  backend:
    type: claude
    model: m
    thinking: { budget_tokens: 100 }
    api_key: k
`);
    const report = await validateConfig(file, { cwd: dir, env: {} });
    expect(report.errors).toEqual([
      {
        path: 'agents[0].backend.thinking.budget_tokens',
        message:
          "agents[0] (solo): thinking.budget_tokens must be at least 1024 for claude (Anthropic's minimum)",
        line: 6,
        column: 17,
      },
    ]);
  });

  it.skipIf(!hasPython)(
    `an AG2 agent whose Python package is missing: a warning naming the package and the pip command${hasPython ? '' : ' (skipped: python3 is not on PATH)'}`,
    async () => {
      const file = write(`agents:
  - id: coder
    backend:
      type: ag2
      agent_config: { type: assistant, name: coder, llm_config: { api_type: openai, model: m } }
`);
      const missing = await validateConfig(file, { cwd: dir, env: { PATH: process.env.PATH } });
      expect(missing.errors).toEqual([]);
      expect(missing.warnings).toEqual([
        {
          path: 'agents[0].backend',
          message:
            'agents[0].backend: the ag2 agent needs the Python package ag2[openai], which python3 cannot import (no module named "autogen")',
          hint: "pip install 'ag2[openai]' (with the pip of python3), or set python: to an interpreter that has it",
          line: 3,
          column: 5,
        },
      ]);
      // With AG2 importable (the test double on PYTHONPATH) there is nothing to say.
      const installed = await validateConfig(file, {
        cwd: dir,
        env: { PATH: process.env.PATH, PYTHONPATH: AG2_DOUBLE },
      });
      expect(installed.warnings).toEqual([]);
      expect(installed.valid).toBe(true);
    },
  );
});
