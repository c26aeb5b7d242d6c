import { describe, expect, it } from 'vitest';
import { readMassGenFormat } from './massgen-compat.js';

const tool = (name: string) => ({
  name: [name],
  category: 'multimodal',
  path: `massgen/tool/_multimodal_tools/${name}.py`,
  function: [name],
});

function read(backend: Record<string, unknown>) {
  const { value, notes } = readMassGenFormat({
    agent: { id: 'a', backend: { type: 'openai', model: 'gpt-4o', ...backend } },
  });
  return { backend: (value as { agent: { backend: Record<string, unknown> } }).agent.backend, notes };
}

describe("MassGen's multimodal tools", () => {
  it('become the media keys, silently, and leave the custom tools', () => {
    const { backend, notes } = read({
      custom_tools: [
        tool('image_to_image_generation'),
        tool('understand_image'),
        tool('text_to_speech_continue_generation'),
        tool('text_to_video_generation'),
        { name: 'mine', path: 'tools/mine.py', function: 'mine' },
      ],
    });
    expect(backend).toMatchObject({
      enable_image_generation: true,
      enable_audio_generation: true,
      enable_video_generation: true,
    });
    expect(backend.custom_tools).toEqual([{ name: 'mine', path: 'tools/mine.py', function: 'mine' }]);
    expect(notes).toEqual([]);
  });

  it('keep an explicit false, and name the tools that have no counterpart', () => {
    const { backend, notes } = read({
      enable_image_generation: false,
      custom_tools: [
        tool('text_to_image_generation'),
        tool('youtube_video_analysis'),
        tool('text_to_file_generation'),
      ],
    });
    expect(backend.enable_image_generation).toBe(false);
    expect(backend.custom_tools).toEqual([]);
    expect(notes.map((n) => n.message)).toEqual([
      expect.stringMatching(
        /^agent\.backend\.custom_tools\[1\] \(MassGen\): youtube_video_analysis is one of MassGen's multimodal tools, left out: .*read_media/,
      ),
      expect.stringMatching(
        /custom_tools\[2\] \(MassGen\): text_to_file_generation .*left out: .*execute_command/,
      ),
    ]);
  });
});
