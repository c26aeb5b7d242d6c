// Makes docs/images/web-ui.png, the README's picture of the web UI: the built `massgen --web` (run
// `npm run build` first) with a three-agent team on a local scripted server (no API key), a chart
// attached in the question box, one agent generating an image (generate_image through the AI SDK
// against the scripted image endpoint), driven by headless Chromium (playwright-core +
// /usr/bin/chromium) at 1280 px in the light theme.
//
//   node scripts/screenshot-web-ui.mjs [out.png]
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.resolve(process.argv[2] ?? path.join(root, 'docs', 'images', 'web-ui.png'));
const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(path.join(root, 'dist', 'web', 'index.html'))) {
  console.error('screenshot-web-ui needs the built web UI: run `npm run build` first.');
  process.exit(1);
}
if (!existsSync(CHROMIUM)) {
  console.error(`screenshot-web-ui needs Chromium at ${CHROMIUM} (apt-get install chromium).`);
  process.exit(1);
}
const dist = (file) => import(pathToFileURL(path.join(root, 'dist', file)).href);
const {
  anthropicMessagesDialect,
  openAIChatDialect,
  openAIResponsesDialect,
  paintPng,
  readPng,
  startFakeServer,
} = await dist('testing/index.js');

// The attachment: a bar chart of four quarters on a white card with grid lines.
const BARS = [
  { label: 'Q1', value: 0.42, rgb: [59, 130, 246] },
  { label: 'Q2', value: 0.58, rgb: [20, 184, 166] },
  { label: 'Q3', value: 0.5, rgb: [245, 158, 11] },
  { label: 'Q4', value: 0.86, rgb: [168, 85, 247] },
];
const CHART = { width: 320, height: 200 };
const chart = paintPng(CHART.width, CHART.height, (x, y) => {
  const base = CHART.height - 20;
  const slot = Math.floor((x - 20) / 72);
  const bar = BARS[slot];
  const inBar = bar && x - 20 - slot * 72 >= 12 && x - 20 - slot * 72 < 60;
  if (inBar && y < base && y >= base - Math.round(bar.value * (base - 10))) return bar.rgb;
  if (y === base || (x === 19 && y <= base && y > 8)) return [100, 116, 139];
  if (y < base && y > 8 && (base - y) % 34 === 0 && x > 19) return [226, 232, 240];
  return [255, 255, 255];
});

// The generated picture: a sunset over a skyline whose towers are the chart's bars.
const POSTER = 256;
const poster = paintPng(POSTER, POSTER, (x, y) => {
  const t = y / POSTER;
  const sky = [Math.round(30 + 220 * t), Math.round(27 + 120 * t), Math.round(75 + 20 * (1 - t))];
  const dx = x - 128;
  const dy = y - 150;
  const sun = dx * dx + dy * dy < 48 * 48 ? [253, 224, 71] : null;
  const slot = Math.floor((x - 24) / 52);
  const bar = BARS[slot];
  const inTower = bar && x - 24 - slot * 52 >= 6 && x - 24 - slot * 52 < 44;
  const top = bar ? POSTER - 24 - Math.round(bar.value * 150) : POSTER;
  if (y >= POSTER - 24) return [15, 23, 42];
  if (inTower && y >= top) {
    const lit = (x + y) % 12 < 4 && (y - top) % 14 < 6 && y - top > 6;
    return lit ? [254, 240, 138] : bar.rgb.map((v) => Math.round(v * 0.45));
  }
  return sun ?? sky;
});

/** Heights of a bar chart's bars, read from the PNG that reached the model. */
function readBars(file) {
  const { width, height, pixel } = readPng(file);
  // A column is a bar where its pixels are saturated (not white, grey or the axis).
  const saturated = (x, y) => {
    const [r, g, b] = pixel(x, y);
    return Math.max(r, g, b) - Math.min(r, g, b) > 60;
  };
  const bars = [];
  let run = null;
  for (let x = 0; x < width; x++) {
    let top = height;
    for (let y = 0; y < height; y++)
      if (saturated(x, y)) {
        top = y;
        break;
      }
    if (top < height && run) run.top = Math.min(run.top, top);
    else if (top < height) run = { top };
    else if (run) {
      bars.push(run);
      run = null;
    }
  }
  if (run) bars.push(run);
  return bars.map((bar) => Math.round(((height - 20 - bar.top) / (height - 30)) * 100));
}

