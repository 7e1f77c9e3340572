#!/usr/bin/env node
// Runs a root script's program (`pnpm demo`, `pnpm swim`, `pnpm start`, `pnpm bench`) so that Ctrl-C
// in a terminal stops the program, and pnpm then exits as the program did: 0 and quiet after a
// clean stop.
//
// Why a wrapper: a terminal sends Ctrl-C's SIGINT to its whole foreground process group, and pnpm is
// in it. pnpm (by design since pnpm/pnpm#9938) then waits for the script and, whatever its exit code,
// prints "[ELIFECYCLE] Command failed." and exits by SIGINT (130 in a shell). No exit code of ours
// changes that; only keeping the signal away from pnpm does. So, when stdin is the terminal and we
// are its foreground job, the terminal's ISIG is turned off for the run (raw mode): Ctrl-C
// reaches us as a byte, and we send SIGINT to the program alone. Ctrl-\ sends it SIGQUIT, Ctrl-Z
// suspends the whole job as the terminal would. The terminal's mode is restored on every exit
// (Node resets it even on an uncaught error). The program's stdin is then not the terminal.
//
// Elsewhere (no terminal, a background job, Windows) the program gets stdin and signals as it
// would without us: a signal sent to the process group reaches it directly, so we never forward
// one (the program would see it twice, and the CLI and the demo take a second SIGINT as "stop at
// once"); we wait for the program and exit with its code, or re-raise the signal that killed it.
//
// Usage (in a package.json script): node tooling/scripts/foreground.mjs <command> [args...]
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write('usage: node tooling/scripts/foreground.mjs <command> [args...]\n');
  process.exit(2);
}

const CTRL_C = 0x03;
const CTRL_BACKSLASH = 0x1c;
const CTRL_Z = 0x1a;

const stdin = process.stdin;
const ownsCtrlC = process.platform !== 'win32' && stdin.isTTY === true && inForeground();

const child = spawn(command, args, {
  stdio: [ownsCtrlC ? 'ignore' : 'inherit', 'inherit', 'inherit'],
  shell: process.platform === 'win32',
});

// Signals to the process group reach the program too: stay alive until it has exited.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT']) process.on(signal, () => {});

if (ownsCtrlC) {
  stdin.setRawMode(true);
  stdin.on('data', (bytes) => {
    // Echoed as the terminal would (ECHOCTL).
    for (const byte of bytes) {
      if (byte === CTRL_C) {
        process.stderr.write('^C');
        child.kill('SIGINT');
      } else if (byte === CTRL_BACKSLASH) {
        process.stderr.write('^\\');
        child.kill('SIGQUIT');
      } else if (byte === CTRL_Z) {
        process.stderr.write('^Z');
        suspend();
      }
    }
  });
  // Back in the foreground after `fg`: take Ctrl-C again.
  process.on('SIGCONT', () => {
    if (inForeground()) stdin.setRawMode(true);
  });
}

child.on('error', (error) => {
  restoreTerminal();
  process.stderr.write(`${command}: ${error.message}\n`);
  process.exit(127);
});

child.on('exit', (code, signal) => {
  restoreTerminal();
  if (signal === null) process.exit(code ?? 1);
  // Die of the same signal, so that whoever waits for us sees what happened to the program.
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
});

function restoreTerminal() {
  if (!ownsCtrlC) return;
  stdin.setRawMode(false);
  stdin.pause();
}

/** Ctrl-Z: give the terminal its mode back and stop the whole job (pnpm included), as the terminal would. */
function suspend() {
  stdin.setRawMode(false);
  const group = processGroup();
  if (group !== undefined) process.kill(-group, 'SIGTSTP');
}

/** True when our process group is the terminal's foreground group (a background job must not change the terminal's mode). */
function inForeground() {
  const ids = groupIds();
  return ids !== undefined && ids.group === ids.foreground;
}

function processGroup() {
  return groupIds()?.group;
}

/** Our process group and the terminal's foreground process group: /proc on Linux, ps elsewhere. */
function groupIds() {
  try {
    // Fields after the command name: state ppid pgrp session tty_nr tpgid ...
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { group: Number(fields[2]), foreground: Number(fields[5]) };
  } catch {
    const ps = spawnSync('ps', ['-o', 'pgid=,tpgid=', '-p', String(process.pid)], { encoding: 'utf8' });
    const [group, foreground] = (ps.stdout ?? '').trim().split(/\s+/).map(Number);
    return ps.status === 0 && Number.isInteger(group) && Number.isInteger(foreground) ? { group, foreground } : undefined;
  }
}
