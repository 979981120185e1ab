/**
 * The webhook serving certificate from files (`--webhook-cert-dir`): `tls.crt` and `tls.key`, the layout of a
 * cert-manager Certificate's Secret mounted as a volume (kubebuilder's scaffold; cert-manager's cainjector then fills
 * the caBundle). The kubelet updates a mounted Secret by swapping a symlink, so the files are re-read every
 * `pollMs` on the injected clock and a changed, valid pair is served from the next connection on (controller-runtime's
 * certwatcher does the same, with fsnotify plus polling). A half-written or mismatched pair is ignored until it is
 * whole.
 * @module
 */
import { join } from "node:path";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { type Clock, RealClock } from "../clock.ts";
import { kubeopLogger, type Logger } from "../observe/log.ts";
import type { CertKeyPEM } from "../http/pki.ts";
import type { ServingCertSource } from "./server.ts";

/** Options of {@link CertDirSource}. */
export interface CertDirOptions {
  /** Directory holding `tls.crt` and `tls.key`. */
  dir: string;
  /** Certificate file name (default `tls.crt`). */
  certName?: string;
  /** Key file name (default `tls.key`). */
  keyName?: string;
  /** How often to re-read the files (default 10 s). */
  pollMs?: number;
  /** Default real time. */
  clock?: Clock;
  /** Default `kubeop.webhook.certs`. */
  logger?: Logger;
}

/**
 * Serving certificates read from a directory and reloaded when the files change.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createCA } from "../http/pki.ts";
 * import { startRunnable } from "../manager/runnable.ts";
 * import { CertDirSource } from "./cert_dir.ts";
 * import { WebhookServer } from "./server.ts";
 * const ca = await createCA({ commonName: "example-ca" }); // cert-manager's, in a cluster
 * const leaf = await ca.issue({ commonName: "webhook", hosts: ["127.0.0.1"], usage: "server" });
 * const dir = await Deno.makeTempDir(); // /tmp/k8s-webhook-server/serving-certs in a Pod
 * await Deno.writeTextFile(`${dir}/tls.crt`, leaf.certPEM);
 * await Deno.writeTextFile(`${dir}/tls.key`, leaf.keyPEM);
 * const server = new WebhookServer({
 *   bindAddress: "127.0.0.1:0",
 *   certificates: new CertDirSource({ dir }),
 *   routes: [{ path: "/echo", serve: (body) => Promise.resolve({ status: 200, body }) }],
 * });
 * const stop = new AbortController();
 * const run = startRunnable(server, stop.signal);
 * await run.ready;
 * const client = Deno.createHttpClient({ caCerts: [ca.certPEM] });
 * const res = await fetch(`${server.url}/echo`, {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: "{}",
 *   client,
 * });
 * assert.equal(res.status, 200);
 * await res.body?.cancel();
 * client.close();
 * stop.abort();
 * await run.done;
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class CertDirSource implements ServingCertSource {
  readonly #opts: CertDirOptions;
  readonly #clock: Clock;
  readonly #log: Logger;
  #current: CertKeyPEM | undefined;

  /** Reads nothing until {@link CertDirSource.initial}. */
  constructor(opts: CertDirOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? new RealClock();
    this.#log = opts.logger ?? kubeopLogger("webhook.certs");
  }

  /** Reads and checks the pair; throws naming the file when it is missing or invalid. */
  async initial(): Promise<CertKeyPEM> {
    const pair = await this.#read();
    checkPair(pair, this.#opts.dir);
    this.#current = pair;
    return pair;
  }

  /** Re-reads every `pollMs` until `signal` aborts; calls `onChange` with each new valid pair. */
  async watch(signal: AbortSignal, onChange: (cert: CertKeyPEM) => void): Promise<void> {
    const pollMs = this.#opts.pollMs ?? 10_000;
    while (!signal.aborted) {
      try {
        await this.#clock.sleep(pollMs, signal);
      } catch {
        return;
      }
      let pair: CertKeyPEM;
      try {
        pair = await this.#read();
        if (pair.certPEM === this.#current?.certPEM && pair.keyPEM === this.#current?.keyPEM) continue;
        checkPair(pair, this.#opts.dir);
      } catch (err) {
        this.#log.warn("webhook certificate files not reloaded (keeping the current pair): {error}", {
          error: String(err),
        });
        continue;
      }
      this.#current = pair;
      this.#log.info("webhook certificate reloaded from {dir}", { dir: this.#opts.dir });
      onChange(pair);
    }
  }

  async #read(): Promise<CertKeyPEM> {
    const read = async (file: string) => {
      const path = join(this.#opts.dir, file);
      try {
        return await Deno.readTextFile(path);
      } catch (err) {
        throw new Error(`webhook server: reading ${path} (--webhook-cert-dir): ${(err as Error).message}`);
      }
    };
    return {
      certPEM: await read(this.#opts.certName ?? "tls.crt"),
      keyPEM: await read(this.#opts.keyName ?? "tls.key"),
    };
  }
}

/** Throws unless the certificate parses and the key is the certificate's. */
function checkPair(pair: CertKeyPEM, dir: string): void {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pair.certPEM);
  } catch (err) {
    throw new Error(`webhook server: ${dir}/tls.crt is not a PEM certificate: ${(err as Error).message}`);
  }
  try {
    if (!cert.checkPrivateKey(createPrivateKey(pair.keyPEM))) throw new Error("the key does not match the certificate");
  } catch (err) {
    throw new Error(`webhook server: ${dir}/tls.key: ${(err as Error).message}`);
  }
}
