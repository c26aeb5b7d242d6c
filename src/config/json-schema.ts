import { z } from 'zod';
import { MassGenConfigSchema } from './schema.js';

/**
 * The config file's JSON Schema, generated from the zod schema (the single source of truth), for
 * editors: `# yaml-language-server: $schema=…` gives autocompletion and checks as you type. It
 * describes massgen's own format; MassGen's extra keys (docs/massgen-compat.md) are read by massgen but
 * not listed here.
 */
export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(MassGenConfigSchema, { io: 'input', unrepresentable: 'any' });
  return {
    ...schema,
    $id: 'https://massgen.dev/schema/config.json',
    title: 'massgen config',
    description:
      'A massgen team: agents: (or one agent:), orchestrator:, timeout_settings:, ui:, pricing:, rate_limits:.',
  };
}
