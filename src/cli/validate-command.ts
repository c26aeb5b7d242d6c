import path from 'node:path';
import type { ConfigDiagnostic, ValidationReport } from '../app/essentials.js';
import { formatDiagnostics } from '../app/essentials.js';
import type { Write } from '../app/plain-display.js';
import { inertJson, inertWriter } from '../util/terminal-text.js';

/**
 * The problems under a heading that names the file once: each on its own indented line, led by the line
 * and column it is about (`  3:7: unknown key "modle" …`).
 */
function listed(diagnostics: readonly ConfigDiagnostic[]): string {
  return diagnostics
    .map(({ line, column, ...rest }) => {
      const at = line === undefined ? '' : `${line}:${column ?? 1}: `;
      return `  ${at}${formatDiagnostics([rest])}`;
    })
    .join('\n');
}

/**
 * Prints a `--validate` report as text (inert: it quotes the file) or JSON (`inertJson`: what a terminal
 * would act on is spelled `\uXXXX`, and it parses to the same data). The text
 * names the file once, relative to `cwd` when it lies beneath it.
 */
export function printValidationReport(
  rawWrite: Write,
  report: ValidationReport,
  json: boolean,
  options: { cwd?: string } = {},
): void {
  if (json) {
    rawWrite(`${inertJson(report, 2)}\n`);
    return;
  }
  const write = inertWriter(rawWrite);
  const relative = options.cwd === undefined ? '' : path.relative(options.cwd, report.file);
  const file =
    relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)
      ? report.file
      : relative;
  const warned = report.warnings.length === 0 ? '' : `, ${report.warnings.length} warning(s) below`;
  if (report.valid) {
    write(`✔ ${file} is valid: ${report.agents.length} agent(s)${warned}\n`);
    for (const a of report.agents) write(`  - ${a.id}: ${a.backend} / ${a.model}\n`);
  } else {
    write(`✖ ${file} has ${report.errors.length} problem(s):\n${listed(report.errors)}\n`);
  }
  if (report.warnings.length > 0) write(`warnings in ${file}:\n${listed(report.warnings)}\n`);
  if (report.sandbox !== null) write(`sandbox for execute_command: ${report.sandbox}\n`);
}