const server = await startFakeServer([openAIResponsesDialect, anthropicMessagesDialect, openAIChatDialect], {
  routes: [
    {
      matches: (method, p) => method === 'POST' && p.endsWith('/images/generations'),
      async handle(req, res) {
        for await (const chunk of req) void chunk;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ created: 1_700_000_000, data: [{ b64_json: poster.toString('base64') }] }));
      },
    },
  ],
});
const who = (view) => /You are (\w+)\./.exec(view.system)?.[1] ?? 'Ada';
const typing = { chunkSize: 8, delayMs: 20 };
let final = '';
server.setHandler((_body, _index, view) => {
  const name = who(view);
  const image = view.media.find((m) => m.kind === 'image' && m.data.length > 0);
  if (!view.toolNames.includes('new_answer')) return { text: final, ...typing };
  const mine = { Ada: 'agent1', Grace: 'agent2', Ben: 'agent3' }[name];
  // Each agent answers once, then votes: for Ada's answer once it is in, else for its own.
  if (view.votableIds.includes(mine)) {
    const target = view.votableIds.includes('agent1') ? 'agent1' : mine;
    const reason = target === 'agent1' ? 'reads every bar and delivers the poster' : 'the only answer so far';
    return {
      text: `${name} compares the answers.\n`,
      ...typing,
      toolCalls: [{ name: 'vote', arguments: { agent_id: target, reason } }],
    };
  }
  if (name === 'Ben') {
    const note = /of file: (.+?)\. Rely/.exec(view.text)?.[1] ?? 'nothing';
    return {
      text: 'Ben reads the question; no image reached his model.\n',
      ...typing,
      delayMs: 120,
      toolCalls: [
        {
          name: 'new_answer',
          arguments: {
            content: `I was not shown the chart (my model reads text only; the note names ${note}). I defer to the agents who can see it.`,
          },
        },
      ],
    };
  }
  const heights = image ? readBars(Buffer.from(image.data)) : [];
  const reading = heights.map((h, i) => `Q${i + 1} ${h}%`).join(', ');
  if (name === 'Grace') {
    return {
      text: 'Grace looks at the chart.\n',
      ...typing,
      delayMs: 90,
      toolCalls: [
        {
          name: 'new_answer',
          arguments: { content: `Four quarterly bars: ${reading} of the scale. Q4 is the highest.` },
        },
      ],
    };
  }
  const generated = /generated\/image-\d+\.png/.exec(view.text)?.[0];
  if (!generated) {
    return {
      text: `Ada reads the bars: ${reading}. Painting a poster…\n`,
      ...typing,
      toolCalls: [
        {
          name: 'generate_image',
          arguments: {
            prompt: 'a sunset skyline whose four towers follow the chart: Q4 towers above the rest',
          },
        },
      ],
    };
  }
  const answer = `The chart has four quarterly bars — **${reading}** of the scale: growth all year, with a dip in Q3 and **Q4 the highest**.\n\nThe poster is \`${generated}\`: a skyline whose towers follow the bars.`;
  final = answer;
  return {
    text: 'Ada checks the poster and answers.\n',
    ...typing,
    toolCalls: [{ name: 'new_answer', arguments: { content: answer } }],
  };
});

const cwd = mkdtempSync(path.join(tmpdir(), 'massgen-web-shot-'));
const v1 = JSON.stringify(`${server.origin}/v1`);
writeFileSync(
  path.join(cwd, 'team.yaml'),
  `agents:
  - id: ada
    system_message: You are Ada.
    backend: { type: openai, model: gpt-5-mini, base_url: ${v1}, cwd: ada, enable_image_generation: true }
  - id: grace
    system_message: You are Grace.
    backend: { type: claude, model: claude-sonnet-4-5, base_url: ${v1} }
  - id: ben
    system_message: You are Ben.
    backend: { type: chatcompletion, provider: groq, model: llama-3.3-70b-versatile, base_url: ${v1}, media_in: [] }
`,
);
const env = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: cwd,
  OPENAI_API_KEY: 'sk-scripted',
  ANTHROPIC_API_KEY: 'sk-ant-scripted',
  GROQ_API_KEY: 'gsk-scripted',
};
const cli = spawn(
  process.execPath,
  [path.join(root, 'bin', 'massgen.js'), '--web', '--port', '0', '--config', 'team.yaml'],
  { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] },
);
let printed = '';
const url = await new Promise((resolve, reject) => {
  cli.stdout.on('data', (chunk) => {
    printed += chunk;
    const match = /massgen web UI: (\S+)/.exec(printed);
    if (match) resolve(match[1]);
  });
  cli.on('exit', (code) => reject(new Error(`massgen --web exited (${code}): ${printed}`)));
});

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  const page = await context.newPage();
  page.setDefaultTimeout(60_000);
  await page.goto(url);
  await page.getByLabel('Question').fill('What does this chart show? Make a poster of it.');
  await page
    .locator('input[type="file"]')
    .first()
    .setInputFiles([{ name: 'sales-chart.png', mimeType: 'image/png', buffer: chart }]);
  await page.getByRole('button', { name: 'Run' }).click();
  await page.waitForURL(/\/runs\//);
  const final = page.getByRole('region', { name: 'Final answer' });
  const delivered = final.getByRole('group', { name: 'Delivered media' }).getByRole('img').first();
  await delivered.waitFor();
  // Every picture decoded (a string: the function runs in the page, where `document` is).
  await page.waitForFunction('[...document.images].every((img) => img.complete && img.naturalWidth > 0)');
  await page.waitForTimeout(500);
  // From the top of the page to the end of the final answer: the run, its agents, the media.
  const box = await final.boundingBox();
  const height = Math.ceil((box?.y ?? 0) + (box?.height ?? 0) + 16);
  await page.screenshot({ path: out, clip: { x: 0, y: 0, width: 1280, height }, fullPage: true });
  console.log(`wrote ${out} (1280×${height})`);
} finally {
  await browser.close();
  cli.kill('SIGINT');
  await new Promise((resolve) => cli.once('exit', resolve));
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
}
