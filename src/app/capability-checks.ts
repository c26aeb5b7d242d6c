import type { CapabilityProblems, ConfigPlace } from '../capability/index.js';
import type { ConfigDiagnostic, MassGenConfig } from '../config/index.js';
import { builtInCapabilities } from './capabilities.js';

// `validateConfig` is synchronous and loads with `--validate` (never with a run): the capabilities'
// checks are imported once, with this module.
const loaded = await Promise.all(
  builtInCapabilities.map(async (capability) => ({ capability, check: await capability.checks?.() })),
);

/** What the capabilities a config uses say about it (`--validate`), in list order. */
export function capabilityProblems(
  config: MassGenConfig,
  place: ConfigPlace,
): { errors: ConfigDiagnostic[]; warnings: ConfigDiagnostic[] } {
  const errors: ConfigDiagnostic[] = [];
  const warnings: ConfigDiagnostic[] = [];
  for (const { capability, check } of loaded) {
    if (!check || !capability.uses(config, {})) continue;
    const found: CapabilityProblems = check(config, place);
    errors.push(...(found.errors ?? []));
    warnings.push(...(found.warnings ?? []));
  }
  return { errors, warnings };
}
