import type { FakeErrorResponse } from './script.js';

/**
 * Each vendor's real answer to a request longer than the model's context window, as its API sends it
 * (status and body), for the fake server to script. The figures are examples; the shapes and wording
 * are the vendors' own.
 */
export const CONTEXT_LENGTH_ERRORS = {
  /** OpenAI Chat Completions. */
  openai: {
    status: 400,
    body: {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
  },
  /** OpenAI Responses API. */
  openaiResponses: {
    status: 400,
    body: {
      error: {
        message:
          'Your input exceeds the context window of this model. Please adjust your input and try again.',
        type: 'invalid_request_error',
        param: 'input',
        code: 'context_length_exceeded',
      },
    },
  },
  /** Anthropic Messages. */
  anthropic: {
    status: 400,
    body: {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 208310 tokens > 200000 maximum' },
    },
  },
  /** Google Gemini. */
  gemini: {
    status: 400,
    body: {
      error: {
        code: 400,
        message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
        status: 'INVALID_ARGUMENT',
      },
    },
  },
  /** xAI (Grok). */
  xai: {
    status: 400,
    body: {
      code: 'Client specified an invalid argument',
      error: "This model's maximum prompt length is 131072 but the request contains 140012 tokens.",
    },
  },
  /** vLLM and other OpenAI-compatible servers. */
  vllm: {
    status: 400,
    body: {
      object: 'error',
      message:
        "This model's maximum context length is 4096 tokens. However, you requested 5120 tokens (4096 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    },
  },
} as const satisfies Record<string, FakeErrorResponse>;
