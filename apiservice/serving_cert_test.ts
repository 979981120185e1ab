import assert from "node:assert/strict";
import { VirtualClock } from "../runtime/clock.ts";
import { loadServingCert } from "./serving_cert.ts";

Deno.test("a generated serving certificate and its CA are written owner-only (0600), keys included", async () => {
  const dir = await Deno.makeTempDir({ prefix: "farm-certs-" });
  const clock = new VirtualClock(Date.now());
  try {
    const certDir = `${dir}/farm-certs`;
    const cert = await loadServingCert({ certDir, hosts: ["localhost"], clock });
    assert.ok(cert.keyPEM.includes("PRIVATE KEY"));
    for (const file of ["ca.key", "ca.crt", "apiserver.key", "apiserver.crt"]) {
      assert.equal((await Deno.stat(`${certDir}/${file}`)).mode! & 0o777, 0o600, file);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
