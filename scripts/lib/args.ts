/** `--name value` flags of a script's command line, and its progress log (stderr, so stdout stays data). */
export function flags(argv: string[] = process.argv.slice(2)) {
  return (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
}

export const log = (s: string) => process.stderr.write(`${s}\n`);
