/**
 * Test fixture for the farm server: a front-proxy CA with an allowed client certificate, a rogue CA, an in-memory
 * cluster, a started server on 127.0.0.1:0, and `call()` which makes real HTTPS requests as the front proxy (with
 * X-Remote-User/Group), with a rogue certificate, or with no certificate at all.
 * @module
 */
import { type Clock, RealClock } from "../../runtime/clock.ts";
import type { KubeObject } from "../../runtime/types.ts";
import { REQUESTHEADER_DEFAULTS } from "../../apiservice/authn.ts";
import type { AccessAttributes, FarmCluster, UserInfo } from "../../apiservice/cluster.ts";
import { MemoryFarmCluster } from "../../apiservice/memory_cluster.ts";
import { startRunnable } from "../../runtime/manager/runnable.ts";
import { FarmApiServer, type FarmApiServerOptions } from "../../apiservice/mod.ts";
import { type CertAuthority, type CertKeyPEM, createCA } from "../../runtime/http/pki.ts";

/** How a test request identifies itself. */
export interface CallAs {
  /** "proxy" (default): allowed front-proxy cert; "rogue": cert from another CA; "wrong-cn": front-proxy CA, CN not allowed; "none". */
  cert?: "proxy" | "rogue" | "wrong-cn" | "none";
  /** The token's user. */
  user?: string;
  /** Group memberships. */
  groups?: string[];
  /** Extra request headers. */
  headers?: Record<string, string>;
}

/** A running fixture. */
export interface FarmFixture<C extends FarmCluster = MemoryFarmCluster> {
  /** The running server (stopped by {@link FarmFixture.close}). */
  farm: FarmApiServer;
  /** The cluster (SubjectAccessReview, ConfigMaps, Secrets, Pods). */
  cluster: C;
  /** CA of the front proxy's client certificate. */
  frontProxyCA: CertAuthority;
  /** Directory of the generated serving cert. */
  certDir: string;
  /** HTTPS request; `as` defaults to the front proxy acting for user "alice". */
  call(path: string, init?: RequestInit & { as?: CallAs }): Promise<Response>;
  /** Stops the server, closes clients and removes the cert dir (unless keepCertDir). */
  close(opts?: { keepCertDir?: boolean }): Promise<void>;
}

/** Options of {@link startFarmFixture}. */
export interface FixtureOptions extends Partial<FarmApiServerOptions> {
  /** Decides one request (cached SubjectAccessReview). */
  authorize?: (user: UserInfo, attrs: AccessAttributes) => boolean;
  /** The cluster (SubjectAccessReview, ConfigMaps, Secrets, Pods). */
  cluster?: FarmCluster;
  /** CA of the front proxy's client certificate. */
  frontProxyCA?: CertAuthority;
  /** Time source for timestamps, timers and TTLs (inject VirtualClock in tests). */
  clock?: Clock;
}

/** Starts a fixture. */
export async function startFarmFixture<C extends FarmCluster = MemoryFarmCluster>(
  opts: FixtureOptions & { cluster?: C } = {},
): Promise<FarmFixture<C>> {
  const frontProxyCA = opts.frontProxyCA ?? await createCA({ commonName: "front-proxy-ca" });
  const rogueCA = await createCA({ commonName: "rogue-ca" });
  const proxyCert = await frontProxyCA.issue({ commonName: "front-proxy-client", usage: "client" });
  const wrongCN = await frontProxyCA.issue({ commonName: "someone-else", usage: "client" });
  const rogueCert = await rogueCA.issue({ commonName: "front-proxy-client", usage: "client" });
  const cluster = (opts.cluster ?? new MemoryFarmCluster({ authorize: opts.authorize })) as C;
  const certDir = opts.certDir ?? await Deno.makeTempDir({ prefix: "farm-certs-" });
  const farm = new FarmApiServer({
    port: 0,
    bindAddress: "127.0.0.1",
    certDir,
    cluster,
    clock: opts.clock ?? new RealClock(),
    requestHeader: {
      ...REQUESTHEADER_DEFAULTS,
      clientCAPEM: frontProxyCA.certPEM,
      allowedNames: ["front-proxy-client"],
    },
    log: () => {},
    ...opts,
  });
  const stop = new AbortController();
  const serving = startRunnable(farm, stop.signal);
  await serving.ready;
  const clients = new Map<string, Deno.HttpClient>();
  const clientFor = (kind: NonNullable<CallAs["cert"]>) => {
    let client = clients.get(kind);
    if (!client) {
      const pair: CertKeyPEM | undefined = kind === "proxy"
        ? proxyCert
        : kind === "rogue"
        ? rogueCert
        : kind === "wrong-cn"
        ? wrongCN
        : undefined;
      client = Deno.createHttpClient({
        caCerts: [farm.caPEM],
        ...(pair ? { cert: pair.certPEM, key: pair.keyPEM } : {}),
      });
      clients.set(kind, client);
    }
    return client;
  };
  return {
    farm,
    cluster,
    frontProxyCA,
    certDir,
    call(path, init = {}) {
      const as = init.as ?? {};
      const headers = new Headers(init.headers);
      const cert = as.cert ?? "proxy";
      const user = as.user ?? (cert === "proxy" ? "alice" : undefined);
      if (user) headers.set("X-Remote-User", user);
      for (const g of as.groups ?? (user ? ["system:authenticated"] : [])) headers.append("X-Remote-Group", g);
      for (const [k, v] of Object.entries(as.headers ?? {})) headers.set(k, v);
      return fetch(`${farm.url}${path}`, { ...init, headers, client: clientFor(cert) });
    },
    async close(closeOpts = {}) {
      stop.abort();
      await serving.done;
      for (const c of clients.values()) c.close();
      if (!closeOpts.keepCertDir && !opts.certDir) await Deno.remove(certDir, { recursive: true });
    },
  };
}

/** Reads a watch stream line by line until `until` returns true for the collected events (or the deadline). */
export async function readWatch(
  res: Response,
  until: (events: Array<{ type: string; object: KubeObject }>) => boolean,
  opts: { deadlineMs?: number } = {},
): Promise<Array<{ type: string; object: KubeObject }>> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: Array<{ type: string; object: KubeObject }> = [];
  let buffer = "";
  const deadline = Date.now() + (opts.deadlineMs ?? 10_000);
  try {
    while (!until(events)) {
      if (Date.now() > deadline) throw new Error(`watch: condition not met; got ${JSON.stringify(events)}`);
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      let nl;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (line) events.push(JSON.parse(line));
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return events;
}
