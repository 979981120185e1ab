/**
 * docs/getting-started.md as a script: its shell commands in order ({@link guideCommands}), and a shell that runs them
 * as a reader would ({@link GuideShell}): `kubeop` is this checkout's CLI, the project lives in a temporary directory
 * instead of next to the checkout, kubectl comes from this machine. tests/scaffold_test.ts and
 * tests/real/scaffold_real_test.ts run every command the page names.
 * @module
 */
import assert from "node:assert/strict";
import { realControlPlaneBinDir } from "../../testing/mod.ts";
import { kubectlBinaries } from "../kubectl/suite.ts";

/** This checkout. */
export const REPO = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
/** The guide. */
export const GUIDE = `${REPO}/docs/getting-started.md`;

/** Every line of the guide's ```sh blocks, in order. */
export async function guideCommands(): Promise<string[]> {
  const text = await Deno.readTextFile(GUIDE);
  const out: string[] = [];
  for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    out.push(...block[1].split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#")));
  }
  return out;
}

/** The commands of section 1 (git clone, npm install, PATH, alias): the test runs inside this checkout instead. */
export const SETUP_COMMANDS = 4;

/** A shell in the guide's state: the current directory and KUBECONFIG. */
export class GuideShell {
  /** The directory the next command runs in. */
  cwd: string = REPO;
  /** KUBECONFIG once exported. */
  kubeconfig?: string;
  /** Commands run, as the guide writes them. */
  readonly ran: string[] = [];

  constructor(
    /** The temporary directory standing for the checkout's parent. */
    readonly parent: string,
    /** Directory holding the kubectl binary. */
    readonly kubectlDir: string,
  ) {}

  /** The environment of every command: kubectl and deno on PATH, `kubeop` a function, no user kubeconfig. */
  env(): Record<string, string> {
    return {
      PATH: `${this.kubectlDir}:${Deno.execPath().replace(/\/[^/]+$/, "")}:${Deno.env.get("PATH") ?? ""}`,
      HOME: Deno.env.get("HOME") ?? "/tmp",
      NO_COLOR: "1",
      KUBECONFIG: this.kubeconfig ?? "/nonexistent",
    };
  }

  /** `../demo-operator` from the checkout is the temporary parent's `demo-operator`. */
  #resolve(command: string): string {
    return this.cwd === REPO ? command.replaceAll("../demo-operator", `${this.parent}/demo-operator`) : command;
  }

  /**
   * Runs one guide command to completion; `cd` and `export KUBECONFIG=` change the shell's state. Returns stdout;
   * a non-zero exit fails with the command's output.
   */
  async run(command: string): Promise<string> {
    this.ran.push(command);
    const cd = /^cd (\S+)$/.exec(command);
    if (cd) {
      this.cwd = new URL(`${this.#resolve(cd[1])}/`, `file://${this.cwd}/`).pathname.replace(/\/$/, "");
      return "";
    }
    const kc = /^export KUBECONFIG=\$PWD\/(\S+)$/.exec(command);
    if (kc) {
      this.kubeconfig = `${this.cwd}/${kc[1]}`;
      return "";
    }
    const script = `kubeop() { deno run --allow-all ${REPO}/main.ts "$@"; }\n${this.#resolve(command)}`;
    const out = await new Deno.Command("bash", {
      args: ["-euo", "pipefail", "-c", script],
      cwd: this.cwd,
      env: this.env(),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, `\`${command}\` in ${this.cwd} exited ${out.code}:\n${stdout}${stderr}`);
    return stdout;
  }

  /** Starts a long-running guide command (`deno task dev`) and resolves once it printed `ready`. */
  async start(
    command: string,
    ready: RegExp,
    timeoutMs = 60_000,
  ): Promise<{ stop(): Promise<void>; output(): string }> {
    this.ran.push(command);
    const child = new Deno.Command("bash", {
      args: ["-c", `exec ${command}`],
      cwd: this.cwd,
      env: this.env(),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let text = "";
    const { promise: seen, resolve } = Promise.withResolvers<void>();
    const pump = async (stream: ReadableStream<Uint8Array>) => {
      const decoder = new TextDecoder();
      for await (const chunk of stream) {
        text += decoder.decode(chunk, { stream: true });
        if (ready.test(text)) resolve();
      }
    };
    const drained = Promise.all([pump(child.stdout), pump(child.stderr)]);
    const stop = async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* exited */ }
      await child.status;
      await drained;
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`\`${command}\` did not print ${ready} in ${timeoutMs} ms:\n${text}`)),
        timeoutMs,
      );
    });
    const exited = child.status.then((s) => {
      throw new Error(`\`${command}\` exited ${s.code} before ${ready}:\n${text}`);
    });
    try {
      await Promise.race([seen, timeout, exited]);
    } catch (err) {
      await stop();
      throw err;
    } finally {
      clearTimeout(timer);
    }
    exited.catch(() => {});
    return { stop, output: () => text };
  }
}

/** The directory of a kubectl binary on this machine: kubectl 1.35 of the clients cache, else the real tier's. */
export async function kubectlDir(): Promise<string | undefined> {
  const cached = (await kubectlBinaries())["1.35"];
  if (cached) return cached.replace(/\/kubectl$/, "");
  return await realControlPlaneBinDir();
}
