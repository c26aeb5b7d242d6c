import { massgenVersion, packageJson } from '../util/package-json.js';

export { massgenVersion };

/** Versions recorded in every run's metadata, so a log can be tied to the code that made it. */
export function runtimeVersions(): Record<string, string> {
  const deps = packageJson().dependencies ?? {};
  return {
    massgen: massgenVersion(),
    node: process.versions.node,
    ...Object.fromEntries(
      Object.entries(deps).filter(([name]) => name === 'ai' || name.startsWith('@ai-sdk/')),
    ),
  };
}
