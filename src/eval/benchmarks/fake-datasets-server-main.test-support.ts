/**
 * The fake datasets server as a process of its own, serving `argv[2]` rows of each benchmark (for
 * tests whose commands block their own event loop, such as the docs sessions). Prints
 * `fake datasets server on URL` once listening; runs until killed.
 */
import {
  gpqaRows,
  gsm8kRows,
  humanEvalRows,
  mmluProRows,
  startFakeDatasetsServer,
} from './fake-datasets-server.test-support.js';

const rows = Number(process.argv[2] ?? 3);
const server = await startFakeDatasetsServer();
server.setSplit('openai/gsm8k', 'main', 'test', gsm8kRows(rows));
server.setSplit('TIGER-Lab/MMLU-Pro', 'default', 'test', mmluProRows(rows));
server.setSplit('Idavidrein/gpqa', 'gpqa_diamond', 'train', gpqaRows(rows));
server.setSplit('openai/openai_humaneval', 'openai_humaneval', 'test', humanEvalRows(rows));
process.stdout.write(`fake datasets server on ${server.url}\n`);
