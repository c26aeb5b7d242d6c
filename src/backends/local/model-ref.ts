import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../types/errors.js';

/*
 * node-llama-cpp reads `hf:` URIs too, but only inside `createModelDownloader` and
 * `resolveModelFile`: it does not export its parser, and resolving a URI to a cached file is async
 * (it loads the whole library, ~0.4 s, which the first-run check must not pay) and names the cache
 * file flat (`hf_<user>_<file>`), which would orphan the models users already have. So references
 * are read here, the cache keeps `<modelDir>/<user>/<repo>/<file>`, and the library downloads a
 * plain URL (model-download.ts).
 */

/** A file on a Hugging Face-style hub: `repo` is `<user>/<repo>`, `file` may contain subfolders. */
export interface HubModelRef {
  kind: 'hub';
  repo: string;
  file: string;
  /** Branch, tag or commit; absent means `main`. Set by `hf:…#<revision>` or a `…/resolve/<revision>/…` link. */
  revision?: string;
}

/** Where a model comes from: a local file (absolute path) or a hub download. */
export type ModelRef = { kind: 'path'; path: string } | HubModelRef;

const HUB_HOSTS = new Set(['huggingface.co', 'www.huggingface.co', 'hf.co']);
/** Hugging Face user and repository names: letters, digits, `-`, `_`, `.`. */
const NAME = /^[A-Za-z0-9][\w.-]*$/;
const EXAMPLE = 'hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf';

/**
 * Reads a model reference. Accepted forms:
 * - `hf:<user>/<repo>/<file>.gguf` (the file may sit in subfolders: `hf:user/repo/sub/file.gguf`),
 *   with an optional `#<revision>` as node-llama-cpp writes it;
 * - a link `https://huggingface.co/<user>/<repo>/resolve/<revision>/<file>.gguf` (`/blob/` links,
 *   as copied from the browser, work too);
 * - anything else is a local path: `~` and `~/…` expand to the home folder, `file:` URLs are
 *   accepted, relative paths resolve against the working folder.
 *
 * Throws a {@link ConfigError} for a malformed `hf:` reference or hub link, or for any other URL.
 */
export function parseModelRef(model: string): ModelRef {
  const text = model.trim();
  if (text === '') throw new ConfigError('the model reference is empty', { hint: `e.g. ${EXAMPLE}` });
  if (text.startsWith('hf:')) return parseHubPath(text.slice(3), model);
  if (/^https?:\/\//i.test(text)) return parseHubLink(text);
  if (/^file:/i.test(text)) return { kind: 'path', path: fileURLToPath(text) };
  if (text === '~') return { kind: 'path', path: homedir() };
  if (text.startsWith('~/')) return { kind: 'path', path: join(homedir(), text.slice(2)) };
  return { kind: 'path', path: resolve(text) };
}

/** The download URL of a hub file: `<endpoint>/<user>/<repo>/resolve/<revision or main>/<file>`. */
export function hubUrl(ref: HubModelRef, hubEndpoint: string): string {
  const file = ref.file.split('/').map(encodeURIComponent).join('/');
  const revision = encodeURIComponent(ref.revision ?? 'main');
  return `${hubEndpoint.replace(/\/+$/, '')}/${ref.repo}/resolve/${revision}/${file}`;
}

/**
 * Where a hub file is cached: `<modelDir>/<user>/<repo>/<file>`, or `<modelDir>/<user>/<repo>@<revision>/<file>`
 * for a revision other than `main` (repository names cannot contain `@`, so the two never collide).
 * Throws a {@link ConfigError} for names that would leave `modelDir` (`..`, absolute paths).
 */
export function cachePath(ref: HubModelRef, modelDir: string): string {
  const [user = '', repo = '', ...rest] = ref.repo.split('/');
  if (!NAME.test(user) || !NAME.test(repo) || rest.length > 0) {
    throw invalid(`hf:${ref.repo}/${ref.file}`, `"${ref.repo}" is not <user>/<repo>`);
  }
  const fileSegments = ref.file.split('/');
  const bad = fileSegments.find((segment) => !safeSegment(segment));
  if (bad !== undefined) throw invalid(`hf:${ref.repo}/${ref.file}`, `unsafe file path "${ref.file}"`);
  const revision = ref.revision ?? 'main';
  const repoFolder = revision === 'main' ? repo : `${repo}@${encodeURIComponent(revision)}`;
  const root = resolve(modelDir);
  const path = join(root, user, repoFolder, ...fileSegments);
  // Belt and braces: whatever the names, the result must stay inside the model folder.
  const inside = relative(root, path);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    throw invalid(`hf:${ref.repo}/${ref.file}`, `unsafe file path "${ref.file}"`);
  }
  return path;
}

