import type { Llama, LlamaContext, LlamaContextSequence, LlamaModel } from 'node-llama-cpp';
import { getLlama, getModuleVersion, LlamaCompletion, LlamaLogLevel } from 'node-llama-cpp';
import type { LocalModelSettings } from '../../types/backend.js';
import { describeError, ProviderError } from '../../types/errors.js';
import { gpuBuildInstallCommand } from './gpu-builds.js';
import { isNamed, loadError } from './load-error.js';
import { promptFormatFor, type PromptFormat } from './prompt.js';

/**
 * A process-wide pool of in-process llama.cpp models, so that several local agents naming the same
 * model share one copy of it in memory.
 *
 * - {@link acquireLocalModel} only registers (no I/O): the factory calls it when it creates a backend.
 * - The first {@link LocalModelHandle.session} loads the llama.cpp runtime (once per GPU setting) and
 *   the model (once per file and GPU setting), then creates one context per (model, context size,
 *   threads) with as many sequences as handles were registered for it by then. Each handle takes its own
 *   sequence and keeps it, so each agent keeps its own conversation cache and several agents generate in
 *   parallel, batched together by llama.cpp.
 * - A handle registered after its context was created gets a new context sized for the handles still
 *   waiting.
 * - {@link disposeLocalModels} frees everything (tests, process end); handles registered earlier stay
 *   usable and load again on their next call.
 */

/** What identifies a shared model and context. */
export interface LocalModelKey {
  /** Absolute path of the GGUF file. */
  modelPath: string;
  /** `auto` uses a GPU when the prebuilt binaries support one; `false` forces the CPU. */
  gpu: NonNullable<LocalModelSettings['gpu']>;
  /** CPU threads for evaluation (see `defaultThreads`). */
  threads: number;
  /**
   * Context window per agent, in tokens (each agent's sequence gets this many). Undefined: the model's
   * training context, at most {@link DEFAULT_CONTEXT_CAP}, less when memory is short.
   */
  contextSize?: number;
  /**
   * Flash attention; undefined lets llama.cpp decide (`auto`). On a CPU it helps or hurts depending on
   * the model's shape: for the 260K-parameter test model it makes prompt evaluation 3x slower.
   */
  flashAttention?: boolean;
}

/** What one agent generates with: its own sequence of the shared context. */
export interface LocalModelSession {
  readonly llama: Llama;
  readonly model: LlamaModel;
  readonly sequence: LlamaContextSequence;
  /** Completion over {@link sequence}; it serialises calls and reuses the cached prompt prefix. */
  readonly completion: LlamaCompletion;
  /** Tokens this sequence can hold (prompt plus output). */
  readonly contextSize: number;
  /** How prompts are rendered for this model (its chat template, or the generic format). */
  readonly format: PromptFormat;
}

/** One registration in the pool (one agent's backend). */
export interface LocalModelHandle {
  readonly key: Readonly<LocalModelKey>;
  /**
   * Loads the model on first use and returns this handle's sequence (the same one every time). Throws a
   * non-retryable {@link ProviderError} with one clear line when the model cannot be loaded.
   */
  session(): Promise<LocalModelSession>;
  /** Gives the sequence back; the handle registers again if it is used afterwards. */
  release(): void;
}

/** What the pool holds, for tests and diagnostics. Counts are since the last {@link disposeLocalModels}. */
export interface LocalModelPoolStats {
  /** llama.cpp runtimes loaded (one per GPU setting in use). */
  runtimeLoads: number;
  /** Model files loaded. */
  modelLoads: number;
  contexts: Array<{
    modelPath: string;
    contextSize: number;
    threads: number;
    /** Sequences the context was created with. */
    sequences: number;
    /** Sequences handed out and not given back. */
    sequencesInUse: number;
  }>;
}

/** Upper bound of the default context window per agent, in tokens. */
export const DEFAULT_CONTEXT_CAP = 8192;
/** Smallest default context window per agent (unless the model's own is smaller). */
const DEFAULT_CONTEXT_MIN = 2048;
/** The reply needs at least this many tokens of room after the prompt. */
export const MIN_OUTPUT_TOKENS = 32;

const PROVIDER = 'local';

interface LoadedModel {
  llama: Llama;
  model: LlamaModel;
  format: PromptFormat;
}

interface ContextGroup {
  id: string;
  key: LocalModelKey;
  /** Handles registered and not released. */
  registered: number;
  /** Handles holding a sequence. */
  holding: number;
  contexts: { context: LlamaContext; sequences: number }[];
  /** Serialises context creation so concurrent first calls share one context. */
  queue: Promise<unknown>;
}

interface Runtime {
  llama: Promise<Llama>;
  /** Recent llama.cpp error lines, quoted in load errors. */
  errors: string[];
}

