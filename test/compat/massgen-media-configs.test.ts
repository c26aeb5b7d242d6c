/**
 * MassGen's multimodal example configs (../shared/massgen-configs): their media keys and multimodal
 * tools are honoured — they validate without a word about media, and each agent gets massgen's own
 * media tools (generate_image, generate_speech + transcribe, generate_video) instead of MassGen's
 * Python modules.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildToolRegistry } from '../../src/app/build-tools.js';
import { testRunContext } from '../../src/capability/run-context.test-support.js';
import { mediaGenerationCapability } from '../../src/tools/media-generation/capability.js';
import { validateConfig } from '../../src/app/validate.js';
import { loadConfigFile } from '../../src/config/index.js';
import { createPathChecker } from '../../src/tools/permissions/index.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shared = path.resolve(root, '..', 'shared', 'massgen-configs');
const present = existsSync(path.join(shared, 'massgen', 'configs'));
const absent = present ? '' : ` (skipped: MassGen's configs are not at ${shared})`;

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', OPENAI_API_KEY: 'sk-dummy-media' };
const scratch = mkdtempSync(path.join(tmpdir(), 'massgen-media-compat-'));
const workspace = path.join(scratch, 'workspace');
mkdirSync(workspace);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// A MassGen checkout: the configs, and stand-ins for the media files their context paths name.
const corpus = path.join(scratch, 'checkout');
const configs = path.join(corpus, 'massgen', 'configs');
if (present) {
  cpSync(path.join(shared, 'massgen', 'configs'), configs, { recursive: true });
  const dir = path.join(configs, 'tools', 'custom_tools', 'multimodal_tools');
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    const config = parse(readFileSync(path.join(dir, name), 'utf8')) as {
      orchestrator?: { context_paths?: { path?: string }[] };
    };
    for (const entry of config.orchestrator?.context_paths ?? []) {
      if (typeof entry.path !== 'string' || path.isAbsolute(entry.path)) continue;
      const target = path.join(corpus, entry.path);
      if (/\.[a-z0-9]{2,4}$/i.test(entry.path)) {
        mkdirSync(path.dirname(target), { recursive: true });
        if (!existsSync(target)) writeFileSync(target, 'stand-in\n');
      } else mkdirSync(target, { recursive: true });
    }
  }
}

const multimodal = present
  ? readdirSync(path.join(configs, 'tools', 'custom_tools', 'multimodal_tools'))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => `tools/custom_tools/multimodal_tools/${f}`)
  : [];

/** Each config, and the tools each of its agents should have besides the workspace's own. */
const expected: [string, string[]][] = [
  ['basic/single/single_gpt4o_image_generation.yaml', ['generate_image']],
  ['basic/single/single_gpt4o_audio_generation.yaml', ['generate_speech', 'transcribe']],
  ['basic/multi/gpt4o_image_generation.yaml', ['generate_image']],
  ['basic/multi/gpt4o_audio_generation.yaml', ['generate_speech', 'transcribe']],
  ...multimodal.map((file): [string, string[]] => [
    file,
    file.includes('image_generation')
      ? ['generate_image']
      : file.includes('speech')
        ? ['generate_speech', 'transcribe']
        : file.includes('video_generation')
          ? ['generate_video']
          : [],
  ]),
];

const MEDIA_TOOLS = ['generate_image', 'generate_speech', 'transcribe', 'generate_video'];

describe.skipIf(!present)(`MassGen's multimodal configs${absent}`, () => {
  it('covers the multimodal tool configs', () => {
    expect(multimodal.length).toBeGreaterThanOrEqual(13);
  });

  it.each(expected)('%s validates with no media warnings and builds %j', async (relative, tools) => {
    const file = path.join(configs, relative);
    const report = await validateConfig(file, { cwd: corpus, env });
    expect(report.errors).toEqual([]);
    const media = report.warnings.filter((w) =>
      /enable_(image|audio|video)_generation|_multimodal_tools|generation is not supported/.test(w.message),
    );
    // Only the multimodal tools with no counterpart are named (and say what to do instead).
    expect(media.map((w) => w.message).filter((m) => !/left out: /.test(m))).toEqual([]);

    const config = loadConfigFile(file, { cwd: corpus, env });
    const generation = await (
      await mediaGenerationCapability.load()
    ).prepare(testRunContext(config, { env }));
    for (const [index, agent] of config.agents.entries()) {
      const registry = buildToolRegistry({
        agent,
        index,
        customTools: [],
        baseDir: corpus,
        sandbox: {
          workspace,
          checkPath: createPathChecker({ workspace, peerSnapshots: null, contextPaths: [], readOnly: [] }),
          env,
          commands: null,
          layout: () => ({}) as never,
          bwrap: null,
        },
        parts: [generation],
      });
      const names = registry?.list({ agentId: agent.id, phase: 'coordination' }).map((t) => t.name) ?? [];
      expect(names.filter((n) => MEDIA_TOOLS.includes(n))).toEqual(tools);
      // MassGen's Python modules are not loaded in their place.
      expect(agent.backend.custom_tools.filter((t) => t.path.includes('_multimodal_tools'))).toEqual([]);
    }
  });

  it('names the multimodal tools it has no counterpart for', async () => {
    const report = await validateConfig(
      path.join(configs, 'tools/custom_tools/multimodal_tools/text_to_file_generation_single.yaml'),
      { cwd: corpus, env },
    );
    expect(report.warnings.map((w) => w.message)).toContainEqual(
      expect.stringMatching(/text_to_file_generation is one of MassGen's multimodal tools, left out: /),
    );
  });
});
