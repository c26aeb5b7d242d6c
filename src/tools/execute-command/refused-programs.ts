/**
 * Programs the command analysis never lets run, whatever their arguments say about paths: they act
 * on the machine or other users' processes, which no path check can contain.
 */
import type { Arg } from './shell-words.js';

/** Programs that run something as another user. */
export const PRIVILEGE = new Set([
  'sudo',
  'su',
  'doas',
  'pkexec',
  'runuser',
  'run0',
  'sg',
  'newgrp',
  'chroot',
]);
/** Programs that administer the machine itself. */
export const SYSTEM_ADMIN = new Set([
  'mount',
  'umount',
  'swapon',
  'swapoff',
  'insmod',
  'rmmod',
  'modprobe',
  'unshare',
  'nsenter',
  'losetup',
  'iptables',
  'ip6tables',
  'nft',
]);
export const DISK_TOOLS = new Set([
  'mke2fs',
  'mkswap',
  'fdisk',
  'sfdisk',
  'cfdisk',
  'gdisk',
  'sgdisk',
  'parted',
  'wipefs',
]);
export const POWER = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);
const POWER_VERBS = new Set([
  'poweroff',
  'reboot',
  'halt',
  'suspend',
  'hibernate',
  'hybrid-sleep',
  'kexec',
  'emergency',
  'rescue',
]);
/** Programs that start something meant to outlive the command. */
export const OUTLIVE = new Set([
  'setsid',
  'at',
  'batch',
  'crontab',
  'systemd-run',
  'screen',
  'tmux',
  'daemonize',
  'start-stop-daemon',
]);

/** The program is never run, whatever its arguments: the reason, or null. */
export function refusedProgram(base: string, args: readonly Arg[]): string | null {
  if (PRIVILEGE.has(base)) {
    return `"${base}" runs commands as another user or with more privileges, which is never allowed here. Run the command directly as the current user; you have full access to your workspace.`;
  }
  if (/^mkfs(\..+)?$/.test(base) || DISK_TOOLS.has(base)) {
    return `"${base}" formats or partitions disks, which is never allowed here.`;
  }
  if (SYSTEM_ADMIN.has(base)) {
    return `"${base}" administers the machine (mounts, modules, namespaces, firewall), which is never allowed here.`;
  }
  const statics = args.filter((a) => !a.dynamic).map((a) => a.text);
  if (
    POWER.has(base) ||
    ((base === 'init' || base === 'telinit') && statics.some((a) => /^[06sS]$/.test(a))) ||
    (base === 'systemctl' && statics.some((a) => POWER_VERBS.has(a)))
  ) {
    return 'it would shut down, restart or suspend the machine, which is never allowed here.';
  }
  if (OUTLIVE.has(base)) {
    return `"${base}" starts work that outlives this command, which is not allowed: everything a command starts is stopped when it ends. Run the work in the foreground within the time limit.`;
  }
  if (base === 'pkill' || base === 'killall' || base === 'killall5' || base === 'skill' || base === 'slay') {
    return `"${base}" picks processes by name and could stop processes outside this command (massgen itself among them). Use kill with the process ids this command started (e.g. kill $! or kill %1).`;
  }
  if (base === 'kill') {
    const raw = args.map((a) => a.raw).join(' ');
    const operands = killTargets(args);
    if (/\bPPID\b/.test(raw) || operands.some((t) => /^-\d+$/.test(t) || t === '1')) {
      return 'this kill could stop processes outside this command (a negative id is a whole process group, -1 is every process, $PPID is massgen itself). Kill only the process ids this command started (e.g. kill $! or kill %1).';
    }
  }
  return null;
}

function killTargets(args: readonly Arg[]): string[] {
  const out: string[] = [];
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.dynamic) {
      out.push(arg.known);
      continue;
    }
    const t = arg.text;
    if (options && t === '--') {
      options = false;
      continue;
    }
    if (options && (t === '-s' || t === '-n')) {
      i++;
      continue;
    }
    if (options && (t === '-l' || t === '-L')) return [];
    if (options && i === 0 && /^-[A-Za-z0-9+]+$/.test(t) && args.length > 1) continue;
    out.push(t);
  }
  return out;
}
