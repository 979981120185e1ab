/**
 * kubeop CLI entry: `run`, `apiserver`, `dev`, `crds`, `webhooks`, `init`, `create`, `version`. Each subcommand lives in cli/; this file only
 * dispatches and maps errors to exit codes (0 ok, 1 runtime failure, 2 usage error).
 * @module
 */
import { UsageError } from "./cli/flags.ts";
import { KUBEOP_VERSION } from "./cli/version.ts";

const USAGE = `Usage: kubeop <command> [flags]

Commands:
  run         run the controllers against a cluster (kubeconfig or in-cluster)
  apiserver   serve the farm aggregated API (llamas, farmpods)
  dev         embedded control plane: fake API server + controllers + farm API, for kubectl
  crds        print every CustomResourceDefinition as YAML
  webhooks    print the Validating/MutatingWebhookConfigurations of the controllers' webhooks as YAML
  init        create an operator project: kubeop init DIR --group G --version V --kind K
  create      add to a project: create api --group G --version V --kind K | create webhook --kind K --validate
  version     print the version

Run 'kubeop <command> --help' for a command's flags.`;

type Command = (args: string[]) => Promise<number>;

// Each subcommand is imported when it is chosen, so `kubeop run` never evaluates the fake API server, the farm API
// or x509 (startup: the bundle's module evaluation is most of `kubeop run`'s time to /readyz). The specifiers are
// string literals, so `deno bundle` still inlines every module into one self-contained file and only defers its
// evaluation.
const commands: Record<string, Command> = {
  run: async (args) => (await import("./cli/run.ts")).runCommand(args),
  apiserver: async (args) => (await import("./cli/apiserver.ts")).apiserverCommand(args),
  dev: async (args) => (await import("./cli/dev.ts")).devCommand(args),
  crds: async (args) => (await import("./cli/crds.ts")).crdsCommand(args),
  webhooks: async (args) => (await import("./cli/webhooks.ts")).webhooksCommand(args),
  init: async (args) => (await import("./cli/init.ts")).initCommand(args),
  create: async (args) => (await import("./cli/create.ts")).createCommand(args),
  version: (_args: string[]) => {
    console.log(`kubeop ${KUBEOP_VERSION}`);
    return Promise.resolve(0);
  },
};

/** Runs the CLI with `args` and returns the process exit code. */
export async function main(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    console.log(USAGE);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    console.error(`kubeop: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  try {
    return await command(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(err.message);
      return 2;
    }
    console.error(`kubeop ${name}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
