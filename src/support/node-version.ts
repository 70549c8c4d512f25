/**
 * The first import of every entry point (src/main.ts, workers/main.ts, src/cli.ts): on a Node.js older
 * than package.json's `engines.node`, stop with one line naming the version needed, before any module
 * that breaks on an old Node loads (undici, argon2). `npm start` and the other scripts run
 * scripts/check-node.cjs first, which prints the same line; this covers `tsx src/main.ts` and
 * `node dist/src/main.js` run directly. test/unit/check-node.test.ts keeps the two in step.
 */

/** The Node.js major version the project needs (package.json `engines.node`: ">=24"). */
export const REQUIRED_NODE_MAJOR = 24;

/** The line printed on an older Node, or undefined when `version` (e.g. "20.20.2") is new enough. */
export function nodeVersionProblem(version: string): string | undefined {
  const actual = version.replace(/^v/, '');
  if (Number(actual.split('.')[0]) >= REQUIRED_NODE_MAJOR) return undefined;
  return (
    `payment-engine needs Node.js ${REQUIRED_NODE_MAJOR} or newer (this is ${actual}). ` +
    `Install Node.js ${REQUIRED_NODE_MAJOR} from https://nodejs.org/ (or \`nvm install ${REQUIRED_NODE_MAJOR}\`, \`fnm install ${REQUIRED_NODE_MAJOR}\`), ` +
    'then run npm install again.'
  );
}

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
