/**
 * kubeop CLI entry: `run`, `apiserver`, `dev`, `crds`, `webhooks`, `version`. Each subcommand lives in cli/; this file only
 * dispatches and maps errors to exit codes (0 ok, 1 runtime failure, 2 usage error).
 * @module
 */
import { apiserverCommand } from "./cli/apiserver.ts";
import { crdsCommand } from "./cli/crds.ts";
import { devCommand } from "./cli/dev.ts";
import { UsageError } from "./cli/flags.ts";
import { runCommand } from "./cli/run.ts";
import { webhooksCommand } from "./cli/webhooks.ts";
import { KUBEOP_VERSION } from "./cli/version.ts";

const USAGE = `Usage: kubeop <command> [flags]

Commands:
  run         run the controllers against a cluster (kubeconfig or in-cluster)
  apiserver   serve the farm aggregated API (llamas, farmpods)
  dev         embedded control plane: fake API server + controllers + farm API, for kubectl
  crds        print every CustomResourceDefinition as YAML
  webhooks    print the Validating/MutatingWebhookConfigurations of the controllers' webhooks as YAML
  version     print the version

Run 'kubeop <command> --help' for a command's flags.`;

type Command = (args: string[]) => Promise<number>;

// Static imports keep `deno bundle` output a single self-contained file.
const commands: Record<string, Command> = {
  run: runCommand,
  apiserver: apiserverCommand,
  dev: devCommand,
  crds: crdsCommand,
  webhooks: webhooksCommand,
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
