import { existsSync } from 'node:fs';
import type { CapabilityParts, CapabilityProblems, ConfigPlace, RunContext } from '../capability/index.js';
import type { AgentConfig, ConfigDiagnostic, MassGenConfig } from '../config/index.js';
import { resolveConfigPath } from '../config/config-relative.js';
import { fixedArguments } from '../tools/custom/fixed-arguments.js';
import type { Tool } from '../tools/define-tool.js';
import { commandExists } from '../util/find-executable.js';
import { isPythonToolPath } from './capability.js';
import { pythonMissing } from './python-checks.js';
import { PythonHost } from './python-host.js';
import { loadPythonTools, type PythonToolEntry } from './python-tools.js';

/** An agent's Python `custom_tools` entries, paths resolved as the app resolved them (its notes said). */
function pythonEntries(
  agent: AgentConfig,
  index: number,
  place: { baseDir: string; projectDir: string; projectTrusted?: boolean },
): PythonToolEntry[] {
  return agent.backend.custom_tools.flatMap((entry, toolIndex) => {
    const where = `agents[${index}].backend.custom_tools[${toolIndex}]`;
    const file = resolveConfigPath(entry.path, `${where}.path`, place);
    if (!isPythonToolPath(file)) return [];
    return [
      {
        where,
        name: entry.name,
        path: file,
        function: entry.function,
        ...(entry.description === undefined ? {} : { description: entry.description }),
        ...(entry.parameters === undefined ? {} : { parameters: entry.parameters }),
        ...(entry.read_only === undefined ? {} : { readOnly: entry.read_only }),
        fixed: fixedArguments(entry),
      },
    ];
  });
}

/** Starts the run's Python host and loads every agent's Python tools (a broken module is a config error). */
export async function prepare(run: RunContext): Promise<CapabilityParts> {
  const { config } = run;
  let host: PythonHost | null = null;
  const hostOf = () =>
    (host ??= new PythonHost({
      ...(config.python ? { python: config.python } : {}),
      cwd: run.cwd,
      env: run.env,
    }));
  const tools: Record<string, Tool[]> = {};
  try {
    for (const [index, agent] of config.agents.entries()) {
      const place = { baseDir: run.baseDir, projectDir: run.cwd, projectTrusted: run.projectTrusted };
      const entries = pythonEntries(agent, index, place);
      if (entries.length > 0) tools[agent.id] = await loadPythonTools(entries, hostOf());
    }
  } catch (error) {
    await (host as PythonHost | null)?.close();
    throw error;
  }
  return {
    tools,
    close: async () => {
      await (host as PythonHost | null)?.close();
    },
  };
}

/** `--validate`: a Python tool whose module is there needs the interpreter (a warning: PATH differs). */
export function problems(config: MassGenConfig, place: ConfigPlace): CapabilityProblems {
  const python = config.python ?? 'python3';
  if (commandExists(python, place.env.PATH, place.baseDir)) return {};
  const warnings: ConfigDiagnostic[] = config.agents.flatMap((agent, index) =>
    pythonEntries(agent, index, place)
      .filter((entry) => existsSync(entry.path))
      .map((entry) =>
        pythonMissing(
          config,
          `${entry.where}.path`,
          (name) => `a Python custom tool needs ${name}, which was not found`,
        ),
      ),
  );
  return { warnings };
}
