import type { MassGenConfig } from '../config/index.js';
import { createSecretScrubber } from '../util/secret-scrubber.js';
import type { RunContext } from './capability.js';

/** A run context for preparing one capability in a test: an empty environment, `/` unless given. */
export function testRunContext(config: MassGenConfig, overrides: Partial<RunContext> = {}): RunContext {
  return {
    config,
    options: {},
    question: 'q',
    env: {},
    cwd: '/',
    baseDir: '/',
    projectTrusted: true,
    interactive: false,
    sandboxes: new Map(),
    contextPaths: [],
    envFiles: [],
    scrubber: createSecretScrubber([]),
    notes: [],
    ...overrides,
  };
}
