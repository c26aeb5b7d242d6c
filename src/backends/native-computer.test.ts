import { describe, expect, it } from 'vitest';
import { claudeComputerVersion, supportsNativeComputer } from './native-computer.js';

describe('which models get their vendor computer tool', () => {
  it('maps Claude models to the computer tool version they take', () => {
    expect(claudeComputerVersion('claude-3-5-sonnet-20241022')).toBe('computer_20241022');
    expect(claudeComputerVersion('claude-3-7-sonnet-latest')).toBe('computer_20250124');
    expect(claudeComputerVersion('claude-sonnet-4-20250514')).toBe('computer_20250124');
    expect(claudeComputerVersion('claude-opus-4-1')).toBe('computer_20250124');
    expect(claudeComputerVersion('claude-sonnet-4-5-20250929')).toBe('computer_20250124');
    expect(claudeComputerVersion('claude-haiku-4-5')).toBe('computer_20250124');
    expect(claudeComputerVersion('claude-opus-4-5-20251101')).toBe('computer_20251124');
    expect(claudeComputerVersion('claude-opus-4-8')).toBe('computerToolset_20260801');
    expect(claudeComputerVersion('claude-sonnet-5')).toBe('computerToolset_20260801');
    expect(claudeComputerVersion('claude-3-5-haiku-latest')).toBeNull();
    expect(claudeComputerVersion('my-proxy-model')).toBeNull();
  });

  it('only claude has one through its SDK; openai and gemini use the generic tools', () => {
    expect(supportsNativeComputer('claude', 'claude-sonnet-4-5')).toBe(true);
    expect(supportsNativeComputer('claude', undefined)).toBe(false);
    expect(supportsNativeComputer('openai', 'computer-use-preview')).toBe(false);
    expect(supportsNativeComputer('gemini', 'gemini-2.5-computer-use-preview-10-2025')).toBe(false);
  });
});
