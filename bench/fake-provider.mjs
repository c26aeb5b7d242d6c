// The simulated provider of bench/suite.js in a process of its own (forked with an IPC channel), so the
// CPU it spends serving 64 streams is not counted as massgen's overhead or event-loop lag. The parent
// sends `{ firstDelayMs, delayMs, text, thinking }` to set the team's script and pacing (time to first
// token, then the wait before each later chunk; `thinking`: words of reasoning streamed one per chunk
// before each reply); every message is answered with `{ url, requests }`.
import { convergingTeam, startFakeOpenAIServer } from '../dist/testing/index.js';

const server = await startFakeOpenAIServer();
process.on('message', ({ firstDelayMs, delayMs = 0, text = '', thinking = 0 }) => {
  const script = convergingTeam({
    answer: (system) => `answer of ${system.slice(-12)} ${text}`,
    final: 'done',
  });
  server.setHandler((body, index, view) => ({
    ...script(body, index, view),
    ...(delayMs ? { delayMs } : {}),
    ...(firstDelayMs === undefined ? {} : { firstDelayMs }),
    ...(thinking ? { reasoning: 'word '.repeat(thinking), chunkSize: 5 } : {}),
  }));
  process.send({ url: server.url, requests: server.requests.length });
});
process.on('disconnect', () => server.close().then(() => process.exit(0)));
process.send({ url: server.url, requests: 0 });
