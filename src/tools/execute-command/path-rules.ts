/**
 * Paths the command analysis treats specially before asking the path policy: system program folders
 * (running `/usr/bin/x` is fine), harmless devices, and disks (never written).
 */
import path from 'node:path';

/** Directories of system programs: running `/usr/bin/x` by its path is fine whatever the read policy says. */
export const SYSTEM_DIRS = [
  '/bin',
  '/sbin',
  '/usr/bin',
  '/usr/sbin',
  '/usr/local/bin',
  '/usr/local/sbin',
  '/usr/lib',
  '/usr/local/lib',
  '/usr/libexec',
  '/lib',
  '/lib64',
  '/opt/homebrew/bin',
];

export function inSystemDir(file: string): boolean {
  const normal = path.posix.normalize(file);
  return SYSTEM_DIRS.some((dir) => normal.startsWith(`${dir}/`) || normal === dir);
}

/** Devices that read nothing from the filesystem (or only the command's own streams). */
export const READ_DEVICES =
  /^\/dev\/(null|zero|random|urandom|full|stdin|stdout|stderr|tty|fd\/\d+)$|^\/proc\/self\/fd\/\d+$/;
/** Devices whose writes go nowhere or to the command's own streams. */
export const WRITE_DEVICES = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$|^\/proc\/self\/fd\/\d+$/;
/** Raw disks and memory: writing them bypasses every file permission. */
export const DISKS =
  /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|loop|md|dm-|sr|disk|mapper\/|rdisk)|^\/dev\/(mem|kmem|port)$/;
