#!/usr/bin/env node
// The a2a-lite executable.
import { run } from './run.js';

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  // A reader that closed early (`| head`) is not our failure.
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const code = await run(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  // A getter: opening stdin costs start-up time, and most commands never read it.
  get stdin() {
    return process.stdin;
  },
  stdout: process.stdout,
  stderr: process.stderr,
});
process.exitCode = code;
