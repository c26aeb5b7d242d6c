import { mediaEndpoint, type FakeMediaEndpoint } from './media-endpoint.js';
import { sampleMp3, sampleMp4, samplePng, sampleWav } from './media-samples.js';

/** What the fake transcription endpoint hears in every file. */
export const FAKE_TRANSCRIPT = 'The quick brown fox jumps over the lazy dog.';

const mediaTypes: Readonly<Record<string, string>> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
};

/**
 * OpenAI's media endpoints as `@ai-sdk/openai` (and `@ai-sdk/azure`, `@ai-sdk/xai` for images) call
 * them, under any base path:
 *
 * - `POST …/images/generations` (JSON) → `{ data: [{ b64_json }] }`, `n` PNGs (8×8);
 * - `POST …/images/edits` (multipart, `image` files + `prompt`) → the same, or a 400 without an image;
 * - `POST …/audio/speech` (JSON) → the audio bytes: a WAV for `response_format: wav`, else an MP3;
 * - `POST …/audio/transcriptions` (multipart, `file` + `model`) → `{ text, language, duration }`
 *   (`verbose_json`) or `{ text, usage }` (`json`), the text always {@link FAKE_TRANSCRIPT};
 * - Sora's `POST …/videos` → a queued job `video_<n>`, `GET …/videos/video_<n>` → completed,
 *   `GET …/videos/video_<n>/content` → a small MP4.
 */
export function openAIMediaEndpoint(): FakeMediaEndpoint {
  let videos = 0;
  const errorBody = (status: number, message: string) => ({
    error: { message, type: status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error', code: null },
  });
  return mediaEndpoint(
    [
      {
        matches: (method, path) => method === 'POST' && path.endsWith('/images/generations'),
        answer: (request) => {
          const n = typeof request.json?.n === 'number' ? request.json.n : 1;
          return {
            json: {
              created: 1_700_000_000,
              data: Array.from({ length: n }, () => ({ b64_json: samplePng().toString('base64') })),
            },
          };
        },
      },
      {
        matches: (method, path) => method === 'POST' && path.endsWith('/images/edits'),
        answer: (request) =>
          request.files.some((f) => f.field === 'image' || f.field === 'image[]')
            ? {
                json: {
                  created: 1_700_000_000,
                  data: Array.from({ length: Number(request.fields.n ?? 1) }, () => ({
                    b64_json: samplePng().toString('base64'),
                  })),
                },
              }
            : { status: 400, json: errorBody(400, "fake server: no 'image' in the upload") },
      },
      {
        matches: (method, path) => method === 'POST' && path.endsWith('/audio/speech'),
        answer: (request) => {
          const format = String(request.json?.response_format ?? 'mp3');
          return format === 'wav'
            ? { body: sampleWav(), contentType: mediaTypes.wav! }
            : { body: sampleMp3(), contentType: mediaTypes.mp3! };
        },
      },
      {
        matches: (method, path) => method === 'POST' && path.endsWith('/audio/transcriptions'),
        answer: (request) =>
          request.files.length === 0
            ? { status: 400, json: errorBody(400, "fake server: no 'file' in the upload") }
            : request.fields.response_format === 'verbose_json'
              ? { json: { text: FAKE_TRANSCRIPT, language: 'english', duration: 2.5, segments: [] } }
              : { json: { text: FAKE_TRANSCRIPT, usage: { type: 'duration', seconds: 3 } } },
      },
      {
        matches: (method, path) => method === 'POST' && /\/videos$/.test(path),
        answer: (request) => {
          videos += 1;
          const seconds = String(request.json?.seconds ?? request.fields.seconds ?? '4');
          return { json: { id: `video_${videos}`, object: 'video', status: 'queued', progress: 0, seconds } };
        },
      },
      {
        matches: (method, path) => method === 'GET' && /\/videos\/video_\d+$/.test(path),
        answer: (request) => ({
          json: { id: request.path.split('/').pop(), object: 'video', status: 'completed', progress: 100 },
        }),
      },
      {
        matches: (method, path) => method === 'GET' && /\/videos\/video_\d+\/content$/.test(path),
        answer: () => ({ body: sampleMp4(), contentType: 'video/mp4' }),
      },
    ],
    errorBody,
  );
}
