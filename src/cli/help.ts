import type { Command } from 'commander';

const examplesOf = new WeakMap<Command, string[]>();

/**
 * Ends a command's help screen with a few examples (each a full command line). Other CLI files
 * call it for their own commands; a command without examples gets one built from its usage.
 */
export function withExamples<T extends Command>(command: T, examples: string[]): T {
  examplesOf.set(command, examples);
  return command;
}

/** `service-sandbox webhooks tail`: the words that name a command. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Adds the examples footer to every command of the tree (called once the tree is built). */
export function addExampleFooters(root: Command): void {
  const visit = (command: Command) => {
    const given = examplesOf.get(command);
    const examples = given ?? [`${commandPath(command)} ${command.usage()}`.replace(/\s*\[options\]/, '').trim(), `${commandPath(command)} --help`];
    command.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e.startsWith('service-sandbox') ? `npx ${e}` : e}`).join('\n')}\n`);
    for (const sub of command.commands) visit(sub);
  };
  visit(root);
}

/** The options of `command`, formatted as its help screen lists them (for the top-level help). */
export function optionsText(command: Command): string {
  const help = command.createHelp();
  const options = help.visibleOptions(command).filter((o) => o.long !== '--help');
  const width = Math.max(...options.map((o) => help.optionTerm(o).length));
  return options.map((o) => `  ${help.optionTerm(o).padEnd(width)}  ${help.optionDescription(o)}`).join('\n');
}
