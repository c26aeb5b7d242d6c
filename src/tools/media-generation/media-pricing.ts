/**
 * What a media call costs at list price, in dollars: enough to count generated media in a run's cost
 * and budget (`max_cost_usd`). Prices are the vendors' published ones for standard quality; a model not
 * listed costs 0 and the tool result says so, rather than guessing.
 */

/** Dollars per image: by size where the price depends on it (`*` for any other size). */
const IMAGE_PRICES: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  // gpt-image-1 prices at high quality (its default `auto` usually picks high): a budget should not be undercounted.
  'gpt-image-1': { '1024x1024': 0.167, '1024x1536': 0.25, '1536x1024': 0.25, '*': 0.167 },
  'gpt-image-1-mini': { '1024x1024': 0.036, '1024x1536': 0.052, '1536x1024': 0.052, '*': 0.036 },
  'dall-e-3': { '1024x1024': 0.04, '1024x1792': 0.08, '1792x1024': 0.08, '*': 0.04 },
  'dall-e-2': { '256x256': 0.016, '512x512': 0.018, '1024x1024': 0.02, '*': 0.02 },
  'imagen-4.0-generate-001': { '*': 0.04 },
  'imagen-4.0-fast-generate-001': { '*': 0.02 },
  'imagen-4.0-ultra-generate-001': { '*': 0.06 },
  'imagen-3.0-generate-002': { '*': 0.03 },
  'grok-imagine-image': { '*': 0.02 },
  'grok-imagine-image-quality': { '*': 0.05 },
  'grok-2-image': { '*': 0.07 },
};

/** Dollars per million characters of text read aloud. */
const SPEECH_PRICES: Readonly<Record<string, number>> = {
  'tts-1': 15,
  'tts-1-hd': 30,
  // Billed by tokens; about $0.015 a minute of speech, which is close to tts-1's per-character price.
  'gpt-4o-mini-tts': 15,
};

/** Dollars per minute of audio transcribed. */
const TRANSCRIPTION_PRICES: Readonly<Record<string, number>> = {
  'whisper-1': 0.006,
  'gpt-4o-transcribe': 0.006,
  'gpt-4o-mini-transcribe': 0.003,
};

/** Dollars per second of video, and the length a model makes when none is asked for. */
const VIDEO_PRICES: Readonly<Record<string, { perSecond: number; defaultSeconds: number }>> = {
  'veo-3.1-generate-preview': { perSecond: 0.4, defaultSeconds: 8 },
  'veo-3.1-fast-generate-preview': { perSecond: 0.15, defaultSeconds: 8 },
  'veo-3.0-generate-001': { perSecond: 0.4, defaultSeconds: 8 },
  'veo-3.0-fast-generate-001': { perSecond: 0.15, defaultSeconds: 8 },
  'veo-2.0-generate-001': { perSecond: 0.35, defaultSeconds: 8 },
  'grok-imagine-video': { perSecond: 0.05, defaultSeconds: 6 },
  // Sora at 720p; sora-2-pro at higher sizes costs more.
  'sora-2': { perSecond: 0.1, defaultSeconds: 4 },
  'sora-2-pro': { perSecond: 0.3, defaultSeconds: 4 },
};

/** A cost, or null with the reason it is unknown (the tool result carries the note). */
export type Priced = { usd: number } | { usd: 0; note: string };

/** A dated snapshot (`tts-1-1106`, `gpt-4o-mini-tts-2025-03-20`) costs what its model does. */
function lookup<T>(table: Readonly<Record<string, T>>, model: string): T | undefined {
  if (Object.hasOwn(table, model)) return table[model];
  const base = Object.keys(table)
    .filter((name) => model.startsWith(`${name}-`))
    .sort((a, b) => b.length - a.length)[0];
  return base === undefined ? undefined : table[base];
}

const unknown = (model: string, what: string): Priced => ({
  usd: 0,
  note: `no price is known for ${model}: this ${what} is not counted in the run's cost`,
});

const round = (usd: number): number => Math.round(usd * 1e6) / 1e6;

export function imageCost(model: string, size: string | undefined, count: number): Priced {
  const prices = lookup(IMAGE_PRICES, model);
  if (!prices) return unknown(model, 'image');
  const each = (size !== undefined ? prices[size] : undefined) ?? prices['*'] ?? 0;
  return { usd: round(each * count) };
}

export function speechCost(model: string, characters: number): Priced {
  const perMillion = lookup(SPEECH_PRICES, model);
  return perMillion === undefined
    ? unknown(model, 'speech')
    : { usd: round((perMillion * characters) / 1_000_000) };
}

/** `seconds` undefined: the provider did not say how long the audio was. */
export function transcriptionCost(model: string, seconds: number | undefined): Priced {
  const perMinute = lookup(TRANSCRIPTION_PRICES, model);
  if (perMinute === undefined) return unknown(model, 'transcription');
  if (seconds === undefined) {
    return {
      usd: 0,
      note: `the provider did not report the audio's length: this transcription is not counted`,
    };
  }
  return { usd: round((perMinute * seconds) / 60) };
}

/** `seconds` undefined: the model's default length. */
export function videoCost(model: string, seconds: number | undefined, count: number): Priced {
  const price = lookup(VIDEO_PRICES, model);
  if (!price) return unknown(model, 'video');
  return { usd: round(price.perSecond * (seconds ?? price.defaultSeconds) * count) };
}
