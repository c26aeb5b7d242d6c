import { describe, expect, it } from 'vitest';
import { readMassGenFormat } from './massgen-compat.js';
import { parseConfig } from './parse-config.js';

const backend = (extra: Record<string, unknown>) => ({ type: 'openai', model: 'gpt-5-nano', ...extra });

describe("MassGen's backend.upload_files", () => {
  it("becomes the config's attachments, with a note", () => {
    const { value, notes } = readMassGenFormat({
      agent: {
        id: 'solo',
        backend: backend({
          upload_files: [
            { image_path: 'massgen/configs/resources/multimodality.jpg' },
            { audio_path: 'https://cdn.example.com/alloy.wav' },
          ],
        }),
      },
    });
    expect(value).toMatchObject({
      attachments: ['massgen/configs/resources/multimodality.jpg', 'https://cdn.example.com/alloy.wav'],
      agent: { backend: { type: 'openai', model: 'gpt-5-nano' } },
    });
    expect((value as { agent: { backend: object } }).agent.backend).not.toHaveProperty('upload_files');
    expect(notes.map((n) => n.message)).toEqual([
      "agent.backend.upload_files (MassGen): sent as the question's attachments (massgen/configs/resources/multimodality.jpg, https://cdn.example.com/alloy.wav)",
    ]);
  });

  it('with several agents the files go to the whole team once, and the note says so', () => {
    const upload = { upload_files: [{ image_path: 'pic.jpg' }] };
    const { value, notes } = readMassGenFormat({
      attachments: ['own.png'],
      agents: [
        { id: 'a', backend: backend(upload) },
        { id: 'b', backend: backend({ ...upload, upload_files: [{ video_path: 'v.mp4' }, { nothing: 1 }] }) },
      ],
    });
    expect((value as { attachments: string[] }).attachments).toEqual(['own.png', 'pic.jpg', 'v.mp4']);
    expect(notes.map((n) => n.message)).toEqual([
      "agents[0].backend.upload_files (MassGen): sent as the question's attachments (pic.jpg) to every agent of the team whose model takes them, not only this one",
      'agents[1].backend.upload_files[1] (MassGen): left out, expected one of image_path, audio_path, video_path, file_path',
      "agents[1].backend.upload_files (MassGen): sent as the question's attachments (v.mp4) to every agent of the team whose model takes them, not only this one",
    ]);
  });

  it('validates as a config, with attachments at the top level', () => {
    const config = parseConfig(
      { agent: { id: 'solo', backend: backend({ upload_files: [{ file_path: 'paper.pdf' }] }) } },
      { env: { OPENAI_API_KEY: 'x' } },
    );
    expect(config.attachments).toEqual(['paper.pdf']);
  });
});
