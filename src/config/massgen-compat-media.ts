import { formatPath, type PathSegment } from './config-path.js';
import type { ConfigProblem } from './diagnostics.js';
import { isRecord } from '../util/guards.js';

type Node = Record<string, unknown>;

/** MassGen's multimodal tool modules (`massgen/tool/_multimodal_tools/<name>.py`), by module name. */
const MULTIMODAL_PATH = /(?:^|[\\/])massgen[\\/]tool[\\/]_multimodal_tools[\\/]([a-z0-9_]+)\.py$/i;

/** What massgen has instead of each of MassGen's multimodal tools. */
type Replacement =
  /** One of massgen's media tools, turned on by the backend key MassGen's configs pair it with. */
  | { flag: 'enable_image_generation' | 'enable_audio_generation' | 'enable_video_generation' }
  /** `read_media`, which an agent with a workspace has when its model takes media: nothing to turn on. */
  | { readMedia: true }
  /** Nothing: left out, with this note. */
  | { none: string };

const REPLACEMENTS: Readonly<Record<string, Replacement>> = {
  text_to_image_generation: { flag: 'enable_image_generation' },
  // generate_image edits the workspace images it is given.
  image_to_image_generation: { flag: 'enable_image_generation' },
  text_to_speech_transcription_generation: { flag: 'enable_audio_generation' },
  text_to_speech_continue_generation: { flag: 'enable_audio_generation' },
  text_to_video_generation: { flag: 'enable_video_generation' },
  understand_image: { readMedia: true },
  understand_audio: { readMedia: true },
  understand_video: { readMedia: true },
  understand_file: { readMedia: true },
  text_to_file_generation: {
    none: 'generating documents (PDF, DOCX, PPTX) is not a tool here: an agent with execute_command can write them with a script',
  },
  youtube_video_analysis: {
    none: 'YouTube analysis is not supported: download the video into the workspace and read it with read_media',
  },
};

/**
 * MassGen's multimodal custom tools (`path: massgen/tool/_multimodal_tools/…`) become massgen's own
 * tools: the generation tools turn on `enable_image_generation` / `enable_audio_generation` /
 * `enable_video_generation` (generate_image, which also edits images, generate_speech + transcribe,
 * generate_video), the
 * understanding tools are `read_media`, which agents with a workspace have anyway (when their model
 * takes media). Either is done
 * without a word, as MassGen's tools would have been there; a tool with no counterpart is left out with
 * a note naming it and what to do instead.
 */
export function multimodalToolsToMediaTools(
  backend: Node,
  path: PathSegment[],
  notes: ConfigProblem[],
): void {
  const tools = backend.custom_tools;
  if (!Array.isArray(tools)) return;
  const kept: unknown[] = [];
  tools.forEach((tool, index) => {
    const module =
      isRecord(tool) && typeof tool.path === 'string' ? MULTIMODAL_PATH.exec(tool.path)?.[1] : undefined;
    const replacement = module === undefined ? undefined : REPLACEMENTS[module.toLowerCase()];
    if (replacement === undefined) return void kept.push(tool);
    if ('flag' in replacement) {
      // An explicit `false` next to the tool stays the user's word.
      backend[replacement.flag] ??= true;
    } else if ('none' in replacement) {
      const where = [...path, 'custom_tools', index];
      notes.push({
        path: where,
        message: `${formatPath(where)} (MassGen): ${module} is one of MassGen's multimodal tools, left out: ${replacement.none}`,
      });
    }
  });
  backend.custom_tools = kept;
}
