import { describe, expect, it } from 'vitest';
import { formatDiagnostics } from './diagnostics.js';
import { readMassGenFormat } from './massgen-compat.js';
import { MASSGEN_KEYS } from './massgen-compat-table.js';
import { checkConfig, configNotes, parseConfig } from './parse-config.js';

const backend = (extra: Record<string, unknown>) => ({
  agents: [{ id: 'a', backend: { type: 'openai', model: 'gpt-4o', ...extra } }],
});

describe("MassGen's config format", () => {
  it('reads mcp_servers written as a list, and ${cwd} in their arguments', () => {
    const config = parseConfig(
      backend({
        mcp_servers: [
          {
            name: 'weather',
            type: 'stdio',
            command: 'npx',
            args: ['-y', 'weather-mcp', '--root', '${cwd}/data'],
          },
          {
            name: 'remote',
            type: 'streamable-http',
            url: 'http://localhost:8000/mcp',
            security: { level: 'high' },
          },
        ],
      }),
      { env: {}, cwd: '/home/me/project' },
    );
    const servers = config.agents[0]?.backend.mcp_servers ?? {};
    expect(Object.keys(servers)).toEqual(['weather', 'remote']);
    expect(servers.weather?.args).toEqual(['-y', 'weather-mcp', '--root', '/home/me/project/data']);
    expect(servers.remote?.url).toBe('http://localhost:8000/mcp');
    expect(configNotes(config).map((n) => n.message)).toEqual([
      'agents[0].backend.mcp_servers[1].security (MassGen): MCP security levels are not configurable: stdio servers run in the OS sandbox of agents with a workspace',
    ]);
  });

  it('splits a custom tool entry with list-valued name, function and description into one tool each', () => {
    const { value, notes } = readMassGenFormat(
      backend({
        custom_tools: [
          {
            name: ['add', 'mul'],
            function: ['add_fn', 'mul_fn'],
            description: ['Adds.', 'Multiplies.'],
            category: 'math',
            path: 'tools/math.py',
          },
          { name: 'web_search', function: 'web_search' },
        ],
      }),
    );
    expect(
      (value as { agents: { backend: { custom_tools: unknown } }[] }).agents[0]?.backend.custom_tools,
    ).toEqual([
      { name: 'add', function: 'add_fn', description: 'Adds.', path: 'tools/math.py' },
      { name: 'mul', function: 'mul_fn', description: 'Multiplies.', path: 'tools/math.py' },
    ]);
    expect(notes.map((n) => n.message)).toEqual([
      'agents[0].backend.custom_tools[1] (MassGen): "web_search" is a tool of MassGen\'s built-in library, which massgen does not ship: left out',
    ]);
  });

  it('keeps preset_args and default_params, one preset_args object per function when given as a list', () => {
    const result = checkConfig(
      backend({
        custom_tools: [
          {
            name: ['add', 'mul'],
            function: ['add_fn', 'mul_fn'],
            path: 'tools/math.py',
            preset_args: [{ y: 1 }, { y: 2 }],
          },
          {
            name: ['browse'],
            function: ['browse'],
            path: 'tools/browse.py',
            preset_args: { headless: true },
            default_params: { width: 1024 },
          },
        ],
      }),
      { env: {} },
    );
    expect(result.diagnostics).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.config?.agents[0]?.backend.custom_tools).toEqual([
      { name: 'add', function: 'add_fn', path: 'tools/math.py', preset_args: { y: 1 } },
      { name: 'mul', function: 'mul_fn', path: 'tools/math.py', preset_args: { y: 2 } },
      {
        name: 'browse',
        function: 'browse',
        path: 'tools/browse.py',
        preset_args: { headless: true },
        default_params: { width: 1024 },
      },
    ]);
  });

  it("reads MassGen's display: as ui: (type → display_type, logging_enabled), ui's own keys first", () => {
    const display = (value: unknown, ui?: Record<string, unknown>) =>
      checkConfig({ ...backend({}), display: value, ...(ui ? { ui } : {}) }, { env: {} });
    const simple = display({ type: 'simple', logging_enabled: false });
    expect(simple.diagnostics).toEqual([]);
    expect(simple.warnings).toEqual([]);
    expect(simple.config?.ui).toEqual({ display_type: 'simple', logging_enabled: false });
    expect(display({ type: 'textual_terminal' }).config?.ui.display_type).toBe('rich_terminal');
    expect(display('silent').config?.ui.display_type).toBe('silent');
    const both = display({ type: 'silent', theme: 'dark' }, { display_type: 'simple' });
    expect(both.config?.ui.display_type).toBe('simple');
    expect(both.warnings.map((w) => w.message)).toEqual([
      'display.type (MassGen): ignored, ui.display_type is set too',
      'display.theme (MassGen): not supported here, left out',
    ]);
    expect(display({ type: 'fancy' }).diagnostics[0]?.message).toMatch(/ui\.display_type: invalid value/);
    expect(display(3).warnings[0]?.message).toBe(
      'display (MassGen): expected {type, logging_enabled}, left out',
    );
  });

  it("renames MassGen keys to massgen's, converting values, and says which MassGen keys do nothing here", () => {
    const result = checkConfig(
      {
        agent: {
          backend: {
            type: 'openai',
            model: 'gpt-4o',
            cwd: 'ws',
            enable_mcp_command_line: true,
            command_line_execution_mode: 'docker',
            command_line_docker_image: 'python:3.12',
            command_line_docker_network_mode: 'bridge',
            command_line_docker_cpu_limit: '1.5',
            command_line_allowed_commands: ['ls'],
          },
        },
        orchestrator: { snapshot_storage: 'snapshots', coordination: { use_skills: true } },
        ui: { type: 'simple' },
      },
      { env: {} },
    );
    expect(result.diagnostics).toEqual([]);
    const b = result.config?.agents[0]?.backend;
    expect(b?.enable_code_execution).toBe(true);
    expect(b?.execution_mode).toBe('docker');
    expect(b?.docker).toMatchObject({ image: 'python:3.12', network: true, cpus: 1.5 });
    expect(result.config?.ui.display_type).toBe('simple');
    // use_skills: true without skills_directory: MassGen's default folder.
    expect(result.config?.skills).toEqual({
      paths: ['.agent/skills'],
      evolve: false,
      prompt_budget_chars: 4000,
    });
    expect(formatDiagnostics(result.warnings)).toBe(
      [
        'orchestrator.snapshot_storage (MassGen): answer snapshots are kept automatically in .massgen/snapshots',
        'agent.backend.command_line_allowed_commands (MassGen): became allow and deny rules in agent.permissions (command_regex)',
      ].join('\n'),
    );
  });

  it("honours MassGen's skills keys: use_skills, skills_directory, load_previous_session_skills", () => {
    const skills = (coordination: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      checkConfig({ ...backend({}), ...extra, orchestrator: { coordination } }, { env: {} });
    const on = skills({
      use_skills: true,
      skills_directory: 'my/skills',
      load_previous_session_skills: true,
    });
    expect(on.diagnostics).toEqual([]);
    expect(on.warnings).toEqual([]);
    expect(on.config?.skills).toEqual({ paths: ['my/skills'], evolve: true, prompt_budget_chars: 4000 });
    const off = skills({ skills_directory: 'my/skills' });
    expect(off.config?.skills).toBeUndefined();
    expect(off.warnings[0]?.message).toBe(
      'orchestrator.coordination.skills_directory (MassGen): ignored, use_skills is not true',
    );
    const both = skills({ use_skills: true }, { skills: ['./mine'] });
    expect(both.config?.skills?.paths).toEqual(['./mine']);
    expect(both.warnings[0]?.message).toMatch(/use_skills \(MassGen\): ignored, skills is set too/);
  });

  it('runs MassGen\'s "local" command mode in the sandbox, and says so', () => {
    const { config, warnings } = checkConfig(
      backend({ cwd: 'ws', enable_mcp_command_line: true, command_line_execution_mode: 'local' }),
      { env: {} },
    );
    expect(config?.agents[0]?.backend.execution_mode).toBeUndefined();
    expect(warnings[0]?.message).toMatch(/"local" mode runs commands here in the OS sandbox/);
  });

  it("turns MassGen's DSPy paraphrasing on as paraphrase, and leaves it off when disabled", () => {
    const dspy = (value: unknown, extra: Record<string, unknown> = {}) =>
      checkConfig({ ...backend({}), orchestrator: { dspy: value, ...extra } }, { env: {} });
    const on = dspy({ enabled: true, backend: { type: 'gemini' }, num_variants: 3 });
    expect(on.diagnostics).toEqual([]);
    expect(on.config?.orchestrator.paraphrase).toBe(true);
    expect(on.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/^orchestrator\.dspy \(MassGen\): becomes paraphrase: true/),
    ]);
    const off = dspy({ enabled: false });
    expect(off.config?.orchestrator.paraphrase).toBe(false);
    expect(off.warnings).toEqual([]);
    const mine = dspy({ enabled: true }, { paraphrase: false });
    expect(mine.config?.orchestrator.paraphrase).toBe(false);
    expect(mine.warnings.at(-1)?.message).toMatch(/ignored, paraphrase is set too/);
  });

  it("keeps typos errors with suggestions, and massgen's own key when both are given", () => {
    const typo = checkConfig(backend({ enable_mcp_comand_line: true }), { env: {} });
    expect(typo.diagnostics[0]?.message).toMatch(/unknown key "enable_mcp_comand_line"/);
    const both = checkConfig(backend({ execution_mode: 'local', command_line_execution_mode: 'docker' }), {
      env: {},
    });
    expect(both.config?.agents[0]?.backend.execution_mode).toBe('local');
    expect(both.warnings[0]?.message).toMatch(
      /command_line_execution_mode \(MassGen\): ignored, execution_mode is set too/,
    );
  });

  it("leaves a config in massgen's own format untouched, without notes", () => {
    const own = backend({ mcp_servers: { fs: { command: 'npx', args: ['x'] } } });
    const { value, notes } = readMassGenFormat(own);
    expect(value).toEqual(own);
    expect(notes).toEqual([]);
  });

  it('every table row names a MassGen key under a known parent', () => {
    for (const key of Object.keys(MASSGEN_KEYS))
      expect(key).toMatch(/^(agent|backend|orchestrator|ui|display|memory)(\.|$)/);
  });
});
