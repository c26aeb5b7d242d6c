import { describe, expect, it } from 'vitest';
import { gpuBuildInstallCommand, gpuBuildPackages } from './gpu-builds.js';

describe('gpuBuildPackages and gpuBuildInstallCommand', () => {
  it('name the CUDA (with its -ext part) and Vulkan packages of Linux and Windows x64', () => {
    expect(gpuBuildPackages('cuda', '3.21.1', 'linux', 'x64')).toEqual([
      '@node-llama-cpp/linux-x64-cuda@3.21.1',
      '@node-llama-cpp/linux-x64-cuda-ext@3.21.1',
    ]);
    expect(gpuBuildInstallCommand('vulkan', '3.21.1', 'win32', 'x64')).toBe(
      'npm install -g @node-llama-cpp/win-x64-vulkan@3.21.1',
    );
  });

  it('have nothing for machines without such builds (Macs use Metal from the CPU package)', () => {
    expect(gpuBuildPackages('cuda', '3.21.1', 'darwin', 'arm64')).toBeUndefined();
    expect(gpuBuildInstallCommand('vulkan', '3.21.1', 'linux', 'arm64')).toBeUndefined();
  });
});
