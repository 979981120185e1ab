/**
 * The `dev` entry of an operator project (what `kubeop init` scaffolds calls from its main.ts): the embedded fake API
 * server as `kubeop dev` starts it ({@link startDevApiServer}: TLS, the admin kubeconfig, system:anonymous under RBAC,
 * default ServiceAccounts, the fake kubelet), the project's CRDs installed, its webhooks served on 127.0.0.1 and
 * registered by URL, its controllers running in-process in one Manager, and a kubeconfig written for kubectl.
 * @module
 */

import { parseArgs } from "node:util";
import { KubeClient } from "../runtime/client/client.ts";
import { parseKubeconfig } from "../runtime/client/kubeconfig.ts";
import type { InformerSource } from "../runtime/controller/controller.ts";
import { installCrds } from "../runtime/crd_install.ts";
import { Manager } from "../runtime/manager/manager.ts";
import type { ControllerRunnable } from "../runtime/manager/runnable.ts";
import { configureLogging, type LogLevel } from "../runtime/observe/log.ts";
import type { KubeObject } from "../runtime/types.ts";
import { type LoopbackWebhooks, startLoopbackWebhooks } from "../runtime/webhook/loopback.ts";
import type { RegisteredWebhook } from "../runtime/webhook/webhook.ts";
import { type FakeApiServer, type FakeApiServerOptions, startFakeApiServer } from "./apiserver/server.ts";

/** What `kubeop dev` and a project's dev entry pass to the fake API server, unless told otherwise. */
export function startDevApiServer(opts: Partial<FakeApiServerOptions> = {}): Promise<FakeApiServer> {
  return startFakeApiServer({
    port: 0,
    // like a real cluster: every namespace has the default ServiceAccount and kube-root-ca.crt
    defaultNamespaceObjects: true,
    // like a real cluster's kube-controller-manager: quotas get their status (hard, used) without a client writing it
    quotaController: true,
    // like a real cluster's kube-controller-manager: a deleted claim, volume or VolumeAttributesClass goes once unused
    storageProtection: true,
    // HTTPS like a real cluster: kubectl sends a kubeconfig's credentials (a ServiceAccount's token) only over TLS.
    // The kubeconfig carries the CA and the admin client certificate.
    tls: true,
    // No credentials is system:anonymous (or 401), never the admin: any local process can reach this port.
    anonymousAuth: true,
    ...opts,
  });
}

/** An operator project, as its dev entry runs it. */
export interface DevProject {
  /** The CustomResourceDefinitions to install first. */
  crds(): KubeObject[];
  /** The controllers; `informers` are the Manager's shared caches. */
  controllers(deps: { informers: InformerSource }): ControllerRunnable[];
  /** Admission webhooks, served on 127.0.0.1 and registered by URL (default none). */
  webhooks?(deps: { client: KubeClient }): RegisteredWebhook[];
}

/** Options of {@link startDevProject}. */
export interface DevProjectOptions {
  /** Port on 127.0.0.1 (default 0: a free one). */
  port?: number;
  /** Where the kubeconfig is written (default `.kubeop/dev.kubeconfig`). */
  kubeconfigOut?: string;
  /** Persist objects here and restore them on start. */
  dataDir?: string;
}

/** A running project dev environment. */
export interface DevProjectEnvironment {
  /** The fake API server. */
  server: FakeApiServer;
  /** The kubeconfig written for kubectl. */
  kubeconfigPath: string;
  /** Where the webhooks listen, when the project has some. */
  webhooksUrl?: string;
  /** Stops the controllers, the webhooks and the server. */
  stop(): Promise<void>;
}

/** The default kubeconfig path of a dev environment (as `kubeop dev`'s). */
export const DEV_KUBECONFIG = ".kubeop/dev.kubeconfig";

/**
 * Starts the fake API server with `project`'s CRDs, webhooks and controllers in-process and writes a kubeconfig.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startDevProject } from "./dev_project.ts";
 * const dev = await startDevProject(
 *   { crds: () => [], controllers: () => [] },
 *   { kubeconfigOut: `${await Deno.makeTempDir()}/dev.kubeconfig` },
 * );
 * assert.match(await Deno.readTextFile(dev.kubeconfigPath), /certificate-authority-data/);
 * await dev.stop();
 * ```
 */
