import { describe, expect, it } from 'vitest';
import type { ChildLaunch } from '../types/subagent-launch.js';
import { ConfigError } from '../types/errors.js';
import type { QueueClient } from './queue-client.js';
import { queuedSubagentLauncher } from './subagent-launcher.js';
import { decodeContextFile, encodeContextFile } from './subagent-job.js';

const KEY = 'sk-parent-key-0123456789abcdefghij';

/** Records what would be added to Redis; this test is about what never gets there. */
function recordingClient() {
  const added: unknown[] = [];
  const client = {
    add: async (_id: string, data: unknown) => void added.push(data),
  } as unknown as QueueClient;
  return { client, added };
}

const launch = (overrides: Partial<ChildLaunch>): ChildLaunch => ({
  id: 'sa1-0123abcd',
  agentId: 'alpha',
  task: 'summarise the notes',
  files: [],
  type: null,
  timeoutSeconds: 60,
  logRoot: null,
  signal: new AbortController().signal,
  onEvent: () => {},
  ...overrides,
});

describe('a subagent job (attacker: a model that got hold of a key writes it into its subagent’s task or files)', () => {
  const options = (client: QueueClient) => ({
    client,
    config: { name: 'team.yaml', text: 'agents: [{ id: alpha, backend: { api_key: ${OPENAI_API_KEY} } }]' },
    secrets: [KEY],
    parentJobId: 'b-1-q1',
    runId: () => 'run_1',
  });

  it('is not added when its task, a text file or a binary file holds a secret of the parent run', async () => {
    const { client, added } = recordingClient();
    const start = queuedSubagentLauncher(options(client));
    const binary = new Uint8Array([0xff, 0xfe, ...new TextEncoder().encode(KEY), 0x00]);
    for (const attempt of [
      launch({ task: `use ${KEY}` }),
      launch({ files: [{ name: 'notes.txt', data: new TextEncoder().encode(`key=${KEY}`) }] }),
      launch({ files: [{ name: 'dump.bin', data: binary }] }),
    ]) {
      await expect(start(attempt)).rejects.toThrow(ConfigError);
      await expect(start(attempt)).rejects.toThrow(/holds a secret/);
    }
    expect(added).toEqual([]);
  });

  it('carries the config unresolved and the files as text or base64, byte for byte', async () => {
    const { client, added } = recordingClient();
    const binary = new Uint8Array([0xff, 0x00, 0x41]);
    const files = [
      { name: 'a.txt', data: new TextEncoder().encode('héllo') },
      { name: 'b.bin', data: binary },
    ];
    const handle = await queuedSubagentLauncher(options(client))(launch({ files }));
    expect(handle.steer).toBeNull();
    expect(handle.jobId).toBe('b-1-q1.sa1-0123abcd');
    const data = added[0] as { config: { text: string }; files: Parameters<typeof decodeContextFile>[0][] };
    expect(data.config.text).toContain('${OPENAI_API_KEY}');
    expect(data.files).toEqual(files.map(encodeContextFile));
    expect(data.files[0]).toEqual({ name: 'a.txt', text: 'héllo' });
    expect(data.files.map(decodeContextFile)).toEqual(files);
  });
});
