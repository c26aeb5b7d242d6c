import { describe, expect, it } from 'vitest';
import { ConfigError, exitCodeForError } from '../types/errors.js';
import { ConfigValidationError, formatDiagnostic, formatDiagnostics } from './diagnostics.js';

describe('formatDiagnostic', () => {
  const diagnostic = { path: 'a.b', message: 'unknown key "b" at a', hint: 'did you mean "c"?' };

  it('joins message and hint on one line', () => {
    expect(formatDiagnostic(diagnostic)).toBe('unknown key "b" at a — did you mean "c"?');
  });

  it('prefixes the file, with line and column when known', () => {
    expect(formatDiagnostic(diagnostic, 'config.yaml')).toBe(
      'config.yaml: unknown key "b" at a — did you mean "c"?',
    );
    expect(formatDiagnostic({ ...diagnostic, line: 3, column: 5 }, 'config.yaml')).toBe(
      'config.yaml:3:5: unknown key "b" at a — did you mean "c"?',
    );
    expect(formatDiagnostic({ path: '', message: 'bad', line: 3, column: 5 })).toBe('line 3, column 5: bad');
  });

  it('formats a list one line per problem', () => {
    expect(
      formatDiagnostics(
        [
          { path: '', message: 'one' },
          { path: '', message: 'two' },
        ],
        'f.yaml',
      ),
    ).toBe('f.yaml: one\nf.yaml: two');
  });
});

describe('ConfigValidationError', () => {
  it('is a ConfigError whose message describes the first problem and counts the rest', () => {
    const error = new ConfigValidationError(
      [
        { path: 'x', message: 'x: first', line: 1, column: 2 },
        { path: 'y', message: 'y: second' },
        { path: 'z', message: 'z: third' },
      ],
      { source: 'c.yaml' },
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe('c.yaml:1:2: x: first (and 2 more problems)');
    expect(error.path).toBe('x');
    expect(error.diagnostics).toHaveLength(3);
    expect(exitCodeForError(error)).toBe(1);
  });
});
