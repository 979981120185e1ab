import assert from "node:assert/strict";
import { join } from "node:path";
import { eventually } from "../../testing/eventually.ts";
import { VirtualClock } from "../clock.ts";
import { createCA } from "../http/pki.ts";
import { CertDirSource } from "./cert_dir.ts";
import type { CertKeyPEM } from "../http/pki.ts";

Deno.test("cert-dir source: reads tls.crt/tls.key, reloads a changed valid pair, ignores a half-written one", async () => {
  const dir = await Deno.makeTempDir();
  const ca = await createCA({ commonName: "cert-manager-ca" });
  const issue = () => ca.issue({ commonName: "webhook", hosts: ["kubeop-webhook.kubeop-system.svc"], usage: "server" });
  const write = async (pair: CertKeyPEM) => {
    await Deno.writeTextFile(join(dir, "tls.crt"), pair.certPEM);
    await Deno.writeTextFile(join(dir, "tls.key"), pair.keyPEM);
  };
  const clock = new VirtualClock();
  const source = new CertDirSource({ dir, clock, pollMs: 10_000 });
  const stop = new AbortController();
  try {
    await assert.rejects(source.initial(), /tls\.crt \(--webhook-cert-dir\)/);
    const first = await issue();
    await write(first);
    assert.deepEqual(await source.initial(), first);
    const changes: CertKeyPEM[] = [];
    const watching = source.watch(stop.signal, (c) => changes.push(c));
    const second = await issue();
    // Half-way through an update: the new certificate with the old key.
    await Deno.writeTextFile(join(dir, "tls.crt"), second.certPEM);
    await clock.advance(10_000);
    await clock.advance(10_000);
    assert.equal(changes.length, 0);
    await Deno.writeTextFile(join(dir, "tls.key"), second.keyPEM);
    await eventually("the new pair loaded", async () => {
      await clock.advance(10_000);
      return changes.length > 0;
    });
    assert.deepEqual(changes, [second]);
    stop.abort();
    await watching;
  } finally {
    stop.abort();
    await Deno.remove(dir, { recursive: true });
  }
});
