/**
 * The `paperguru` command (`npx paperguru`, bin/paperguru.mjs). `main(argv, io)` has no side effects
 * beyond its Io, so tests run it in-process; the bin script passes process.argv and sets the exit code.
 *
 *   paperguru config set url|key|archive|admin-key <value> | config show
 *   paperguru archives create <id> [--save] | archives list | keys create|list|revoke
 *   paperguru import <files|folders>   paperguru route|context "<query>"   paperguru verify <file|->
 *   paperguru export --format <f>      paperguru sources add|list|run|pause|resume|delete   paperguru log
 *   paperguru project|xkg|research|papers <command>   (the seed systems; src/cli/systems.ts lists them)
 */
import { type Command, commandHelp, runCommand } from "./command";
import { COMMANDS } from "./commands";
import { didYouMean, EXIT, type Io, line, printError, processIo, UsageError, wrap } from "./io";

export function overview(): string {
  // Each command's whole usage, then its summary wrapped under it: nothing is cut.
  const rows = COMMANDS.map((c) => `  ${c.name}${c.args ? ` ${c.args}` : ""}\n${wrap(c.summary, "      ")}`);
  return [
    "usage: paperguru <command> [options]",
    "",
    "commands:",
    ...rows,
    "",
    "`paperguru <command> --help` describes a command and its options.",
    "Settings: flags (--url, --key, --admin-key, --archive), then PAPERGURU_URL, PAPERGURU_KEY,",
    "PAPERGURU_ADMIN_KEY, PAPERGURU_ARCHIVE, then the config file ($PAPERGURU_CONFIG or",
    "~/.config/paperguru/config.json). The default URL is http://127.0.0.1:8787 (the local `npm start`).",
    "Exit codes: 0 ok, 1 the operation failed, 2 usage error (130 after Ctrl-C during an import).",
  ].join("\n");
}

/** The command named by the first one or two words of argv, and the rest of argv. */
function find(argv: string[]): { command: Command | null; rest: string[]; group: string | null } {
  const [a, b] = argv;
  const two = COMMANDS.find((c) => c.name === `${a} ${b}`);
  if (two) return { command: two, rest: argv.slice(2), group: null };
  const one = COMMANDS.find((c) => c.name === a);
  if (one) return { command: one, rest: argv.slice(1), group: null };
  const isGroup = COMMANDS.some((c) => c.name.startsWith(`${a} `));
  return { command: null, rest: argv.slice(1), group: isGroup ? (a ?? null) : null };
}

function groupHelp(group: string): string {
  const cmds = COMMANDS.filter((c) => c.name.startsWith(`${group} `));
  return [
    `usage: paperguru ${group} <${cmds.map((c) => c.name.slice(group.length + 1)).join("|")}> ...`,
    "",
    ...cmds.map((c) => `  paperguru ${c.name}${c.args ? ` ${c.args}` : ""}\n${wrap(c.summary, "      ")}`),
    "",
    `\`paperguru ${group} <command> --help\` for the options.`,
  ].join("\n");
}

export async function main(argv: string[], io: Partial<Io> = {}): Promise<number> {
  const full: Io = { ...processIo(), ...io };
  const [first] = argv;
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    const topic = first === "help" ? find(argv.slice(1)) : null;
    if (topic?.command) line(full.stdout, commandHelp(topic.command));
    else if (topic?.group) line(full.stdout, groupHelp(topic.group));
    else line(first === undefined ? full.stderr : full.stdout, overview());
    return first === undefined ? EXIT.usage : EXIT.ok;
  }
  if (first === "--version" || first === "-v") {
    line(full.stdout, "paperguru 0.1.0");
    return EXIT.ok;
  }
  const { command, rest, group } = find(argv);
  if (!command) {
    if (group) {
      const sub = argv[1];
      const wantsHelp = sub === undefined || sub === "--help" || sub === "-h";
      if (!wantsHelp) {
        const subs = COMMANDS.filter((c) => c.name.startsWith(`${group} `)).map((c) => c.name.slice(group.length + 1));
        line(
          full.stderr,
          `paperguru: unknown command "${group} ${sub}"${didYouMean(sub, subs, (s) => `"${group} ${s}"`)}\n`,
        );
      }
      line(wantsHelp && sub !== undefined ? full.stdout : full.stderr, groupHelp(group));
      return wantsHelp && sub !== undefined ? EXIT.ok : EXIT.usage;
    }
    const names = [...new Set(COMMANDS.map((c) => c.name.split(" ")[0] as string))];
    const hint = didYouMean(first, names, (s) => `"${s}"`);
    line(
      full.stderr,
      hint ? `paperguru: unknown command "${first}"${hint}` : `paperguru: unknown command "${first}"\n\n${overview()}`,
    );
    return EXIT.usage;
  }
  try {
    return await runCommand(command, rest, full);
  } catch (e) {
    if (e instanceof UsageError) {
      line(full.stderr, `paperguru ${command.name}: ${e.message}`);
      if (e.command) line(full.stderr, `usage: paperguru ${command.name} ${command.args}\n(--help for more)`);
      return EXIT.usage;
    }
    printError(full, e);
    return EXIT.failed;
  }
}
