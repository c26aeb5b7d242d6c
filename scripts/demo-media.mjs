// `npm run demo:media`: a team that works with pictures, end to end and without an API key. The models
// are scripted by a local server that speaks OpenAI's Responses and Chat Completions APIs and its image
// endpoint; everything else is the real CLI: `--attach` on a PNG made here, Ada's vision model receiving
// it as an image part (her scripted reply is decoded from the bytes that arrived), `generate_image`
// through the AI SDK saving a picture in her workspace, and Ben's text-only model (`media_in: []`)
// reading a note about the picture instead of it.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const testing = path.join(root, 'dist', 'testing', 'index.js');
if (!existsSync(testing) || !existsSync(path.join(root, 'dist', 'cli', 'main.js'))) {
  console.error('massgen demo:media runs the built CLI: run `npm run build` first (dist/ is missing).');
  process.exit(1);
}
const { openAIChatDialect, openAIMediaEndpoint, openAIResponsesDialect, readPng, startFakeServer, tinyPng } =
  await import(pathToFileURL(testing).href);
if (openAIMediaEndpoint === undefined || readPng === undefined) {
  console.error('massgen demo:media: dist/ is older than the source: run `npm run build` again.');
  process.exit(1);
}

/** Width, height and the most common colour of a PNG. */
function dominantColour(file) {
  const { width, height, pixel } = readPng(file);
  const counts = new Map();
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const key = pixel(x, y).join(',');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  const [top, n] = [...counts].sort((x, y) => y[1] - x[1])[0];
  return { width, height, rgb: top.split(',').map(Number), share: n / (width * height) };
}

const PALETTE = {
  red: [220, 30, 30],
  orange: [255, 140, 0],
  yellow: [250, 220, 30],
  green: [40, 170, 60],
  blue: [40, 110, 230],
  purple: [130, 50, 180],
  white: [250, 250, 250],
  grey: [128, 128, 128],
  black: [10, 10, 10],
};
const colourName = (rgb) =>
  Object.entries(PALETTE)
    .map(([name, ref]) => [name, ref.reduce((d, v, i) => d + (v - rgb[i]) ** 2, 0)])
    .sort((x, y) => x[1] - y[1])[0][0];

/** What a scripted vision model "sees" in a PNG that reached it. */
const describe = (bytes) => {
  const png = dominantColour(Buffer.from(bytes));
  const share = png.share === 1 ? 'all' : `${Math.round(png.share * 100)}%`;
  return `${png.width}×${png.height} px, ${share} ${colourName(png.rgb)} (rgb ${png.rgb.join(', ')})`;
};

const media = openAIMediaEndpoint();
const server = await startFakeServer([openAIResponsesDialect, openAIChatDialect], { routes: media.routes });
const who = (view) => /You are (\w+)\./.exec(view.system)?.[1] ?? 'Ada';
const typing = { chunkSize: 6, delayMs: 25 };
let final = '';