export async function startDevProject(
  project: DevProject,
  opts: DevProjectOptions = {},
): Promise<DevProjectEnvironment> {
  const server = await startDevApiServer({ port: opts.port ?? 0, dataDir: opts.dataDir });
  const client = new KubeClient({ config: await parseKubeconfig(server.kubeconfig) });
  const abort = new AbortController();
  let webhooks: LoopbackWebhooks | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const stop = async () => {
    abort.abort();
    await running.catch(() => {});
    await webhooks?.stop();
    client.close();
    await server.stop();
  };
  try {
    await installCrds(client, project.crds());
    const registered = project.webhooks?.({ client }) ?? [];
    if (registered.length) webhooks = await startLoopbackWebhooks({ webhooks: registered, client });
    const manager = new Manager({ client });
    for (const controller of project.controllers({ informers: manager.informers })) manager.add(controller);
    running = manager.start(abort.signal);
    const kubeconfigPath = opts.kubeconfigOut ?? DEV_KUBECONFIG;
    const dir = kubeconfigPath.includes("/") ? kubeconfigPath.slice(0, kubeconfigPath.lastIndexOf("/")) : ".";
    await Deno.mkdir(dir, { recursive: true });
    await server.writeKubeconfig(kubeconfigPath);
    return { server, kubeconfigPath, webhooksUrl: webhooks?.url, stop };
  } catch (err) {
    await stop();
    throw new Error(`dev: starting the project: ${(err as Error).message}`);
  }
}

const DEV_USAGE = `Usage: dev [flags]

Runs the fake API server with this project's CRDs, webhooks and controllers in-process, for kubectl.

Flags:
  --port N                 port on 127.0.0.1 (default 0: a free port)
  --kubeconfig-out PATH    kubeconfig to write (default ${DEV_KUBECONFIG})
  --data-dir DIR           persist objects across restarts
  --log-level LEVEL        trace|debug|info|warning|error|fatal (default info)`;

/**
 * A project's `dev` subcommand: parses `args`, starts {@link startDevProject}, prints
 * `dev ready: KUBECONFIG=<path>` and runs until SIGINT/SIGTERM. Returns the exit code (2: a usage error).
 */
export async function devMain(project: DevProject, args: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args,
      strict: true,
      options: {
        port: { type: "string" },
        "kubeconfig-out": { type: "string" },
        "data-dir": { type: "string" },
        "log-level": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (err) {
    console.error(`dev: ${(err as Error).message.split("\n")[0]}\n\n${DEV_USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(DEV_USAGE);
    return 0;
  }
  const port = Number(values.port ?? 0);
  if (!/^\d+$/.test(String(values.port ?? 0)) || port > 65535) {
    console.error(`dev: flag --port must be a port number, got "${values.port}"`);
    return 2;
  }
  const levels = ["trace", "debug", "info", "warning", "error", "fatal"];
  const level = String(values["log-level"] ?? "info");
  if (!levels.includes(level)) {
    console.error(`dev: flag --log-level must be one of ${levels.join("|")}, got "${level}"`);
    return 2;
  }
  await configureLogging({ format: "text", level: level as LogLevel });
  const dev = await startDevProject(project, {
    port,
    kubeconfigOut: values["kubeconfig-out"] as string | undefined,
    dataDir: values["data-dir"] as string | undefined,
  });
  const absolute = dev.kubeconfigPath.startsWith("/") ? dev.kubeconfigPath : `${Deno.cwd()}/${dev.kubeconfigPath}`;
  console.log(`dev ready: KUBECONFIG=${absolute}`);
  const { promise, resolve } = Promise.withResolvers<void>();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const sig of signals) Deno.addSignalListener(sig, resolve);
  await promise;
  for (const sig of signals) Deno.removeSignalListener(sig, resolve);
  await dev.stop();
  return 0;
}
