import { ProviderError, describeError } from '../../types/errors.js';
import { errorCode } from '../../util/guards.js';

/** One clear line for a model file that does not load. */
export function loadError(modelPath: string, error: unknown, llamaErrors: readonly string[]): ProviderError {
  const code = errorCode(error);
  // llama.cpp's own explanation, when it gave one ("tensor ... data is not within the file bounds");
  // a TypeError or RangeError is node-llama-cpp's GGUF reader running off the end of a short file.
  const detail =
    llamaErrors.find((line) => !/failed to load model$/i.test(line))?.replace(/^[\w_]+:\s*/, '') ??
    (error instanceof TypeError || error instanceof RangeError
      ? 'its GGUF header cannot be read'
      : describeError(error));
  let message: string;
  if (code === 'ENOENT') message = `model file not found: ${modelPath}`;
  else if (code === 'EISDIR') message = `${modelPath} is a directory, not a GGUF model file`;
  else if (code === 'EACCES' || code === 'EPERM')
    message = `cannot read the model file ${modelPath} (permission denied)`;
  else if (isNamed(error, 'InvalidGgufMagicError')) {
    message = `${modelPath} is not a GGUF model file (it does not start with the GGUF signature)`;
  } else if (isNamed(error, 'InsufficientMemoryError')) message = `not enough memory to load ${modelPath}`;
  else if (/unknown (model )?architecture/i.test(detail)) {
    message = `${modelPath} uses a model architecture this llama.cpp does not support (${clip(detail)})`;
  } else message = `cannot load ${modelPath}: the file is truncated or corrupt (${clip(detail)})`;
  return new ProviderError('local', `local: ${message}`, { cause: error, retryable: false });
}

export function isNamed(error: unknown, name: string): boolean {
  return error instanceof Error && (error.name === name || error.constructor.name === name);
}

function clip(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
