/**
 * The npm packages holding node-llama-cpp's prebuilt GPU binaries. `npm i massgen` installs only the
 * CPU build (the published package bundles node-llama-cpp without its CUDA and Vulkan packages, about
 * 540 MB on Linux); node-llama-cpp finds a GPU package installed beside massgen, because Node
 * resolves packages up the folder tree. Metal is part of the Mac build, so Macs need nothing more.
 */
export function gpuBuildPackages(
  gpu: 'cuda' | 'vulkan',
  version: string,
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): string[] | undefined {
  const os = platform === 'linux' ? 'linux' : platform === 'win32' ? 'win' : undefined;
  if (os === undefined || arch !== 'x64') return undefined;
  const names = gpu === 'cuda' ? [`${os}-x64-cuda`, `${os}-x64-cuda-ext`] : [`${os}-x64-vulkan`];
  return names.map((name) => `@node-llama-cpp/${name}@${version}`);
}

/** The one command that adds a GPU build, e.g. `npm install -g @node-llama-cpp/linux-x64-vulkan@3.21.1`. */
export function gpuBuildInstallCommand(
  gpu: 'cuda' | 'vulkan',
  version: string,
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): string | undefined {
  const packages = gpuBuildPackages(gpu, version, platform, arch);
  return packages && `npm install -g ${packages.join(' ')}`;
}
