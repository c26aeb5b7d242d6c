import type { ConfigProblem } from './diagnostics.js';
import { isRecord } from '../util/guards.js';

/** MassGen's display types, by the view they are here (`ui.display_type`). */
const DISPLAY_TYPES: Readonly<Record<string, string>> = {
  rich_terminal: 'rich_terminal',
  // MassGen's full-screen Textual UI: the live view is this terminal's counterpart.
  textual_terminal: 'rich_terminal',
  terminal: 'rich_terminal',
  simple: 'simple',
  silent: 'silent',
};

/** `display.<key>` → the `ui` key it becomes. */
const UI_KEYS: Readonly<Record<string, string>> = {
  type: 'display_type',
  logging_enabled: 'logging_enabled',
};

/**
 * MassGen's top-level `display: {type, logging_enabled}`, applied by the compat pass before the table
 * (`massgen-compat-table.ts` has its documentation row): the same settings as `ui:` here, so they move
 * there — `type` to `ui.display_type` (the live view, the plain view or only the answer),
 * `logging_enabled` as it is. What `ui:` sets itself stays; any other key is named in a note.
 */
export function displayToUi(root: Record<string, unknown>, notes: ConfigProblem[]): void {
  if (root.display === undefined) return;
  // A bare string can only be the type.
  const display = typeof root.display === 'string' ? { type: root.display } : root.display;
  delete root.display;
  if (!isRecord(display)) {
    notes.push({
      path: ['display'],
      at: 'key',
      message: 'display (MassGen): expected {type, logging_enabled}, left out',
    });
    return;
  }
  root.ui ??= {};
  // A ui that is not an object is the schema's to report.
  if (!isRecord(root.ui)) return;
  const ui = root.ui;
  for (const [key, value] of Object.entries(display)) {
    const path = ['display', key];
    const target = UI_KEYS[key];
    if (target === undefined) {
      notes.push({ path, at: 'key', message: `display.${key} (MassGen): not supported here, left out` });
      continue;
    }
    if (ui[target] !== undefined) {
      notes.push({ path, at: 'key', message: `display.${key} (MassGen): ignored, ui.${target} is set too` });
      continue;
    }
    // An unknown type stays as written, for the schema to list the allowed ones.
    ui[target] = key === 'type' && typeof value === 'string' ? (DISPLAY_TYPES[value] ?? value) : value;
  }
}