const runtimes = new Map<string, Runtime>();
const models = new Map<string, Promise<LoadedModel>>();
const groups = new Map<string, ContextGroup>();
let epoch = 0;
let stats = { runtimeLoads: 0, modelLoads: 0 };

const gpuKey = (gpu: LocalModelKey['gpu']): string => String(gpu);
const modelKey = (key: LocalModelKey): string => `${gpuKey(key.gpu)}\u0000${key.modelPath}`;
const groupKey = (key: LocalModelKey): string =>
  `${modelKey(key)}\u0000${key.contextSize ?? 'auto'}\u0000${key.threads}\u0000${key.flashAttention ?? 'auto'}`;

/**
 * Registers one user (agent) of a model. Synchronous and free of I/O: call it when the backend is
 * created, so a context made on the first call has a sequence for every agent registered by then.
 */
export function acquireLocalModel(key: LocalModelKey): LocalModelHandle {
  const frozen: Readonly<LocalModelKey> = Object.freeze({ ...key });
  let group = register(frozen);
  let myEpoch = epoch;
  let session: Promise<LocalModelSession> | undefined;
  let released = false;

  const ensureRegistered = (): void => {
    if (released || myEpoch !== epoch) {
      group = register(frozen);
      myEpoch = epoch;
      session = undefined;
      released = false;
    }
  };

  return {
    key: frozen,
    session() {
      ensureRegistered();
      if (session === undefined) {
        const started = openSession(group);
        session = started;
        // A failed load is not kept: the next call tries again (the user may have fixed the file).
        started.catch(() => {
          if (session === started) session = undefined;
        });
      }
      return session;
    },
    release() {
      if (released || myEpoch !== epoch) return;
      released = true;
      group.registered--;
      const pending = session;
      session = undefined;
      void pending?.then(
        (s) => {
          group.holding--;
          void s.sequence.dispose().catch(() => {});
        },
        () => {},
      );
    },
  };
}

function register(key: LocalModelKey): ContextGroup {
  const id = groupKey(key);
  let group = groups.get(id);
  if (group === undefined) {
    group = { id, key, registered: 0, holding: 0, contexts: [], queue: Promise.resolve() };
    groups.set(id, group);
  }
  group.registered++;
  return group;
}

async function openSession(group: ContextGroup): Promise<LocalModelSession> {
  const loaded = await loadModel(group.key);
  const taken = group.queue.then(() => takeSequence(group, loaded));
  group.queue = taken.catch(() => {});
  const { sequence, contextSize } = await taken;
  return {
    llama: loaded.llama,
    model: loaded.model,
    sequence,
    completion: new LlamaCompletion({ contextSequence: sequence }),
    contextSize,
    format: loaded.format,
  };
}

async function takeSequence(
  group: ContextGroup,
  loaded: LoadedModel,
): Promise<{ sequence: LlamaContextSequence; contextSize: number }> {
  let entry = group.contexts.find(({ context }) => !context.disposed && context.sequencesLeft > 0);
  if (entry === undefined) {
    // Everyone registered and not yet served gets a sequence in this context (at least the caller).
    const sequences = Math.max(1, group.registered - group.holding);
    entry = { context: await createContext(group.key, loaded.model, sequences), sequences };
    group.contexts.push(entry);
  }
  const sequence = entry.context.getSequence();
  group.holding++;
  return { sequence, contextSize: entry.context.contextSize };
}

async function createContext(
  key: LocalModelKey,
  model: LlamaModel,
  sequences: number,
): Promise<LlamaContext> {
  const train = model.trainContextSize;
  try {
    return await model.createContext({
      sequences,
      threads: key.threads,
      ...(key.flashAttention === undefined ? {} : { flashAttention: key.flashAttention }),
      contextSize: key.contextSize ?? {
        min: Math.min(train, DEFAULT_CONTEXT_MIN),
        max: Math.min(train, DEFAULT_CONTEXT_CAP),
      },
    });
  } catch (error) {
    const size = key.contextSize === undefined ? '' : `${key.contextSize.toLocaleString('en-US')}-token `;
    const memory = isNamed(error, 'InsufficientMemoryError') || /memory/i.test(describeError(error));
    throw new ProviderError(
      PROVIDER,
      memory
        ? `${PROVIDER}: not enough memory for a ${size}context for ${sequences} agent(s) on ${key.modelPath} — lower backend.context_size`
        : `${PROVIDER}: cannot create a ${size}context for ${key.modelPath}: ${describeError(error)}`,
      { cause: error, retryable: false },
    );
  }
}

