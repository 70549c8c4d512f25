// First: on a Node.js older than 24, one clear line and exit before anything else loads.
import './support/node-version';
import { processContext } from './cli/context';
import { runCommandLine } from './cli/run';

/**
 * `npm run cli -- GROUP COMMAND …` (commands in src/cli/, one file per group): JSON on stdout and
 * exit 0; an error on stderr and exit 1 (a usage error with the command's usage line). The run is
 * src/cli/run.ts's, in this process's own context (its environment, stdout, stderr and stdin); this
 * file only exits with its code, once what was written has left (process.exit drops a write to a
 * pipe still pending).
 */
// A reader that went away (`npm run cli -- --help | head -1`) ends nothing but its own output.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((done) => stream.write('', () => done()));
void runCommandLine(process.argv.slice(2), processContext()).then(async (code) => {
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
});
