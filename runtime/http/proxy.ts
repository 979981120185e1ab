/**
 * Which proxy, if any, a request to a URL goes through: the `HTTPS_PROXY` / `HTTP_PROXY` variables (either case; for
 * https and http targets respectively, `ALL_PROXY` as the fallback of both) unless `NO_PROXY` exempts the host.
 * `NO_PROXY` is read as Go's net/http reads it (client-go's default): a comma-separated list of `*` (no proxy at all),
 * host names (`example.com` matches it and its subdomains, `.example.com` only the subdomains), IP addresses and CIDR
 * ranges, each optionally with `:port`. Unlike Go, loopback addresses are not exempt by themselves (Deno's fetch,
 * which kubeop followed before deciding itself, proxies them too): list them in `NO_PROXY`.
 * @module
 */

/** Where the variables are read from ({@link Deno.env} by default). */
export interface ProxyEnv {
  /** The variable's value, or undefined. May throw when the environment may not be read. */
  get(name: string): string | undefined;
}

/** The proxy a URL is reached through. */
export interface ProxyChoice {
  /** The variable that named it, e.g. `HTTPS_PROXY` (for messages: the URL may carry credentials). */
  variable: string;
  /** The proxy's URL (`http://host:port` when the variable gave a bare `host:port`). */
  url: URL;
}

const VARIABLES = {
  "https:": ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"],
  "http:": ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"],
} as const;

/** Reads a variable; an environment that may not be read (no --allow-env) has none. */
function read(env: ProxyEnv, name: string): string | undefined {
  try {
    return env.get(name) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The proxy `target` goes through, or undefined for a direct connection.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { proxyFor } from "./proxy.ts";
 * const env = (vars: Record<string, string>) => ({ get: (k: string) => vars[k] });
 * const api = new URL("https://10.0.0.1:6443/api");
 * assert.equal(proxyFor(api, env({ HTTPS_PROXY: "proxy:3128" }))?.url.href, "http://proxy:3128/");
 * assert.equal(proxyFor(api, env({ HTTPS_PROXY: "proxy:3128", NO_PROXY: "10.0.0.0/8" })), undefined);
 * assert.equal(proxyFor(api, env({ HTTP_PROXY: "proxy:3128" })), undefined); // an http proxy for https targets: no
 * ```
 */
export function proxyFor(target: URL, env: ProxyEnv = Deno.env): ProxyChoice | undefined {
  const names = VARIABLES[target.protocol as keyof typeof VARIABLES];
  if (!names) return undefined;
  let variable: string | undefined;
  let value: string | undefined;
  for (const name of names) {
    value = read(env, name);
    if (value) {
      variable = name;
      break;
    }
  }
  if (!variable || !value) return undefined;
  const noProxy = read(env, "NO_PROXY") ?? read(env, "no_proxy");
  if (noProxy && exempt(target, noProxy)) return undefined;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  } catch {
    // The value is not echoed: a proxy URL may carry a password.
    throw new TypeError(`${variable} is not a URL`);
  }
  return { variable, url };
}

/** Whether `NO_PROXY` (`list`) exempts `target`. */
function exempt(target: URL, list: string): boolean {
  const host = target.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = target.port || (target.protocol === "https:" ? "443" : "80");
  for (let entry of list.split(",")) {
    entry = entry.trim().toLowerCase();
    if (!entry) continue;
    if (entry === "*") return true;
    if (entry.includes("/")) {
      if (inCidr(host, entry)) return true;
      continue;
    }
    let entryPort: string | undefined;
    const bracketed = /^\[(.*)\](?::(\d+))?$/.exec(entry);
    if (bracketed) {
      entry = bracketed[1];
      entryPort = bracketed[2];
    } else {
      const m = /^([^:]+):(\d+)$/.exec(entry);
      if (m) [entry, entryPort] = [m[1], m[2]];
    }
    if (entryPort && entryPort !== port) continue;
    if (entry.startsWith("*.")) entry = entry.slice(1);
    if (entry.startsWith(".")) {
      if (host.endsWith(entry)) return true;
    } else if (host === entry || host.endsWith(`.${entry}`)) {
      return true;
    }
  }
  return false;
}

/** Whether the IPv4 `host` is in the IPv4 CIDR range `cidr` (other forms never match). */
function inCidr(host: string, cidr: string): boolean {
  const [net, bitsText] = cidr.split("/");
  const bits = Number(bitsText);
  const a = ipv4(host);
  const b = ipv4(net);
  if (a === undefined || b === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32) return false;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return ((a & mask) >>> 0) === ((b & mask) >>> 0);
}

function ipv4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    n = n * 256 + Number(p);
  }
  return n;
}