function loadModel(key: LocalModelKey): Promise<LoadedModel> {
  const id = modelKey(key);
  let loading = models.get(id);
  if (loading === undefined) {
    const runtime = loadRuntime(key.gpu);
    loading = (async () => {
      const llama = await runtime.llama;
      runtime.errors.length = 0;
      let model: LlamaModel;
      try {
        model = await llama.loadModel({ modelPath: key.modelPath });
      } catch (error) {
        // llama.cpp's log lines reach JavaScript asynchronously, after the failure itself.
        await new Promise((resolve) => setTimeout(resolve, 10));
        throw loadError(key.modelPath, error, runtime.errors);
      }
      stats.modelLoads++;
      return { llama, model, format: promptFormatFor(model) };
    })();
    models.set(id, loading);
    const current = loading;
    loading.catch(() => {
      if (models.get(id) === current) models.delete(id);
    });
  }
  return loading;
}

function loadRuntime(gpu: LocalModelKey['gpu']): Runtime {
  const id = gpuKey(gpu);
  let runtime = runtimes.get(id);
  if (runtime === undefined) {
    const errors: string[] = [];
    const llama = getLlama({
      gpu,
      // Never compile or download llama.cpp at run time: use the binaries shipped with the package.
      build: 'never',
      skipDownload: true,
      progressLogs: false,
      logLevel: LlamaLogLevel.error,
      // llama.cpp writes to stderr by default, which would break the terminal UI; errors are kept to
      // explain a failed load.
      logger: (level, message) => {
        if (level !== LlamaLogLevel.error && level !== LlamaLogLevel.fatal) return;
        const line = message.trim();
        if (line === '') return;
        errors.push(line);
        if (errors.length > 10) errors.shift();
      },
    }).then(
      (llama) => {
        stats.runtimeLoads++;
        return llama;
      },
      async (error: unknown) => {
        const setting = gpu === 'auto' ? '' : ` with gpu: ${String(gpu)}`;
        const missing = isNamed(error, 'NoBinaryFoundError');
        // The published package carries only the CPU build; CUDA and Vulkan builds are installed on demand.
        const install =
          missing && (gpu === 'cuda' || gpu === 'vulkan')
            ? gpuBuildInstallCommand(gpu, await getModuleVersion().catch(() => 'latest'))
            : undefined;
        throw new ProviderError(
          PROVIDER,
          missing
            ? `${PROVIDER}: no llama.cpp binary${setting} for ${process.platform}-${process.arch} is installed${gpu === 'auto' || gpu === false ? '' : ' — use gpu: auto or gpu: false'}`
            : `${PROVIDER}: cannot start llama.cpp${setting}: ${describeError(error)}`,
          {
            cause: error,
            retryable: false,
            ...(install
              ? {
                  hint: `install the ${String(gpu)} build with: ${install} (without -g where massgen is a project dependency)`,
                }
              : {}),
          },
        );
      },
    );
    runtime = { llama, errors };
    runtimes.set(id, runtime);
    const current = runtime;
    llama.catch(() => {
      if (runtimes.get(id) === current) runtimes.delete(id);
    });
  }
  return runtime;
}

/**
 * Throws a non-retryable {@link ProviderError} when a prompt of `promptTokens` leaves less than
 * {@link MIN_OUTPUT_TOKENS} of room in a context of `contextSize` tokens.
 */
export function assertPromptFits(promptTokens: number, contextSize: number): void {
  if (promptTokens + MIN_OUTPUT_TOKENS <= contextSize) return;
  const n = (value: number) => value.toLocaleString('en-US');
  throw new ProviderError(
    PROVIDER,
    `${PROVIDER}: the prompt needs ${n(promptTokens)} tokens (plus ${MIN_OUTPUT_TOKENS} for the reply) but the context holds ${n(contextSize)} — raise backend.context_size`,
    { retryable: false },
  );
}

/** Frees every runtime, model and context; counts in {@link localModelPoolStats} restart from zero. */
export async function disposeLocalModels(): Promise<void> {
  const all = [...runtimes.values()];
  runtimes.clear();
  models.clear();
  groups.clear();
  epoch++;
  stats = { runtimeLoads: 0, modelLoads: 0 };
  await Promise.all(
    all.map(async (runtime) => {
      try {
        await (await runtime.llama).dispose();
      } catch {
        // A runtime that never started has nothing to free.
      }
    }),
  );
}

/** A snapshot of the pool. */
export function localModelPoolStats(): LocalModelPoolStats {
  return {
    ...stats,
    contexts: [...groups.values()].flatMap((group) =>
      group.contexts
        .filter(({ context }) => !context.disposed)
        .map(({ context, sequences }) => ({
          modelPath: group.key.modelPath,
          contextSize: context.contextSize,
          threads: group.key.threads,
          sequences,
          sequencesInUse: sequences - context.sequencesLeft,
        })),
    ),
  };
}
