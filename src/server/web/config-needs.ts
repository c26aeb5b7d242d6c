import type { ConfigNeed } from '../../types/web-api.js';
import { probeServer, type Prerequisite } from '../../app/index.js';
import { formatDecimalBytes } from '../../util/decimal-bytes.js';

export type { ConfigNeed };

/** Bounds of the server probes (seams for tests). */
export interface ProbeSettings {
  /** A server that is up answers `/models` at once. */
  timeoutMs: number;
  /** How long an answer is reused: servers start and stop, so briefly. */
  ttlMs: number;
}

export const DEFAULT_PROBES: ProbeSettings = { timeoutMs: 1500, ttlMs: 5_000 };

/**
 * Whether the local servers configs need answer (`GET <base_url>/models`), asked with short bounded
 * requests and each answer kept briefly — however many configs and page loads ask, at most one request
 * per address at a time. No key is sent: a server that wants one still answers (401), which counts.
 */
export class ServerProbes {
  /** Each address's answer, and when it came (null while the probe is out: callers share it). */
  private readonly answers = new Map<string, { at: number | null; answer: Promise<boolean> }>();

  constructor(private readonly settings: ProbeSettings = DEFAULT_PROBES) {}

  /** Whether any of `urls` answers as an OpenAI-compatible server. */
  async anyAnswers(urls: readonly string[]): Promise<boolean> {
    const answers = await Promise.all(urls.map((url) => this.ask(url)));
    return answers.some(Boolean);
  }

  private ask(url: string): Promise<boolean> {
    const known = this.answers.get(url);
    if (known && (known.at === null || performance.now() - known.at < this.settings.ttlMs))
      return known.answer;
    const entry: { at: number | null; answer: Promise<boolean> } = {
      at: null,
      answer: probeServer(url, { timeoutMs: this.settings.timeoutMs }).then((answered) => {
        entry.at = performance.now();
        return answered;
      }),
    };
    this.answers.set(url, entry);
    return entry.answer;
  }
}

const who = (agentIds: readonly string[]) => agentIds.join(', ');
const hostPath = (url: string) => url.replace(/^https?:\/\//, '');

/**
 * What a config still needs on this machine, each as one line: a local server that does not answer at
 * its base_url, a local model that is not downloaded yet (with the download's size when known), a model
 * file that is not there. Each keeps the config from being ready (`runnable: false`); the page still
 * lets one run it — a model is then downloaded first, which needs the network. The model hub is not
 * asked: opening the page sends nothing off this machine.
 */
export async function configNeeds(
  prerequisites: readonly Prerequisite[],
  probes: ServerProbes,
): Promise<ConfigNeed[]> {
  const needs = await Promise.all(
    prerequisites.map(async (p): Promise<ConfigNeed | null> => {
      if (p.kind === 'server') {
        if (await probes.anyAnswers(p.urls)) return null;
        return {
          kind: 'server',
          agents: p.agentIds,
          summary: `no server at ${p.urls.map(hostPath).join(' or ')}`,
          message: `${who(p.agentIds)}: no ${p.backendType} server answers at ${p.urls.join(' or ')} — ${p.hint}`,
        };
      }
      if (p.present) return null;
      if (p.url === undefined)
        return {
          kind: 'model',
          agents: p.agentIds,
          summary: 'model file not found',
          message: `${who(p.agentIds)}: model file not found: ${p.file}`,
        };
      const size = p.bytes === undefined ? null : formatDecimalBytes(p.bytes);
      return {
        kind: 'model',
        agents: p.agentIds,
        summary: size ? `needs a ${size} model download` : 'needs a model download',
        message: `${who(p.agentIds)}: the model ${p.model} is not downloaded yet — the first run downloads it${size ? ` (${size})` : ''} from ${p.hub}, which needs the network; or save the file as ${p.file}`,
        ...(p.bytes === undefined ? {} : { bytes: p.bytes }),
      };
    }),
  );
  return needs.filter((n): n is ConfigNeed => n !== null);
}
