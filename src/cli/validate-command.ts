import type { ValidationReport } from '../app/essentials.js';
import { formatDiagnostics } from '../app/essentials.js';
import type { Write } from '../app/plain-display.js';

/** Prints a `--validate` report as text or JSON. */
export function printValidationReport(write: Write, report: ValidationReport, json: boolean): void {
  if (json) {
    write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  if (report.valid) {
    write(`✔ ${report.file} is valid: ${report.agents.length} agent(s)\n`);
    for (const a of report.agents) write(`  - ${a.id}: ${a.backend} / ${a.model}\n`);
  } else {
    write(
      `✖ ${report.file} has ${report.errors.length} problem(s):\n${formatDiagnostics(report.errors, report.file)}\n`,
    );
  }
  if (report.warnings.length > 0) write(`warnings:\n${formatDiagnostics(report.warnings, report.file)}\n`);
  if (report.sandbox !== null) write(`sandbox for execute_command: ${report.sandbox}\n`);
}