function parseHubPath(rest: string, original: string): HubModelRef {
  const colon = rest.indexOf(':');
  if (colon >= 0) {
    throw invalid(original, `name the file, not a quantisation tag ("${rest.slice(colon + 1)}")`);
  }
  const hash = rest.indexOf('#');
  const revision = hash >= 0 ? rest.slice(hash + 1) : undefined;
  const segments = (hash >= 0 ? rest.slice(0, hash) : rest).split('/');
  if (segments.length < 3) throw invalid(original, 'it needs <user>/<repo>/<file>.gguf');
  const [user = '', repo = '', ...fileSegments] = segments;
  return checkedHubRef(user, repo, fileSegments, revision, original);
}

function parseHubLink(text: string): HubModelRef {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw unsupportedUrl(text);
  }
  const parts = url.pathname.split('/').slice(1);
  const [user = '', repo = '', action, revision, ...fileSegments] = parts;
  if (!HUB_HOSTS.has(url.hostname.toLowerCase()) || (action !== 'resolve' && action !== 'blob')) {
    throw unsupportedUrl(text);
  }
  const decoded = fileSegments.map((segment) => safeDecode(segment, text));
  return checkedHubRef(user, repo, decoded, safeDecode(revision ?? '', text), text);
}

function checkedHubRef(
  user: string,
  repo: string,
  fileSegments: string[],
  revision: string | undefined,
  original: string,
): HubModelRef {
  if (!NAME.test(user) || !NAME.test(repo)) {
    throw invalid(original, `"${user}/${repo}" is not a valid <user>/<repo>`);
  }
  if (fileSegments.length === 0 || !fileSegments.every(safeSegment)) {
    throw invalid(original, 'the file path is empty or contains "." or ".." parts');
  }
  const file = fileSegments.join('/');
  if (!file.toLowerCase().endsWith('.gguf')) throw invalid(original, `"${file}" is not a .gguf file`);
  if (revision !== undefined && (revision === '' || hasControlCharacter(revision))) {
    throw invalid(original, 'the revision is empty or unreadable');
  }
  const ref: HubModelRef = { kind: 'hub', repo: `${user}/${repo}`, file };
  if (revision !== undefined && revision !== 'main') ref.revision = revision;
  return ref;
}

/** A file-path part that cannot climb out of its folder or confuse the file system. */
function safeSegment(segment: string): boolean {
  return (
    segment !== '' &&
    segment !== '.' &&
    segment !== '..' &&
    !segment.includes('\\') &&
    !hasControlCharacter(segment)
  );
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 0x20) return true;
  return false;
}

function safeDecode(segment: string, original: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw unsupportedUrl(original);
  }
}

function invalid(reference: string, reason: string): ConfigError {
  return new ConfigError(`invalid hub model reference "${reference}": ${reason}`, {
    hint: `write hf:<user>/<repo>/<file>.gguf, e.g. ${EXAMPLE}`,
  });
}

function unsupportedUrl(url: string): ConfigError {
  return new ConfigError(`unsupported model URL: ${url}`, {
    hint: `use hf:<user>/<repo>/<file>.gguf, a https://huggingface.co/<user>/<repo>/resolve/main/<file>.gguf link, or a local path`,
  });
}
