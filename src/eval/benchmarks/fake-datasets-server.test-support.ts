/**
 * A local stand-in for the Hugging Face datasets server (`/rows`, at most 100 rows a page, as the real
 * one) and the Hub's dataset record (`/api/datasets/OWNER/NAME` with its `sha`), for tests: no network.
 * Rows in each benchmark's real shape come from the generators below; a test may answer any request
 * itself (`respond`) to play a broken or hostile server.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
}

/** What a test's own responder sends; undefined: the server answers as usual. */
export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as it is (a string) or as JSON. */
  body: unknown;
}

export interface FakeDatasetsServer {
  url: string;
  requests: FakeRequest[];
  /** The split's rows (`row` objects, indexed from 0) and the dataset's revision. */
  setSplit(
    dataset: string,
    config: string,
    split: string,
    rows: Record<string, unknown>[],
    sha?: string,
  ): void;
  respond(responder: ((request: FakeRequest) => FakeReply | undefined) | null): void;
  close(): Promise<void>;
}

export const FAKE_SHA = 'e53f048856ff4f594e959d75785d2c2d37b678ee';

/** Starts the fake on a free loopback port. */
export async function startFakeDatasetsServer(): Promise<FakeDatasetsServer> {
  const splits = new Map<string, Record<string, unknown>[]>();
  const revisions = new Map<string, string>();
  const requests: FakeRequest[] = [];
  let responder: ((request: FakeRequest) => FakeReply | undefined) | null = null;
  const send = (res: ServerResponse, reply: FakeReply) => {
    const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(text);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const request: FakeRequest = {
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization,
    };
    requests.push(request);
    const own = responder?.(request);
    if (own) return send(res, own);
    const hub = /^\/api\/datasets\/([^/]+\/[^/]+)$/.exec(url.pathname);
    if (hub) {
      const sha = revisions.get(hub[1] as string);
      return sha
        ? send(res, { body: { _id: 'x', id: hub[1], sha, private: false, gated: false } })
        : send(res, { status: 404, body: { error: 'Repository not found' } });
    }
    if (url.pathname !== '/rows') return send(res, { status: 404, body: { error: 'Not found' } });
    const { dataset, config, split } = request.query;
    const rows = splits.get(`${dataset}|${config}|${split}`);
    if (!rows)
      return send(res, { status: 404, body: { error: 'The dataset does not exist, or is not accessible.' } });
    const offset = Number(request.query.offset ?? 0);
    const length = Number(request.query.length ?? 100);
    if (!(length >= 0 && length <= 100))
      return send(res, { status: 422, body: { error: 'Parameter length must be between 0 and 100' } });
    send(res, {
      body: {
        features: Object.keys(rows[0] ?? {}).map((name, i) => ({
          feature_idx: i,
          name,
          type: { _type: 'Value' },
        })),
        rows: rows
          .slice(offset, offset + length)
          .map((row, i) => ({ row_idx: offset + i, row, truncated_cells: [] })),
        num_rows_total: rows.length,
        num_rows_per_page: 100,
        partial: false,
      },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setSplit(dataset, config, split, rows, sha = FAKE_SHA) {
      splits.set(`${dataset}|${config}|${split}`, rows);
      revisions.set(dataset, sha);
    },
    respond(next) {
      responder = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The environment pointing both the rows and the Hub at the fake, and the cache at `cacheHome`. */
export const fakeEnv = (server: FakeDatasetsServer, cacheHome: string): Record<string, string> => ({
  MASSGEN_HF_DATASETS_ENDPOINT: server.url,
  MASSGEN_HF_ENDPOINT: server.url,
  XDG_CACHE_HOME: cacheHome,
});

// ---- rows in each benchmark's real shape --------------------------------------------------------

/** GSM8K (`openai/gsm8k`, `main`): the question, and a worked answer ending `#### <number>`. */
export const gsm8kRows = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    question: `[gsm8k ${i}] Natalia sold clips to ${i + 2} friends, 1,000 clips each. How many clips did she sell?`,
    answer: `She sold ${i + 2} * 1000 = <<${i + 2}*1000=${(i + 2) * 1000}>>${(i + 2) * 1000} clips.\n#### ${((i + 2) * 1000).toLocaleString('en-US')}`,
  }));

/** MMLU-Pro (`TIGER-Lab/MMLU-Pro`): ten options, the answer as a letter and an index. */
export const mmluProRows = (n: number) =>
  Array.from({ length: n }, (_, i) => {
    const answerIndex = (i * 3) % 10;
    return {
      question_id: 70 + i,
      question: `[mmlu-pro ${i}] Which option is the right one?`,
      options: Array.from({ length: 10 }, (_, k) => (k === answerIndex ? `right ${i}` : `wrong ${i}.${k}`)),
      answer: String.fromCharCode(65 + answerIndex),
      answer_index: answerIndex,
      cot_content: '',
      category: 'business',
      src: 'ori_mmlu-high_school_macroeconomics',
    };
  });

/** GPQA (`Idavidrein/gpqa`, `gpqa_diamond`): the question, the correct answer and three incorrect ones. */
export const gpqaRows = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    'Pre-Revision Question': `[gpqa ${i}] old`,
    'Pre-Revision Correct Answer': 'old',
    Question: `[gpqa ${i}] Which particle is right?`,
    'Correct Answer': ` right ${i} `,
    'Incorrect Answer 1': `wrong ${i}.1`,
    'Incorrect Answer 2': `wrong ${i}.2`,
    'Incorrect Answer 3': `wrong ${i}.3`,
    Explanation: 'because',
    'Record ID': `rec${1000 + i}`,
    'High-level domain': 'Physics',
    Subdomain: 'Quantum Mechanics',
  }));

/** HumanEval (`openai/openai_humaneval`): `add_k(x)` returns x + k, with its tests. */
export const humanEvalRows = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    task_id: `HumanEval/${i}`,
    prompt: `\n\ndef add_${i}(x: int) -> int:\n    """[humaneval ${i}] Return x plus ${i}.\n    >>> add_${i}(1)\n    ${1 + i}\n    """\n`,
    canonical_solution: `    return x + ${i}\n`,
    test: `\n\nMETADATA = {'author': 'jt', 'dataset': 'test'}\n\n\ndef check(candidate):\n    assert candidate(0) == ${i}\n    assert candidate(5) == ${5 + i}\n`,
    entry_point: `add_${i}`,
  }));
