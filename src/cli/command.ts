import { Command, CommanderError } from 'commander';
import { loadConfig, type Config } from '../config';
import type { CliContext } from './context';
import { UsageError, type Values } from './shared';

/**
 * The CLI's commander command: one per group (`charges`) and per command (`charges resolve`). It
 * refuses an option the command does not take, naming the ones it does (issue 30: `audit list
 * --merchant …` once listed every merchant's rows), and names an unknown command in full.
 */
export class CliCommand extends Command {
  /** The run's settings and streams (src/cli/context.ts), the same for every command of the program. */
  readonly cliContext: CliContext;

  constructor(name: string | undefined, context: CliContext) {
    super(name);
    this.cliContext = context;
  }

  override createCommand(name?: string): CliCommand {
    return new CliCommand(name, this.cliContext);
  }

  /** Messages of required arguments left out (`merchant id is required`). */
  private readonly missingMessages = new Map<string, string>();

  /** A required argument `<NAME>`, and the usage error when it is left out. */
  requiredArgument(name: string, description: string, missing: string): this {
    this.missingMessages.set(name, missing);
    return this.argument(`<${name}>`, description);
  }

  /** Commander's hook for a required argument left out. */
  missingArgument(name: string): never {
    this.fail(this.missingMessages.get(name) ?? `${name} is required`, 'commander.missingArgument');
  }

  /** Commander's hook for an option this command does not declare. */
  unknownOption(flag: string): never {
    const option = flag.replace(/=.*$/, '');
    const path = commandPath(this);
    if (this.commands.length > 0) this.fail(`${option} is not an option of "${path || 'cli'}": options go after the command (npm run cli -- ${path ? `${path} ` : ''}--help)`, 'commander.unknownOption');
    const takes = this.options.map((o) => o.long ?? o.flags);
    this.fail(`${option} is not an option of "${path}" (${takes.length === 0 ? 'it takes no options' : `it takes ${takes.join(', ')}`})`, 'commander.unknownOption');
  }

  /** Commander's hook for a word that is no command of this group. */
  unknownCommand(): never {
    this.fail(`unknown command "${[commandPath(this), this.args[0]].filter(Boolean).join(' ')}"`, 'commander.unknownCommand');
  }

  /** `error: <message>` and this command's usage line on stderr; exit 1 (CommanderError under exitOverride). */
  fail(message: string, code = 'cli.usage'): never {
    this.error(`error: ${message}`, { code, exitCode: 1 });
  }
}

/**
 * Thrown by a command that printed its answer and still ends with a non-zero exit code (`ledger check`
 * of a ledger that does not balance): runCommandLine (src/cli/run.ts) answers with `code` and prints
 * nothing more, as for commander's own errors, whose output is written already.
 */
export class CliExit extends CommanderError {
  constructor(code: number) {
    super(code, 'cli.exit', `exit ${code}`);
  }
}

/** The command's words after `cli`: `charges resolve`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** `true` when a boolean option (`--yes`, `--password-stdin`) was given. */
export function flag(values: Values, name: string): boolean {
  return (values as Record<string, unknown>)[name] === true;
}

/**
 * A command's work: its configuration, its options (camelCase), its arguments, and the run's context
 * (its environment for any other setting, stdin); returns what it prints.
 */
export type Handler = (config: Config, values: Values, args: Array<string | undefined>, context: CliContext) => Promise<unknown>;

/**
 * Sets `handler` as the command's action: the configuration loaded first (from the context's
 * environment), then the handler; what it returns is printed on the context's stdout (as JSON unless
 * a string). A UsageError is printed with the usage line.
 */
export function act(command: CliCommand, handler: Handler): CliCommand {
  return command.action(async () => {
    const context = command.cliContext;
    const config = loadConfig(context.env);
    let result: unknown;
    try {
      result = await handler(config, command.opts<Values>(), command.processedArgs as Array<string | undefined>, context);
    } catch (error) {
      if (error instanceof UsageError) command.fail(error.message);
      throw error;
    }
    context.stdout.write((typeof result === 'string' ? result : JSON.stringify(result)) + '\n');
  });
}

/** After every command's declaration: an error is followed by the command's usage line and where its help is. */
export function addUsageHints(command: Command): void {
  const path = commandPath(command);
  command.showHelpAfterError(`usage: ${['cli', path, command.usage()].filter(Boolean).join(' ')}   (npm run cli -- ${path ? `${path} ` : ''}--help: what it takes)`);
  for (const sub of command.commands) addUsageHints(sub);
}