server.setHandler((_body, _index, view) => {
  const name = who(view);
  const images = view.media.filter((m) => m.kind === 'image' && m.data.length > 0);
  if (!view.toolNames.includes('new_answer')) {
    // The final presentation, by the winner.
    return { text: final, chunkSize: 8, delayMs: 15 };
  }
  if (name === 'Ben') {
    if (!view.votableIds.includes('agent2')) {
      // Ben's model takes no images: his request carries no picture, only the note saying so.
      const note = /of file: (.+?)\. Rely/.exec(view.text)?.[1] ?? 'nothing';
      const answer = `I was not shown the picture: my prompt only says ${note} was left out because my model takes no images. Its colour has to come from an agent who can see it.`;
      return {
        text: `Ben: ${images.length} images reached me. `,
        ...typing,
        toolCalls: [{ name: 'new_answer', arguments: { content: answer } }],
      };
    }
    // Answered: Ada's answer gets his vote once it is in; until then his own, which her answer reopens.
    const ada = view.votableIds.includes('agent1');
    return {
      text: ada
        ? 'Ben: I cannot see the picture, but Ada measured it. '
        : 'Ben: waiting for an agent who can see it. ',
      ...typing,
      toolCalls: [
        {
          name: 'vote',
          arguments: ada
            ? { agent_id: 'agent1', reason: 'Ada saw the picture and painted the tile' }
            : { agent_id: 'agent2', reason: 'the only answer so far' },
        },
      ],
    };
  }
  if (view.votableIds.includes('agent1')) {
    return {
      text: 'Ada: mine is the only answer that looked at the picture. ',
      ...typing,
      toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'measured from the pixels' } }],
    };
  }
  const [photo, tile] = images;
  if (photo === undefined) return { text: 'Ada: no picture reached me.' };
  const seen = describe(photo.data);
  const complement = colourName(dominantColour(Buffer.from(photo.data)).rgb.map((v) => 255 - v));
  const generated = /generated\/image-\d+\.png/.exec(view.text)?.[0];
  if (generated === undefined || tile === undefined) {
    return {
      text: `Ada: the picture is ${seen}. Painting its complement… `,
      ...typing,
      toolCalls: [{ name: 'generate_image', arguments: { prompt: `a plain square tile in ${complement}` } }],
    };
  }
  const answer = `The picture is ${seen}. Its complementary colour is ${complement}, and I painted a tile in it — ${generated}, ${describe(tile.data)}.`;
  final = `${answer}\n\n(Presented by Ada after both votes.)`;
  return {
    text: 'Ada: the tile came back; answering. ',
    ...typing,
    toolCalls: [{ name: 'new_answer', arguments: { content: answer } }],
  };
});

const cwd = mkdtempSync(path.join(tmpdir(), 'massgen-demo-media-'));
const photo = path.join(cwd, 'photo.png');
writeFileSync(photo, tinyPng(48, 32, [255, 140, 0]));
const q = JSON.stringify;
const config = path.join(cwd, 'demo-media.yaml');
writeFileSync(
  config,
  `agents:
  - id: ada
    system_message: You are Ada.
    backend:
      type: openai # a vision model: the attached picture is sent to it as an image
      model: scripted-vision
      base_url: ${q(`${server.origin}/v1`)}
      cwd: ada # generated files go to her workspace
      enable_image_generation: true # generate_image (gpt-image-1 on the same server)
  - id: ben
    system_message: You are Ben.
    backend:
      type: chatcompletion
      model: scripted-text
      base_url: ${q(`${server.origin}/v1`)}
      media_in: [] # takes no images: he reads a note naming the picture instead
`,
);
console.log(`Scripted models on ${server.origin} (no API key needed) — config ${config}`);
console.log(
  `Attaching ${photo}: Ada's model takes images and describes what arrived; Ben's takes none (media_in: []) and gets a note.\n`,
);
const child = spawn(
  process.execPath,
  [
    path.join(root, 'bin', 'massgen.js'),
    '--config',
    config,
    '--attach',
    'photo.png',
    'What colour is this picture? Paint a tile in its complementary colour.',
  ],
  { cwd, stdio: 'inherit' },
);
child.on('exit', async (code) => {
  await server.close();
  const logs = path.join(cwd, '.massgen', 'massgen_logs');
  const tile = path.join(cwd, '.massgen', 'workspaces', 'ada', 'generated', 'image-001.png');
  const run = existsSync(logs)
    ? readdirSync(logs)
        .filter((n) => n.startsWith('log_'))
        .sort()
        .pop()
    : undefined;
  console.log('');
  if (existsSync(tile)) console.log(`Ada's generated image: ${tile} — ${describe(readFileSync(tile))}`);
  if (run)
    console.log(
      `Run log folder:        ${path.join(logs, run)} (events.jsonl names each file, with its hash)`,
    );
  process.exit(code ?? 1);
});
