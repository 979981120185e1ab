/**
 * Runs a real kubectl binary against a kubeconfig, with its discovery cache in a directory the test owns, and returns
 * what it answered: the one way the `kubeop dev` tests drive kubectl.
 * @module
 */

/** What one kubectl invocation answered. */
export interface KubectlOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A function running `kubectl` (the binary at `binary`) with `KUBECONFIG=kubeconfig` and `KUBECACHEDIR=cacheDir`.
 *
 * @example
 * ```ts
 * import { kubectlRunner } from "./kubectl_runner.ts";
 * const run = kubectlRunner("/bin/echo", "/dev/null", "/tmp");
 * const out = await run("get", "pods");
 * console.assert(out.code === 0 && out.stdout === "get pods\n");
 * ```
 */
export function kubectlRunner(
  binary: string,
  kubeconfig: string,
  cacheDir: string,
): (...args: string[]) => Promise<KubectlOutput> {
  return async (...args: string[]) => {
    const out = await new Deno.Command(binary, {
      args,
      env: { KUBECONFIG: kubeconfig, KUBECACHEDIR: cacheDir },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
  };
}
