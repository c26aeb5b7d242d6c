import type { ValidationReport } from '../api.js';

/** Config problems, line for line as `massgen --validate` prints them. */
export function Diagnostics({ report }: { report: ValidationReport }) {
  return (
    <section aria-label="Config problems" className="diagnostics">
      <h2>
        ✖ {report.file} has {report.errors.length} problem(s)
      </h2>
      <pre>{report.errorLines.join('\n')}</pre>
      {report.warningLines.length > 0 && (
        <>
          <h3>warnings</h3>
          <pre>{report.warningLines.join('\n')}</pre>
        </>
      )}
    </section>
  );
}
